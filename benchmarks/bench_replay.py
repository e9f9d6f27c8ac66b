"""What a replay's scrubber costs: one seek vs showing the run once (``noesis_nb.show``), in process.

    python benchmarks/bench_replay.py                 # a 10,000-event run (5,000 model calls and 5,000 reasons)
    python benchmarks/bench_replay.py --events 2000

A seek back rebuilds the view from the run's first k events (the view at k is a pure function of
them), so its cost grows with k; a seek forward takes in only the events in between, as the live
view did. The baseline is measured in the same run: building the view of the whole run from disk
once. Reports the median of a seek to a random k, a seek back by one event near the end, and a step
of Play (forward by one event near the end), each as a ratio of that baseline.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def make_run(events: int, runs_dir: Path) -> Path:
    import noesis_nb

    async def agent(task, ctx):  # type: ignore[no-untyped-def]
        for i in range(events // 2):
            ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=1200 + i % 50, output_tokens=80)
            ctx.emit("reason", {"text": f"step {i}: thinking about the next tool call"})
        return "done"

    async def main() -> Path:
        handle = noesis_nb.start("bench", using=agent, runs_dir=runs_dir)
        await handle.wait()
        return handle.run_dir

    return asyncio.run(main())


def timed(fn, repeat: int) -> list[float]:  # type: ignore[no-untyped-def]
    out = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        out.append(time.perf_counter() - started)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()

    from noesis_nb.runtime.diskrun import DiskRun
    from noesis_nb.widgets import EpisodeView
    from noesis_nb.widgets.replayview import ReplayView

    run_dir = make_run(args.events, Path(tempfile.mkdtemp(prefix="nnb-bench-replay-")))
    baseline = statistics.median(timed(lambda: EpisodeView(DiskRun(run_dir)).close(), args.repeat))
    replay = ReplayView(run_dir)
    n = replay.total
    rng = random.Random(7)
    seeks = timed(lambda: replay.seek(rng.randrange(n)), args.repeat * 3)
    back, forward = [], []
    for _ in range(args.repeat):
        replay.seek(n - 1)
        back += timed(lambda: replay.seek(n - 2), 1)  # one back: rebuilt from 10k events
        forward += timed(lambda: replay.seek(n - 1), 1)  # one forward: one event taken in
    print(f"run of {n:,} events; baseline (show the run once): {baseline * 1000:.0f} ms")
    for name, values in (
        ("seek to a random k", seeks),
        ("one event back, near the end", back),
        ("one event forward (Play)", forward),
    ):
        median = statistics.median(values)
        print(f"{name:30} {median * 1000:7.0f} ms   {median / baseline:5.2f}× the baseline")


if __name__ == "__main__":
    main()
