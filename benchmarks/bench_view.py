"""What the live view costs: a 10,000-event episode with the view attached vs without it.

    python benchmarks/bench_view.py                     # a real kernel (jupyter_client), the honest numbers
    python benchmarks/bench_view.py --mode inprocess    # no kernel: comm bytes counted at ipywidgets' comm
    python benchmarks/bench_view.py --pace-ms 1         # an episode that emits one event per millisecond

Reports the episode time with / without the view as the ratio of medians and of best runs
(target ≤ 1.2×; runs alternate, after one warm-up round) and the bytes of widget
comm traffic (comm_open, comm_msg, comm_close on iopub; header + parent header + metadata + content)
per 10,000 events (target ≤ 1 MB).
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
import asyncio, time
async def bench_agent(task, ctx):
    pace = {pace}
    for i in range({pairs}):
        ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=1200 + i % 50, output_tokens=80)
        ctx.emit("reason", {{"text": f"step {{i}}: " + "thinking about the next tool call " * 2}})
        await asyncio.sleep(pace)
    return "done"
"""


# -- in a real kernel ----------------------------------------------------------------------------
def run_kernel(events: int, repeat: int, pace: float) -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp(prefix="nnb-bench-"))
    with kernel_cells(tmp) as cell:
        cell("import gc, noesis_nb, noesis_nb.widgets, time\n" + AGENT.format(pairs=events // 2, pace=pace))
        times: dict[bool, list[float]] = {False: [], True: []}
        traffic: list[tuple[int, int, int, int]] = []
        for i in range(repeat + 1):  # the first round warms up imports and caches; not counted
            for view in (False, True):
                out, comm_bytes, comm_msgs = cell(
                    "gc.collect()\n"
                    f"h = noesis_nb.start('bench', using=bench_agent, runs_dir={str(tmp / 'runs')!r})\n"
                    f"v = noesis_nb.widgets.display_handle(h) if {view} else None\n"
                    "t0 = time.perf_counter()\nawait h.wait()\n"
                    "view = noesis_nb.widgets.view_for(h) if v is not None else None\n"
                    "if view is not None: view.flush()\n"
                    "print(time.perf_counter() - t0, len(h.events), view.redraws if view else 0)\n"
                    "if view is not None: view.close()\n"
                    "del h, v, view"
                )
                seconds, n_events, redraws = out.split()
                if i == 0:
                    continue
                times[view].append(float(seconds))
                if view:
                    traffic.append((comm_bytes, comm_msgs, int(n_events), int(redraws)))
        return _report("kernel", times, traffic)


# -- in process ----------------------------------------------------------------------------------
def run_inprocess(events: int, repeat: int, pace: float) -> dict[str, Any]:
    import noesis_nb
    from noesis_nb.widgets import EpisodeView

    sizes: list[int] = []
    count_comm_bytes(sizes)
    namespace: dict[str, Any] = {}
    exec(AGENT.format(pairs=events // 2, pace=pace), namespace)
    tmp = Path(tempfile.mkdtemp(prefix="nnb-bench-"))

    async def once(view: bool) -> tuple[float, int, int, int, int]:
        import gc

        gc.collect()
        sizes.clear()
        handle = noesis_nb.start("bench", using=namespace["bench_agent"], runs_dir=tmp / "runs")
        widget = EpisodeView(handle) if view else None
        t0 = time.perf_counter()
        await handle.wait()
        if widget is not None:
            widget.flush()
        result = time.perf_counter() - t0, sum(sizes), len(sizes), len(handle.events), widget.redraws if widget else 0
        if widget is not None:
            widget.close()
        return result

    times: dict[bool, list[float]] = {False: [], True: []}
    traffic = []
    for i in range(repeat + 1):  # round 0 warms up
        for view in (False, True):
            seconds, nbytes, nmsgs, n_events, redraws = asyncio.run(once(view))
            if i == 0:
                continue
            times[view].append(seconds)
            if view:
                traffic.append((nbytes, nmsgs, n_events, redraws))
    return _report("inprocess", times, traffic)


def _report(mode: str, times: dict[bool, list[float]], traffic: list[tuple[int, int, int, int]]) -> dict[str, Any]:
    without, with_view = statistics.median(times[False]), statistics.median(times[True])
    best = min(times[True]) / min(times[False])
    nbytes, nmsgs, n_events, redraws = (statistics.median(t[i] for t in traffic) for i in range(4))
    return {
        "mode": mode,
        "events": int(n_events),
        "seconds_without_view": round(without, 3),
        "seconds_with_view": round(with_view, 3),
        "ratio": round(with_view / without, 3),
        "ratio_best_of": round(best, 3),
        "times_without_view": [round(t, 3) for t in times[False]],
        "times_with_view": [round(t, 3) for t in times[True]],
        "comm_bytes": int(nbytes),
        "comm_messages": int(nmsgs),
        "comm_bytes_per_10k_events": int(nbytes * 10_000 / max(1, n_events)),
        "redraws": int(redraws),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--mode", choices=("kernel", "inprocess"), default="kernel")
    parser.add_argument("--pace-ms", type=float, default=0.0, help="sleep between event pairs (0: as fast as the engine goes)")
    args = parser.parse_args()
    run = run_kernel if args.mode == "kernel" else run_inprocess
    result = run(args.events, args.repeat, args.pace_ms / 1000.0)
    print(json.dumps(result, indent=1))
    print(
        f"view overhead {result['ratio']:.2f}x median, {result['ratio_best_of']:.2f}x best-of (target <= 1.2x); comm traffic "
        f"{result['comm_bytes_per_10k_events'] / 1e6:.2f} MB per 10,000 events (target <= 1 MB), {result['redraws']} redraws"
    )


if __name__ == "__main__":
    main()
