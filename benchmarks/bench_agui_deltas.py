"""What holding back streamed pieces costs: ``agui_rows(deltas=True)`` vs the folded rows alone, in process.

    python benchmarks/bench_agui_deltas.py                # a 20,000-character answer in 1-character pieces
    python benchmarks/bench_agui_deltas.py --chars 5000 --piece 4

``deltas=True`` passes every piece through a ``LiveText`` (hold back what could still be part of a key,
screen what is released); the baseline, measured in the same run, folds the same events with
``deltas=False``. A third arm adds a learned value to the secrets (the prefix index of learned values
in use). Reports each arm's median and its ratio to the baseline, and the rows written.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from _timing import median

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

KEY = "ghp_" + "Ab3d" * 9


def events(chars: int, piece: int) -> list[dict[str, Any]]:
    words = "The weather is fine today, and the answer takes a while to stream. "
    text = (words * (chars // len(words) + 1))[: chars - len(KEY) - 1] + " " + KEY
    pieces = [text[i : i + piece] for i in range(0, len(text), piece)]
    return [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
        *({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": p} for p in pieces),
        {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
    ]


def fold(stream: list[dict[str, Any]], deltas: bool, learned: bool) -> int:
    from noesis_nb.integrations.agui import AGUIFolder
    from noesis_nb.secrets import RunSecrets

    secrets = RunSecrets()
    if learned:
        secrets.learn(['pa"ss w\u00f6rd 42!'])
    folder, rows = AGUIFolder(deltas=deltas, secrets=secrets), 0
    for event in stream:
        rows += len(folder.feed(dict(event)))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chars", type=int, default=20_000)
    parser.add_argument("--piece", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    stream = events(args.chars, args.piece)
    print(f"{args.chars} characters in {len(stream) - 4} pieces of {args.piece}")
    base = median(lambda: fold(stream, False, False), args.repeat)
    print(f"  deltas=False (baseline)      {base * 1000:8.1f} ms   rows {fold(stream, False, False)}")
    for name, learned in (("deltas=True", False), ("deltas=True, a learned value", True)):
        took = median(lambda learned=learned: fold(stream, True, learned), args.repeat)
        print(f"  {name:<28} {took * 1000:8.1f} ms   {took / base:6.1f}x   rows {fold(stream, True, learned)}")


if __name__ == "__main__":
    main()
