"""What the batch's progress grid costs: 1,000 episodes of a no-tool scripted adapter with the grid attached vs not.

    python benchmarks/bench_batch_view.py                     # a real kernel (jupyter_client), the honest numbers
    python benchmarks/bench_batch_view.py --mode inprocess    # no kernel: comm bytes counted at ipywidgets' comm

Reports the batch's wall time with / without the grid (its embedded inbox included) as the ratio of
medians and of best runs, and the ratio of the kernel's CPU time (steadier on a shared machine) (target
≤ 1.2×; runs alternate, after one warm-up round) and the bytes of
widget comm traffic (comm_open, comm_msg, comm_close on iopub; header + parent header + metadata +
content, counted as ``bench_view.py`` counts them) for the whole batch (target ≤ 2 MB).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _kernel import count_comm_bytes, kernel_cells  # noqa: E402  (beside this script)

AGENT = """
from noesis_nb.scripted import ScriptedModel

async def bench_agent(task, ctx):
    # no tool: ten model calls and ten notes, ~30 events with the episode's own
    model = ScriptedModel(["Thinking about " + task, "Next step.", "Done."], latency_ms=0)
    for i in range(10):
        model.complete(f"{{task}} step {{i}}", ctx)
        ctx.emit("reason", {{"text": f"step {{i}} of {{task}}"}})
    return {{"answer": task.upper()}}

TASKS = [f"task {{i}}" for i in range({episodes})]
"""


def run_kernel(episodes: int, repeat: int, concurrency: int) -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp(prefix="nnb-bench-batch-"))
    with kernel_cells(tmp) as cell:
        cell("import gc, shutil, noesis_nb, noesis_nb.widgets, time\n" + AGENT.format(episodes=episodes))
        times: dict[bool, list[float]] = {False: [], True: []}
        cpu: dict[bool, list[float]] = {False: [], True: []}
        traffic: list[tuple[int, int, int]] = []
        for i in range(repeat + 1):  # the first round warms up imports and caches; not counted
            for grid in (False, True):
                runs = tmp / f"runs-{i}-{int(grid)}"
                out, comm_bytes, comm_msgs = cell(
                    "gc.collect()\n"
                    "t0, c0 = time.perf_counter(), time.process_time()\n"
                    f"b = noesis_nb.batch(TASKS, using=bench_agent, concurrency={concurrency}, root={str(runs)!r})\n"
                    f"v = noesis_nb.widgets.batch_view(b) if {grid} else None\n"
                    "if v is not None: v.display()\n"
                    "await b.wait()\n"
                    "if v is not None: v.flush()\n"
                    "print(time.perf_counter() - t0, time.process_time() - c0, v.redraws if v else 0, b.counts().get('ok', 0))\n"
                    "if v is not None: v.close()\n"
                    f"del b, v\nshutil.rmtree({str(runs)!r}, ignore_errors=True)"
                )
                seconds, cpu_seconds, redraws, ok = out.split()
                assert int(ok) == episodes, out
                if i == 0:
                    continue
                times[grid].append(float(seconds))
                cpu[grid].append(float(cpu_seconds))
                if grid:
                    traffic.append((comm_bytes, comm_msgs, int(redraws)))
        return _report("kernel", episodes, times, traffic, cpu)


def run_inprocess(episodes: int, repeat: int, concurrency: int) -> dict[str, Any]:
    import shutil

    import noesis_nb
    from noesis_nb.widgets import batch_view

    sizes: list[int] = []
    count_comm_bytes(sizes)
    namespace: dict[str, Any] = {}
    exec(AGENT.format(episodes=episodes), namespace)
    tmp = Path(tempfile.mkdtemp(prefix="nnb-bench-batch-"))

    async def once(grid: bool, runs: Path) -> tuple[float, int, int, int]:
        import gc

        gc.collect()
        sizes.clear()
        t0, c0 = time.perf_counter(), time.process_time()
        batch = noesis_nb.batch(namespace["TASKS"], using=namespace["bench_agent"], concurrency=concurrency, root=runs)
        view = batch_view(batch) if grid else None
        await batch.wait()
        if view is not None:
            view.flush()
        seconds, cpu_seconds = time.perf_counter() - t0, time.process_time() - c0
        assert batch.counts().get("ok") == episodes, batch.counts()
        result = seconds, cpu_seconds, sum(sizes), len(sizes), view.redraws if view else 0
        if view is not None:
            view.close()
        return result

    times: dict[bool, list[float]] = {False: [], True: []}
    cpu: dict[bool, list[float]] = {False: [], True: []}
    traffic = []
    for i in range(repeat + 1):  # round 0 warms up
        for grid in (False, True):
            runs = tmp / f"runs-{i}-{int(grid)}"
            seconds, cpu_seconds, nbytes, nmsgs, redraws = asyncio.run(once(grid, runs))
            shutil.rmtree(runs, ignore_errors=True)
            if i == 0:
                continue
            times[grid].append(seconds)
            cpu[grid].append(cpu_seconds)
            if grid:
                traffic.append((nbytes, nmsgs, redraws))
    return _report("inprocess", episodes, times, traffic, cpu)


def _report(
    mode: str, episodes: int, times: dict[bool, list[float]], traffic: list[tuple[int, int, int]], cpu: dict[bool, list[float]]
) -> dict[str, Any]:
    without, with_grid = statistics.median(times[False]), statistics.median(times[True])
    nbytes, nmsgs, redraws = (statistics.median(t[i] for t in traffic) for i in range(3))
    return {
        "mode": mode,
        "episodes": episodes,
        "seconds_without_grid": round(without, 3),
        "seconds_with_grid": round(with_grid, 3),
        "ratio": round(with_grid / without, 3),
        "ratio_best_of": round(min(times[True]) / min(times[False]), 3),
        "times_without_grid": [round(t, 3) for t in times[False]],
        "times_with_grid": [round(t, 3) for t in times[True]],
        "cpu_ratio": round(statistics.median(cpu[True]) / statistics.median(cpu[False]), 3),
        "cpu_without_grid": [round(t, 3) for t in cpu[False]],
        "cpu_with_grid": [round(t, 3) for t in cpu[True]],
        "comm_bytes": int(nbytes),
        "comm_messages": int(nmsgs),
        "redraws": int(redraws),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--episodes", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--mode", choices=("kernel", "inprocess"), default="kernel")
    args = parser.parse_args()
    run = run_kernel if args.mode == "kernel" else run_inprocess
    result = run(args.episodes, args.repeat, args.concurrency)
    print(json.dumps(result, indent=1))
    print(
        f"grid overhead {result['ratio']:.2f}x median, {result['ratio_best_of']:.2f}x best-of, {result['cpu_ratio']:.2f}x "
        "kernel CPU time (target <= 1.2x); comm traffic "
        f"{result['comm_bytes'] / 1e6:.2f} MB for {result['episodes']:,} episodes (target <= 2 MB), {result['redraws']} redraws"
    )


if __name__ == "__main__":
    main()
