"""What a view costs once many runs of the process learned secrets: 10 runs against ``--runs`` (500), in this run.

    python benchmarks/bench_known_secrets.py
    python benchmarks/bench_known_secrets.py --runs 500 --per-run 3 --repeat 5

Every view hides what any run of the process learned (``secrets.guard.known_shown``, up to 512 runs). One real run
(a sync adapter writing a few notes with secrets, approved automatically) is shown as a user sees it: its snapshot,
its HTML, each row, and a few texts through ``shown``. Then more runs learn ``--per-run`` values each, and the same
view is measured again. The ratio is the growth with the runs: near 1 when a text is searched for all the values in
one pass. CPU time of this process, best of ``--repeat``; the Python calls of one view are counted too.
"""

from __future__ import annotations

import argparse
import random
import string
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _timing import timings  # noqa: E402

import noesis_nb  # noqa: E402
from noesis_nb import DiskRun  # noqa: E402
from noesis_nb.secrets import guard  # noqa: E402
from noesis_nb.secrets.display import shown  # noqa: E402
from noesis_nb.widgets import EpisodeView  # noqa: E402
from noesis_nb.widgets.render import row_html  # noqa: E402

_RNG = random.Random(7)
_PROSE = "The agent read the build log, found the failing test and wrote a short summary of the fix. "
_TEXTS = ["short text", _PROSE, _PROSE * 8, "x" * 5000]


def token(n: int) -> str:
    return "".join(_RNG.choice(string.ascii_letters + string.digits) for _ in range(n))


def agent(task: str, ctx: Any) -> str:
    for i in range(5):
        ctx.emit("note", {"text": f"step {i}: password={token(14)} and token sk-proj-{token(40)}", "auth": token(24)})
    return "ok"


def view(run: DiskRun) -> None:
    shown_view = EpisodeView(run)
    shown_view.flush()
    shown_view.snapshot_html()
    shown_view.mimebundle(widget=False)
    for event in run.events:
        row_html(event)
    shown_view.close()
    for text in _TEXTS:
        shown(text)


def calls(run: DiskRun) -> int:
    made = [0]

    def count(frame: Any, event: str, arg: Any) -> None:
        made[0] += event in ("call", "c_call")

    sys.setprofile(count)
    try:
        view(run)
    finally:
        sys.setprofile(None)
    return made[0]


def measure(run: DiskRun, repeat: int) -> tuple[float, int]:
    view(run)  # what the values learned since compile, once
    return min(timings(lambda: view(run), repeat, time.process_time)), calls(run)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=500)
    parser.add_argument("--per-run", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bench-known-"))
    runs = folder / "runs"
    run = DiskRun(runs / noesis_nb.solve("ship it", using=agent, runs_dir=runs, approver="auto"))
    rows = []
    learned = 1
    for target in (10, args.runs):
        while learned < target:
            guard.for_run(folder / f"other{learned}").learn([token(24 + i) for i in range(args.per_run)])
            learned += 1
        seconds, made = measure(run, args.repeat)
        rows.append((target, len(guard.known_shown()), seconds, made))
    print(f"{'runs':>6} {'values':>8} {'view ms':>9} {'calls':>10}")
    for target, values, seconds, made in rows:
        print(f"{target:>6} {values:>8} {seconds * 1e3:>9.1f} {made:>10,}")
    (_, _, base, base_calls), (_, _, last, last_calls) = rows
    print(f"ratio {args.runs} runs / 10 runs: time {last / base:.2f}x, calls {last_calls / base_calls:.2f}x")


if __name__ == "__main__":
    main()
