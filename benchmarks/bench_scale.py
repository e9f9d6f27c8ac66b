"""Benchmark: the frames as the number of runs grows (10 → 10,000, and 100,000 with --max 100000).

For each size, a corpus of runs of ~30 events in the engine's format (``bench_frames``' writer:
model calls, a tool draft, summary, state, final, manifest) is built once, then measured in
fresh subprocesses, all in the same invocation:

  floor         read every events.jsonl and orjson.loads every line, build nothing
  summary scan  scandir + orjson.loads of every summary.json (what a runs table needs at least)
  <frame> cold  the first call in a process (events_df, runs_df, tools_df, usage_df), with no runs index:
                the first load of these runs ever
  <frame> warm  the next call over the same, unchanged runs (the in-memory cache)
  runs_df new   the first call in a new process once another process has loaded the runs (the frame that
                load kept, ``frames.keptframe``, served after a stat of every file it came from: what a
                new kernel pays)
  list_runs     every run (limit=None): the first call in a process, and a call again (it keeps no cache)

It prints seconds, memory grown by the call, the ratios the README quotes (warm / cold, events_df / floor,
runs_df / summary scan, cold and new), and the growth slope of each (log-log fit from 1,000 runs up: 1.0 is
linear). Usage: python benchmarks/bench_scale.py [--min 10] [--max 10000] [--dir PATH] [--repeat 3]

``--against DIR`` measures this code and the noesis_nb package in DIR (another commit's, unpacked there) in
alternating fresh processes and prints the ratio of each pair, CPU time and wall clock (``--only``, ``--pairs``).

``--kept 1000`` measures runs_df in a new process served the kept frame against the summary scan alone, in
alternating fresh processes, by CPU time (with ``--against DIR``: that package's too, for its ratio).

``--unsealed 1000`` measures instead runs with no manifest.json, whose status runs_df takes from the log's last
``terminate`` (``store.status.run_status``): half paused at a tool draft (``--unsealed-events`` each, 2,000 by
default; no summary, a checkpoint), half crashed (the same length, the last line torn, the writer's note left).
Beside runs_df cold and warm it measures, in the same invocation:

  summary + tail  scandir, open summary.json (absent here) and os.pread the last 4 KB of each events.jsonl
  floor           read every events.jsonl and orjson.loads every line (a run without a summary has its model
                  calls, tool calls and pauses only in its log: runs_df reads these logs whole)
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_frames import _write_run, m_floor, m_summary_loop

from noesis_nb.frames.runindex import INDEX_DIR
from noesis_nb.store.ownership import OWNER_FILE

FRAMES = ("events_df", "runs_df", "tools_df", "usage_df")
SIZES = (10, 100, 1_000, 10_000, 100_000)
EVENTS = 30


def build(root: Path, runs: int) -> float:
    """A corpus of ``runs`` runs under ``root`` (kept between invocations with --dir); seconds spent."""
    start = time.perf_counter()
    root.mkdir(parents=True, exist_ok=True)
    have = sum(1 for _ in os.scandir(root))
    rnd = random.Random(runs)
    for i in range(runs):
        if i < have:
            continue
        _write_run(root, i, EVENTS, rnd)
    return time.perf_counter() - start


def build_unsealed(root: Path, runs: int, events: int) -> float:
    """``runs`` runs without manifest.json under ``root``: even ones paused at a tool draft, odd ones crashed with
    a torn last line (``bench_frames``' runs of ``events`` events, their seal and summary taken away); seconds spent."""
    start = time.perf_counter()
    root.mkdir(parents=True, exist_ok=True)
    have = sum(1 for _ in os.scandir(root))
    rnd = random.Random(runs)
    for i in range(have, runs):
        _write_run(root, i, events, rnd)
        run = next(p for p in root.glob(f"ep_{i:06d}BENCH*"))
        for name in ("manifest.json", "final.json", "summary.json"):
            (run / name).unlink()
        lines = (run / "events.jsonl").read_bytes().splitlines(keepends=True)[:-6]  # reflect … memory: no end
        last = json.loads(lines[-1])
        state = json.loads((run / "state.json").read_bytes())
        if i % 2 == 0:  # paused: run.interrupt, then its checkpoint, as the recorder writes a pause
            for n, (kind, status) in enumerate((("run.interrupt", "interrupted"), ("run.checkpoint", "paused"))):
                event = {**last, "id": f"{last['id'][:-4]}{n:04x}", "phase": "runtime", "agent_id": "system"}
                event.update(payload={"kind": kind, "status": status}, event_type=kind)
                lines.append(json.dumps(event, sort_keys=True, separators=(",", ":")).encode() + b"\n")
            (run / "checkpoints" / "chk_bench").mkdir(parents=True)
            (run / "checkpoints" / "chk_bench" / "checkpoint.json").write_text('{"status": "paused"}')
            state["outcomes"]["status"] = "partial"
        else:  # crashed: killed mid-write, its owner note left behind (nobody holds its lock)
            lines[-1] = lines[-1][: len(lines[-1]) // 2]
            (run / OWNER_FILE).write_text("")
            state["outcomes"]["status"] = "pending"
        (run / "events.jsonl").write_bytes(b"".join(lines))
        (run / "state.json").write_text(json.dumps(state))
    return time.perf_counter() - start


def m_summary_tail(root: str) -> int:
    """The least a runs table of unsealed runs reads: each summary.json (absent: the run is unsealed) and the last
    4 KB of each log, where a ``terminate`` would be."""
    n = 0
    for entry in os.scandir(root):
        try:
            with open(os.path.join(entry.path, "summary.json"), "rb") as fh:
                orjson.loads(fh.read())
        except FileNotFoundError:
            pass
        fd = os.open(os.path.join(entry.path, "events.jsonl"), os.O_RDONLY)
        try:
            os.pread(fd, 4096, max(0, os.fstat(fd).st_size - 4096))
        finally:
            os.close(fd)
        n += 1
    return n


def m_log_floor(root: str) -> int:
    """``bench_frames.m_floor`` that skips a line that does not parse (a crashed run's torn last line)."""
    n = 0
    loads = orjson.loads
    for entry in os.scandir(root):
        with open(os.path.join(entry.path, "events.jsonl"), "rb") as fh:
            data = fh.read()
        for line in data.splitlines():
            try:
                loads(line)
            except orjson.JSONDecodeError:
                continue
            n += 1
    return n


def unsealed(base: Path, runs: int, events: int, repeat: int, processes: int) -> None:
    """runs_df over runs with no manifest, with the baselines above measured in the same invocation."""
    root = base / f"unsealed{runs}x{events}"
    built = build_unsealed(root, runs, events)
    for path in root.glob("*/*"):  # the page cache holds every file: cold means a fresh process, not a cold disk
        if path.is_file():
            path.read_bytes()
    r = {m: measure(m, root, repeat, processes) for m in ("summary_tail", "log_floor", "runs_df:cold", "runs_df:warm")}
    size = sum(p.stat().st_size for p in root.glob("*/events.jsonl")) / 1e6
    print(f"\n{runs:,} runs without manifest.json x {events} events ({size:.0f} MB of logs; built in {built:.1f} s)")
    print(f"  {'summary + 4 KB tail (os.pread)':<36} {r['summary_tail']['seconds']:9.4f} s")
    print(f"  {'floor (read + orjson every line)':<36} {r['log_floor']['seconds']:9.4f} s")
    cold, warm = r["runs_df:cold"], r["runs_df:warm"]
    print(
        f"  runs_df    cold {cold['seconds']:9.4f} s (cpu {cold['cpu']:.4f})  warm {warm['seconds']:8.4f} s  "
        f"warm/cold 1/{cold['seconds'] / warm['seconds']:5.1f}  memory +{cold['grew_mb']:6.0f} MB"
    )
    for label, den in (("summary + tail", r["summary_tail"]), ("floor", r["log_floor"])):
        print(f"  runs_df / {label}: cold {cold['seconds'] / den['seconds']:.1f}x, warm {warm['seconds'] / den['seconds']:.2f}x")


def _child(method: str, root: str, repeat: int) -> None:
    """One measurement in this fresh process: best of ``repeat``; peak RSS of the process."""
    import resource

    if method == "floor":
        fn = lambda: m_floor(root)  # noqa: E731
    elif method == "summary":
        fn = lambda: m_summary_loop(root)  # noqa: E731
    elif method == "summary_tail":
        fn = lambda: m_summary_tail(root)  # noqa: E731
    elif method == "log_floor":
        fn = lambda: m_log_floor(root)  # noqa: E731
    elif method.startswith("list_runs:"):
        from noesis_nb import list_runs

        temperature = method.split(":")[1]
        fn = lambda: len(list_runs(None, runs_dir=root))  # noqa: E731
        if temperature == "warm":
            fn()
        else:
            repeat = 1
    else:
        import noesis_nb.frames as frames

        frame, temperature = method.split(":")
        load = getattr(frames, frame)
        fn = lambda: len(load(root, progress=False))  # noqa: E731
        if temperature == "warm":
            fn()
        else:
            repeat = 1  # only the first call in a process is cold (or new)
            import pandas  # noqa: F401 - imports are not what is measured
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    best, cpu, rows = float("inf"), float("inf"), 0
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        rows = fn()
        best = min(best, time.perf_counter() - start)
        cpu = min(cpu, time.process_time() - start_cpu)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    print(json.dumps({"seconds": best, "cpu": cpu, "rows": rows, "rss_mb": peak, "grew_mb": peak - before}))


def measure(method: str, root: Path, repeat: int, processes: int, code: Path | None = None) -> dict:
    """Best over ``processes`` fresh processes (shared machines are noisy), all with one cache folder of their own
    (prices looked up once); a cold one starts with no runs index, a new one with the one the others left.
    ``code``: a folder holding another ``noesis_nb`` package, imported instead of this one (``--against``)."""
    best: dict | None = None
    cache = Path(tempfile.gettempdir()) / f"noesis_nb_scale_cache_{os.getpid()}"
    env = {**os.environ, "NOESIS_NB_CACHE_DIR": str(cache)}
    if code is not None:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(code), os.environ.get("PYTHONPATH", "")) if p)
    for _ in range(processes):
        if method.endswith(":cold"):
            shutil.rmtree(cache / INDEX_DIR, ignore_errors=True)
        elif method.endswith(":new"):
            subprocess.run([sys.executable, __file__, "--child", "runs_df:cold", str(root), "1"], env=env, capture_output=True)
        out = subprocess.run(
            [sys.executable, __file__, "--child", method, str(root), str(repeat)],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        if out.returncode != 0:
            raise SystemExit(f"{method} on {root} failed:\n{out.stderr}")
        got = json.loads(out.stdout.strip().splitlines()[-1])
        if best is None or got["seconds"] < best["seconds"]:
            best = got
    assert best is not None
    return best


def slope(points: list[tuple[int, float]]) -> float:
    """Least-squares slope of log(seconds) against log(runs): 1.0 is linear growth."""
    xs = [math.log(n) for n, _ in points]
    ys = [math.log(max(s, 1e-9)) for _, s in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def compare(sizes: list[int], base: Path, against: Path, methods: list[str], repeat: int, pairs: int) -> None:
    """Each method with this code and with the code in ``against``, in fresh processes one after the other
    (``pairs`` times, the order swapped each time): a change is told from the machine's drift by the ratio of the
    two within each pair. Process CPU time is the steadier figure on a machine shared with other work."""
    print(f"this code against {against} (ratio < 1: this code is faster); {pairs} pairs of fresh processes")
    for n in sizes:
        root = base / f"runs{n}"
        build(root, n)
        print(f"\n{n:,} runs x {EVENTS} events")
        for method in methods:
            mine: list[dict] = []
            theirs: list[dict] = []
            for i in range(pairs):
                order = [(mine, None), (theirs, against)]
                for into, code in order if i % 2 == 0 else order[::-1]:
                    into.append(measure(method, root, repeat, 1, code))
            cpu = sorted(m["cpu"] / t["cpu"] for m, t in zip(mine, theirs))
            wall = sorted(m["seconds"] / t["seconds"] for m, t in zip(mine, theirs))
            best = min(m["seconds"] for m in mine), min(t["seconds"] for t in theirs)
            best_cpu = min(m["cpu"] for m in mine), min(t["cpu"] for t in theirs)
            print(
                f"  {method:<16} this {best[0]:8.4f} s (cpu {best_cpu[0]:7.4f})  against {best[1]:8.4f} s "
                f"(cpu {best_cpu[1]:7.4f})  this/against: cpu median {cpu[len(cpu) // 2]:.2f} "
                f"[{cpu[0]:.2f}-{cpu[-1]:.2f}], wall median {wall[len(wall) // 2]:.2f} [{wall[0]:.2f}-{wall[-1]:.2f}]"
            )


def kept(base: Path, runs: int, pairs: int, against: Path | None) -> None:
    """runs_df in a new process served the kept frame against a summary-only scan, over ``runs`` runs not named by
    minted ids (``ep_000000BENCH…``: each id and path is shown through the secret rule), by process CPU time in
    fresh processes, the two alternated ``pairs`` times (the order swapped each time); with ``against``, the same
    for the package in that folder."""
    root = base / f"runs{runs}"
    build(root, runs)
    print(f"{runs:,} runs x {EVENTS} events: runs_df in a new process (kept frame) / summary scan, by CPU time")
    for label, code in (("this code", None), (f"against {against}", against)):
        if label != "this code" and code is None:
            continue
        ratios, news, scans = [], [], []
        for i in range(pairs):
            order = ["runs_df:new", "summary"] if i % 2 == 0 else ["summary", "runs_df:new"]
            got = {m: measure(m, root, 1, 1, code) for m in order}
            news.append(got["runs_df:new"]["cpu"])
            scans.append(got["summary"]["cpu"])
            ratios.append(news[-1] / scans[-1])
        ratios.sort()
        print(
            f"  {label}: runs_df new cpu {min(news):.4f} s, summary scan cpu {min(scans):.4f} s; "
            f"new / scan median {ratios[len(ratios) // 2]:.2f}x [{ratios[0]:.2f}-{ratios[-1]:.2f}]"
        )


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        _child(sys.argv[2], sys.argv[3], int(sys.argv[4]))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max", type=int, default=10_000, help="largest corpus (default 10000; 100000 builds ~1.6 GB)")
    parser.add_argument("--min", type=int, default=10, help="smallest corpus (--min 100000 --max 100000: that size alone)")
    parser.add_argument("--dir", type=Path, default=None, help="where corpora are built and kept (default: a temp dir)")
    parser.add_argument("--repeat", type=int, default=3, help="warm repetitions per process; the best is reported")
    parser.add_argument("--processes", type=int, default=2, help="fresh processes per figure; the best is reported")
    parser.add_argument(
        "--against",
        type=Path,
        default=None,
        help="a folder holding another noesis_nb package (git archive <commit> noesis_nb | tar -x -C DIR): "
        "each method of --only measured with both, in alternating processes, and their ratio printed",
    )
    parser.add_argument("--only", default=None, help="with --against: methods, e.g. list_runs:cold,tools_df:warm")
    parser.add_argument("--pairs", type=int, default=5, help="with --against: alternating pairs of processes per method")
    parser.add_argument("--unsealed", type=int, default=0, help="measure runs_df over this many runs without manifest.json")
    parser.add_argument("--unsealed-events", type=int, default=2_000, help="with --unsealed: events a run (default 2000)")
    parser.add_argument("--kept", type=int, default=0, help="measure runs_df new (kept frame) / summary scan at this size")
    args = parser.parse_args()
    base = args.dir or Path(tempfile.mkdtemp(prefix="noesis_nb_scale_"))
    if args.kept:
        kept(base, args.kept, args.pairs, args.against)
        shutil.rmtree(Path(tempfile.gettempdir()) / f"noesis_nb_scale_cache_{os.getpid()}", ignore_errors=True)
        if args.dir is None:
            shutil.rmtree(base, ignore_errors=True)
        return
    if args.unsealed:
        print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs; corpus in {base}; best of {args.processes} processes")
        unsealed(base, args.unsealed, args.unsealed_events, args.repeat, args.processes)
        shutil.rmtree(Path(tempfile.gettempdir()) / f"noesis_nb_scale_cache_{os.getpid()}", ignore_errors=True)
        if args.dir is None:
            shutil.rmtree(base, ignore_errors=True)
        return
    sizes = [n for n in SIZES if args.min <= n <= args.max]
    if args.against is not None:
        methods = args.only.split(",") if args.only else [f"{f}:{t}" for f in (*FRAMES, "list_runs") for t in ("cold", "warm")]
        compare(sizes, base, args.against, methods, args.repeat, args.pairs)
        shutil.rmtree(Path(tempfile.gettempdir()) / f"noesis_nb_scale_cache_{os.getpid()}", ignore_errors=True)
        if args.dir is None:
            shutil.rmtree(base, ignore_errors=True)
        return
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs; corpora in {base}; best of {args.processes} processes")
    results: dict[int, dict[str, dict]] = {}
    for n in sizes:
        root = base / f"runs{n}"
        built = build(root, n)
        for path in root.glob("*/*"):  # the page cache holds every file: cold means a fresh process, not a cold disk
            if path.is_file():
                path.read_bytes()
        r = {"floor": measure("floor", root, args.repeat, args.processes)}
        r["summary"] = measure("summary", root, args.repeat, args.processes)
        for frame in FRAMES:
            for temperature in ("cold", "warm"):
                r[f"{frame}:{temperature}"] = measure(f"{frame}:{temperature}", root, args.repeat, args.processes)
        r["runs_df:new"] = measure("runs_df:new", root, args.repeat, args.processes)
        for temperature in ("cold", "warm"):
            r[f"list_runs:{temperature}"] = measure(f"list_runs:{temperature}", root, args.repeat, args.processes)
        results[n] = r
        print(f"\n{n:,} runs x {EVENTS} events (corpus built in {built:.1f} s)")
        print(f"  {'floor (read + orjson every line)':<36} {r['floor']['seconds']:9.4f} s")
        print(f"  {'summary scan (orjson summary.json)':<36} {r['summary']['seconds']:9.4f} s")
        for frame in FRAMES:
            cold, warm = r[f"{frame}:cold"], r[f"{frame}:warm"]
            print(
                f"  {frame:<10} cold {cold['seconds']:9.4f} s  warm {warm['seconds']:8.4f} s  "
                f"warm/cold 1/{cold['seconds'] / warm['seconds']:5.1f}  memory +{cold['grew_mb']:6.0f} MB"
            )
        ev, runs, new = r["events_df:cold"], r["runs_df:cold"], r["runs_df:new"]
        print(f"  runs_df    new  {new['seconds']:9.4f} s  (a new process; the frame and runs index another one left)")
        listed = r["list_runs:cold"], r["list_runs:warm"]
        print(f"  list_runs  cold {listed[0]['seconds']:9.4f} s  again {listed[1]['seconds']:8.4f} s  (every run, limit=None)")
        print(f"  events_df / floor: {ev['seconds'] / r['floor']['seconds']:.2f}x")
        print(
            f"  runs_df / summary scan: cold {runs['seconds'] / r['summary']['seconds']:.1f}x, "
            f"new {new['seconds'] / r['summary']['seconds']:.1f}x"
        )
        print(f"  list_runs / summary scan: cold {listed[0]['seconds'] / r['summary']['seconds']:.1f}x")
    big = [n for n in sizes if n >= 1_000]
    if len(big) >= 2:
        print(f"\ngrowth slope from {big[0]:,} to {big[-1]:,} runs (log-log; 1.0 = linear)")
        for frame in FRAMES:
            cold = slope([(n, results[n][f"{frame}:cold"]["seconds"]) for n in big])
            warm = slope([(n, results[n][f"{frame}:warm"]["seconds"]) for n in big])
            print(f"  {frame:<10} cold {cold:.2f}  warm {warm:.2f}")
    shutil.rmtree(Path(tempfile.gettempdir()) / f"noesis_nb_scale_cache_{os.getpid()}", ignore_errors=True)
    if args.dir is None:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
