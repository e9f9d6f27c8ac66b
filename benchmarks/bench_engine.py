"""Engine overhead: an episode emitting N events against a raw append of the same JSON lines.

Both sides write one whole line per event and flush it (the durability the run log promises);
the ratio is what the runtime adds on top: ids, timestamps, locking, subscribers, sealing.
Usage: python benchmarks/bench_engine.py [--events 10000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

import noesis_nb


def run_episode(runs_dir: Path, n: int) -> tuple[float, Path]:
    async def chatty(task, ctx):
        for i in range(n):
            ctx.emit("reason", {"step": i, "text": f"thought number {i} about {task}"})
        return n

    t0 = time.perf_counter()
    ep = asyncio.run(noesis_nb.solve_async("benchmark", using=chatty, runs_dir=runs_dir))
    return time.perf_counter() - t0, runs_dir / ep


def raw_append(lines: list[bytes], path: Path) -> float:
    t0 = time.perf_counter()
    with open(path, "ab", buffering=0) as fh:
        for line in lines:
            fh.write(line)
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    episode_times, raw_times = [], []
    with tempfile.TemporaryDirectory() as tmp:
        run_episode(Path(tmp) / "warmup", 10)  # imports and first-call costs stay out of the timing
        for r in range(args.repeat):
            seconds, run_dir = run_episode(Path(tmp) / f"runs{r}", args.events)
            lines = (run_dir / "events.jsonl").read_bytes().splitlines(keepends=True)
            episode_times.append(seconds)
            raw_times.append(raw_append(lines, Path(tmp) / f"raw{r}.jsonl"))
    episode, raw = statistics.median(episode_times), statistics.median(raw_times)
    print(f"episode with {args.events} events: {episode * 1000:.1f} ms (median of {args.repeat})")
    print(f"raw append of the same {len(lines)} lines: {raw * 1000:.1f} ms")
    print(f"ratio episode / raw append: {episode / raw:.2f}x (target <= 3x)")


if __name__ == "__main__":
    main()
