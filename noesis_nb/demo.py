"""``python -m noesis_nb.demo``: run an episode whose agent asks for a write tool, approve it through
the API, and print the run directory and what is in it. No network, no API key."""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from pathlib import Path

from .runtime.api import start
from .scripted import note_writer
from .store import read_events, verify_manifest


async def _run(runs_dir: Path, notes_dir: Path) -> None:
    handle = start("Write a short note about noesis_nb", using=note_writer(notes_dir), runs_dir=runs_dir)
    await handle  # returns when the episode pauses for a human
    print(f"episode {handle.episode_id} is {handle.status}")
    for pending in handle.pending:
        print(f"  waiting for approval: {pending.tool} ({pending.effect_kind}, risk {pending.risk_tier})")
        print(f"  command: {(pending.command_line or '')[:100]}…")
    decision = handle.approve(approver_id="demo", reason="approved from the demo script")
    print(f"approved by {decision.approver_id}; continuing")
    await handle.wait()
    print(f"episode finished: {handle.status}; result: {handle.result()['summary']}")
    usage = handle.usage
    inp, out = ("unknown" if usage[k] is None else usage[k] for k in ("input_tokens", "output_tokens"))  # None: not reported
    print(f"model calls: {usage['model_calls']}, input tokens: {inp}, output tokens: {out}")
    print(f"\nrun directory: {handle.run_dir}")
    for path in sorted(p for p in handle.run_dir.rglob("*") if p.is_file()):
        print(f"  {path.relative_to(handle.run_dir)}  ({path.stat().st_size} bytes)")
    names = [
        e.get("event_type") or e["payload"].get("event_name") or e["phase"] for e in read_events(handle.run_dir / "events.jsonl")
    ]
    print(f"\n{len(names)} events: {' → '.join(names)}")
    print(f"manifest: {verify_manifest(handle.run_dir).status}; note written: {(notes_dir / 'note.md').exists()}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs-dir", type=Path, default=None, help="where run directories go (default: a temp dir)")
    args = parser.parse_args(argv)
    base = Path(tempfile.mkdtemp(prefix="noesis_nb-demo-"))
    asyncio.run(_run(args.runs_dir or base / "episodes", base / "notes"))


if __name__ == "__main__":
    main()
