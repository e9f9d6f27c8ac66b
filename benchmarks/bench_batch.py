"""Batches: what recording costs per episode, Dask against in-process, and runs_ddf/events_ddf against the pandas frames.

1. ``--episodes`` (1,000) episodes of a no-tool scripted adapter (~30 events each: 6 model calls and 10
   notes of its own, plus the run's lifecycle) at concurrency 32 with ``batch()``, against the same adapter
   calls under ``asyncio.gather`` (bounded at 32 too) with a context that records nothing. Prints both,
   the ratio and the overhead per episode in ms (target ≤ 3 ms); also the same episodes recorded with
   ``solve_async`` under ``asyncio.gather``, which splits that overhead into the engine's and batch()'s.
2. ``--sleepers`` (200) episodes whose adapter sleeps 50 ms (I/O-bound, like an LLM call) at concurrency
   8: on this loop, then on a Dask ``LocalCluster`` of 2 worker processes (target: cluster ≤ 1.2× in-process).
3. ``runs_ddf`` / ``events_ddf`` against ``runs_df`` / ``events_df`` over ``--runs`` runs (copies of the
   runs of step 1; 10,000 for the issue's figure, fewer by default so the script takes a few minutes),
   each frame checked equal, cold loads (caches cleared) timed.
Usage: python benchmarks/bench_batch.py [--episodes 1000] [--sleepers 200] [--runs 2000] [--skip-dask]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import noesis_nb
from noesis_nb.scripted import ScriptedModel

REPLIES = ["Plan: read the brief.", "Reading it now.", "Found the answer.", "Checking it.", "Writing it up.", "Done."]


async def scripted(task, ctx):
    """No tools: six scripted model calls and ten notes of its own (~30 events with the lifecycle)."""
    model = ScriptedModel(REPLIES)
    for i in range(6):
        model.complete(f"{task} step {i}", ctx)
        if i < 5:
            ctx.emit("reason", {"step": i, "text": f"thinking about {task}"})
    for i in range(5):
        ctx.emit("note", {"i": i})
    return {"answer": task}


class _Silent:
    """A context that records nothing: the baseline's adapter does the same calls and writes nothing."""

    inputs: dict = {}

    def emit(self, phase, payload=None, **kw):
        return ""

    def model_call(self, *args, **kwargs):
        return ""


async def baseline(n: int, concurrency: int) -> float:
    slots = asyncio.Semaphore(concurrency)

    async def one(i):
        async with slots:
            await scripted(f"task {i}", _Silent())

    t0 = time.perf_counter()
    await asyncio.gather(*(one(i) for i in range(n)))
    return time.perf_counter() - t0


async def recorded(n: int, concurrency: int, root: Path) -> float:
    """The same episodes, recorded, with ``solve_async`` under ``asyncio.gather``: what the engine costs without batch()."""
    slots = asyncio.Semaphore(concurrency)

    async def one(i):
        async with slots:
            await noesis_nb.solve_async(f"task {i}", using=scripted, runs_dir=root, approver="auto")

    t0 = time.perf_counter()
    await asyncio.gather(*(one(i) for i in range(n)))
    return time.perf_counter() - t0


async def batched(n: int, concurrency: int, root: Path, **opts) -> tuple[float, object]:
    t0 = time.perf_counter()
    handle = noesis_nb.batch(
        [f"task {i}" for i in range(n)], using=opts.pop("using", scripted), root=root, concurrency=concurrency, **opts
    )
    await handle.wait()
    return time.perf_counter() - t0, handle


async def sleeper(task, ctx):
    await asyncio.sleep(0.05)
    return task


def overhead(n: int, root: Path) -> Path:
    base = min(asyncio.run(baseline(n, 32)) for _ in range(3))
    engine = asyncio.run(recorded(n, 32, root / "engine"))
    wall, handle = asyncio.run(batched(n, 32, root / "overhead", approver="auto"))
    events = sum(1 for _ in open(handle.entries[0].run_dir / "events.jsonl"))
    assert handle.counts() == {"ok": n}, handle.counts()
    print(f"{n} episodes (~{events} events each) at concurrency 32")
    print(f"  asyncio.gather, no recording: {base:.3f} s")
    print(f"  batch():                      {wall:.3f} s  ({wall / base:.1f}x; {1000 * (wall - base) / n:.2f} ms per episode)")
    print(f"  solve_async under gather, recorded (no batch): {engine:.3f} s ({1000 * (engine - base) / n:.2f} ms per episode)")
    print(f"  what batch() adds to the recorded episodes: {1000 * (wall - engine) / n:+.2f} ms per episode")
    return root / "overhead"


def dask_vs_local(n: int, root: Path) -> None:
    from distributed import Client, LocalCluster

    local, _ = asyncio.run(batched(n, 8, root / "local", using=sleeper))
    os.environ["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).parent), *sys.path])
    with (
        LocalCluster(n_workers=2, threads_per_worker=4, processes=True, dashboard_address=None) as cluster,
        Client(cluster) as client,
    ):
        client.run(lambda: None)  # workers up before timing
        asyncio.run(batched(8, 8, root / "warm", using="bench_batch:sleeper", executor=client))  # imports done in the workers
        remote, handle = asyncio.run(batched(n, 8, root / "cluster", using="bench_batch:sleeper", executor=client))
    assert handle.counts() == {"ok": n}, handle.counts()
    print(f"{n} episodes sleeping 50 ms at concurrency 8 (floor {n * 0.05 / 8:.2f} s)")
    print(f"  in-process: {local:.3f} s")
    print(f"  LocalCluster, 2 worker processes: {remote:.3f} s ({remote / local:.2f}x in-process)")


def frames(src: Path, runs: int, root: Path) -> None:
    import pandas as pd

    from noesis_nb.frames import clear_cache, events_ddf, events_df, runs_ddf, runs_df

    corpus = root / "corpus"
    corpus.mkdir()
    sources = sorted(p for p in src.iterdir() if p.name.startswith("ep_"))
    for i in range(runs):
        shutil.copytree(sources[i % len(sources)], corpus / f"ep_copy{i:06d}")
    timings = {}
    for name, load in (
        ("runs_df", lambda: runs_df(corpus, progress=False)),
        ("runs_ddf", lambda: runs_ddf(corpus, runs_per_partition=500).compute()),
        ("events_df", lambda: events_df(corpus, progress=False)),
        ("events_ddf", lambda: events_ddf(corpus, runs_per_partition=500).compute()),
    ):
        clear_cache()
        t0 = time.perf_counter()
        timings[name] = (load(), time.perf_counter() - t0)
    for a, b in (("runs_df", "runs_ddf"), ("events_df", "events_ddf")):
        pandas_frame, dask_frame = timings[a][0].reset_index(drop=True), timings[b][0].reset_index(drop=True)
        pd.testing.assert_frame_equal(dask_frame, pandas_frame, check_categorical=False)
        print(f"  {a} {timings[a][1]:.2f} s, {b} {timings[b][1]:.2f} s ({timings[b][1] / timings[a][1]:.2f}x); equal")
    print(f"  ({runs} runs, {len(timings['events_df'][0])} events; Dask's default threaded scheduler)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--episodes", type=int, default=1000)
    parser.add_argument("--sleepers", type=int, default=200)
    parser.add_argument("--runs", type=int, default=2000)
    parser.add_argument("--skip-dask", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        src = overhead(args.episodes, root)
        if not args.skip_dask:
            dask_vs_local(args.sleepers, root)
            print(f"runs_ddf / events_ddf vs runs_df / events_df over {args.runs} runs (cold)")
            frames(src, args.runs, root)


if __name__ == "__main__":
    main()
