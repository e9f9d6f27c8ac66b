"""Benchmark: loading Noēsis run directories into DataFrames.

Generates a corpus of run directories in the format noesis_nb's engine writes (sorted compact
event lines, summary/state/final/manifest, tool_invocations for drafts), then measures in the
same invocation, each in a fresh subprocess (so peak memory is per method):

events (big corpus, and the corpus of small runs)
  (a) pandas.read_json(lines=True) per file + concat
  (b) DuckDB read_json_auto over the same files, to pandas
  (c) floor: read every file, orjson.loads every line, build nothing
  (d) straightforward orjson → column lists → DataFrame
  events_df (cold), events_df (second load of unchanged runs)
runs
  baseline: scandir + orjson over summary.json
  runs_df (cold), runs_df (second load)

Usage: python benchmarks/bench_frames.py [--runs 1000] [--events 1000] [--small-runs 10000] [--dir PATH] [--keep]
       [--no-pyarrow] [--only floor,events_df]

``--no-pyarrow`` measures a default install where pyarrow is installed: each child process makes
``import pyarrow`` fail before pandas is imported, so pandas and noesis_nb take their no-pyarrow paths.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from importlib.abc import MetaPathFinder
from pathlib import Path

import orjson

REPO = Path(__file__).resolve().parents[1]
_OPTS = orjson.OPT_SORT_KEYS | orjson.OPT_APPEND_NEWLINE
_MODELS = [("openai", "gpt-4o"), ("anthropic", "claude-sonnet-4-20250514"), ("openai", "gpt-4o-mini")]
_TOOLS = [
    "tool.requested",
    "tool.validated",
    "tool.authn.passed",
    "tool.authz.passed",
    "action.candidate_emitted",
    "tool.preflight.computed",
    "tool.draft_created",
    "tool.execution.started",
    "tool.execution.succeeded",
]


# -- corpus --------------------------------------------------------------------------------------
def _iso(t: datetime) -> str:
    return t.isoformat(timespec="microseconds")


def _write_run(root: Path, index: int, n_events: int, rnd: random.Random) -> None:
    from noesis_nb.runtime.summary import usage_summary
    from noesis_nb.store.seal import SEAL_KEY, make_seal

    ep = f"ep_{index:06d}BENCH{rnd.getrandbits(40):010X}"
    run = root / ep
    (run / "tool_invocations" / "prepared").mkdir(parents=True)
    (run / "tool_invocations" / "executions").mkdir()
    t = datetime(2025, 1, 1, tzinfo=UTC) + timedelta(seconds=index * 37)
    started = _iso(t)
    base = f"{rnd.getrandbits(96):024x}"
    lines: list[bytes] = []
    calls: list[dict] = []
    prev = None
    drafts = 0

    def emit(phase: str, payload: dict, agent: str = "system", **extra) -> None:
        nonlocal t, prev
        t += timedelta(milliseconds=rnd.randint(1, 400))
        event = {
            "id": f"{base}{len(lines) + 1:012x}",
            "episode_id": ep,
            "agent_id": agent,
            "phase": phase,
            "payload": payload,
            "evidence_ids": [],
            "timestamp": _iso(t),
            **extra,
        }
        if prev:
            event["caused_by"] = prev
        prev = event["id"]
        lines.append(orjson.dumps(event, option=_OPTS))

    emit("start", {"task": f"benchmark task {index}", "seed": 0, "using": "bench_agent"})
    emit("observe", {"task": f"benchmark task {index}", "tags": {"suite": "bench"}, "timestamp": started})
    emit("interpret", {"signals": ["signal:ready"]})
    emit("plan", {"steps": ["act:answer", "verify:check"], "source": "planner"})
    tail = 6
    while len(lines) < n_events - tail:
        provider, model = rnd.choice(_MODELS)
        tokens = {"input_tokens": rnd.randint(500, 8000), "output_tokens": rnd.randint(50, 900)}
        tokens["cached_input_tokens"] = rnd.randint(0, tokens["input_tokens"] // 2)
        tokens["cache_write_input_tokens"] = rnd.randint(0, 200) if provider == "anthropic" else None
        tokens["reasoning_tokens"] = rnd.randint(0, tokens["output_tokens"]) if model == "gpt-4o-mini" else None
        emit(
            "model",
            {
                "event_name": "model.call",
                "model": model,
                "provider": provider,
                **tokens,
                "latency_ms": round(rnd.uniform(200, 3000), 1),
                "cost_usd": None,
            },
            agent=f"model:{provider}",
        )
        calls.append({"provider": provider, "model": model, **tokens})
        emit("reason", {"text": "thinking about the next step " * rnd.randint(8, 30)}, agent="adapter:bench_agent")
        if len(lines) + len(_TOOLS) < n_events - tail and rnd.random() < 0.5:
            drafts += 1
            request = f"req_{index:06d}{drafts:06d}"
            draft = f"draft:{ep}:{request}"
            for name in _TOOLS:
                payload = {"event_name": name, "request_id": request}
                if name == "tool.requested":
                    payload.update(protocol="python", tool="read_file")
                elif name not in (
                    "tool.validated",
                    "tool.authn.passed",
                    "tool.authz.passed",
                    "action.candidate_emitted",
                    "tool.preflight.computed",
                ):
                    payload["draft_id"] = draft
                emit("tool", payload, agent="tool_contract")
            (run / "tool_invocations" / "prepared" / f"{draft}.json").write_bytes(
                orjson.dumps(
                    {
                        "draft_id": draft,
                        "request_id": request,
                        "protocol": "python",
                        "status": "approved",
                        "tool": {"namespace": "repo", "name": "read_file", "version": None},
                        "governance": {"effect_kind": "read", "risk_tier": "low", "requires_approval": False},
                    },
                    option=orjson.OPT_INDENT_2,
                )
            )
            (run / "tool_invocations" / "executions" / f"{draft}.json").write_bytes(
                orjson.dumps(
                    {"execution_id": f"exec:{draft}", "status": "succeeded", "reason_code": None}, option=orjson.OPT_INDENT_2
                )
            )
        emit(
            "act",
            {"input_excerpt": "answer", "outcome": "ok", "tool": "adapter:bench_agent"},
            agent="adapter:bench_agent",
            metrics={"started_at": _iso(t), "completed_at": _iso(t), "duration_ms": round(rnd.uniform(0, 50), 3)},
        )
    emit("reflect", {"success": True})
    emit("learn", {"learn_path": "learn.jsonl", "proposal_count": 0})
    emit("terminate", {"status": "ok", "message": "done"})
    emit("runtime", {"kind": "run.state_projection", "status": "ok"}, event_type="run.state_projection")
    emit("insight", {"summary_path": "summary.json"}, faculty="insight")
    emit("memory", {"status": "skipped", "reason": "port_missing"}, agent="memory")
    (run / "events.jsonl").write_bytes(b"".join(lines))
    (run / "learn.jsonl").write_bytes(b"")
    duration = (t - datetime.fromisoformat(started)).total_seconds()
    summary = {
        "schema_version": "1.3.0",
        "episode_id": ep,
        "task": f"benchmark task {index}",
        "started_at": started,
        "duration_sec": duration,
        "status": "ok",
        "outcome": "success_unverified",
        "flags": {"using": "bench_agent", "governance_mode": "off"},
        "metrics": {"success": True, "veto_count": 0, "act_count": sum(1 for line in lines if b'"phase":"act"' in line)},
        "tags": {"suite": "bench"},
        # as the release seals a run: its count of tool requests (each draft here comes of one), so runs_df need not
        # read the log for it
        "x-noesis_nb": {"reasons": ["adapter_ok"], "usage": usage_summary(calls), "tool_requests": drafts},
    }
    docs = {
        "summary.json": summary,
        "state.json": {
            "version": "1.0",
            "episode": {"id": ep, "started_at": started, "using": "adapter:bench_agent", "tags": {}},
            "goal": {"task": f"benchmark task {index}"},
            "outcomes": {"status": "ok", "actions": []},
        },
        "final.json": {"episode_id": ep, "finalized_at": _iso(t), "outcome": "success", "schema_version": "final/2.0.0"},
    }
    for name, doc in docs.items():
        if name == "final.json":  # sealed as noesis_nb seals its runs: read as written, as its own are
            doc = {**doc, "x-noesis_nb": {SEAL_KEY: make_seal(run, ep)}}
        (run / name).write_bytes(orjson.dumps(doc, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS))
    files = []
    for path in sorted(p for p in run.rglob("*") if p.is_file()):
        data = path.read_bytes()
        files.append(
            {
                "name": path.relative_to(run).as_posix(),
                "sha256": "sha256:" + hashlib.sha256(data).hexdigest(),
                "size_bytes": len(data),
                "kind": "attachment",
            }
        )
    (run / "manifest.json").write_bytes(orjson.dumps({"schema_version": "manifest/1.0", "episode_id": ep, "files": files}))


def make_corpus(root: Path, runs: int, events: int, seed: int) -> None:
    rnd = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    for i in range(runs):
        _write_run(root, i, events, rnd)


# -- measured methods (each runs inside a fresh subprocess) ------------------------------------------
def _event_files(root: str) -> list[str]:
    return sorted(os.path.join(e.path, "events.jsonl") for e in os.scandir(root) if e.is_dir())


def m_pandas(root: str) -> int:
    import pandas as pd

    frames = [pd.read_json(path, lines=True) for path in _event_files(root)]
    return len(pd.concat(frames, ignore_index=True))


def m_duckdb(root: str) -> int:
    import duckdb

    con = duckdb.connect()
    files = _event_files(root)
    df = con.execute("SELECT * FROM read_json_auto(?, format='newline_delimited', union_by_name=true)", [files]).df()
    return len(df)


def m_floor(root: str) -> int:
    n = 0
    loads = orjson.loads
    for path in _event_files(root):
        with open(path, "rb") as fh:
            data = fh.read()
        for line in data.splitlines():
            loads(line)
            n += 1
    return n


def m_floor_kept(root: str) -> int:
    """The floor, keeping what it parsed (a list of the event dicts): the least memory any loader that holds the
    parsed events needs, and the baseline for the frame's memory (the floor above keeps nothing, so its growth is ~0)."""
    import gc

    loads = orjson.loads
    kept: list = []
    gc.disable()  # as the loaders hold off collection while they parse: the floor at its fastest
    try:
        for path in _event_files(root):
            with open(path, "rb") as fh:
                data = fh.read()
            kept.extend(map(loads, data.splitlines()))
    finally:
        gc.enable()
    return len(kept)  # (the peak counts it whole: freed only on return, as a loaded frame would be)


def m_straightforward(root: str) -> int:
    import pandas as pd

    keys = ("id", "timestamp", "phase", "agent_id", "caused_by", "faculty", "event_type", "payload")
    cols: dict[str, list] = {k: [] for k in keys}
    eps, durations = [], []
    for path in _event_files(root):
        with open(path, "rb") as fh:
            data = fh.read()
        ep = os.path.basename(os.path.dirname(path))
        for line in data.splitlines():
            event = orjson.loads(line)
            for k in keys:
                cols[k].append(event.get(k))
            durations.append((event.get("metrics") or {}).get("duration_ms"))
            eps.append(ep)
    df = pd.DataFrame({"episode_id": eps, **cols, "duration_ms": durations})
    df["timestamp"] = pd.to_datetime(df["timestamp"], format="ISO8601", utc=True)
    return len(df)


def m_events_df(root: str) -> int:
    from noesis_nb.frames import events_df

    return len(events_df(root, cache=False, progress=False))


def m_events_df_warm(root: str) -> int:
    from noesis_nb.frames import events_df

    return len(events_df(root, progress=False))


def m_summary_loop(root: str) -> int:
    n = 0
    for entry in os.scandir(root):
        try:
            with open(os.path.join(entry.path, "summary.json"), "rb") as fh:
                orjson.loads(fh.read())
            n += 1
        except (FileNotFoundError, NotADirectoryError):
            pass
    return n


def m_runs_df(root: str) -> int:
    from noesis_nb.frames import runs_df

    return len(runs_df(root, cache=False, progress=False))


def m_runs_df_warm(root: str) -> int:
    from noesis_nb.frames import runs_df

    return len(runs_df(root, progress=False))


METHODS = {name[2:]: fn for name, fn in list(globals().items()) if name.startswith("m_")}


class _NoPyarrow(MetaPathFinder):
    """Makes ``import pyarrow`` fail, as on a default install (installed before pandas is imported)."""

    def find_spec(self, name, path=None, target=None):
        if name == "pyarrow" or name.startswith("pyarrow."):
            raise ImportError(f"{name} is blocked to measure the default install (no pyarrow)")
        return None


def _child(method: str, root: str, repeat: int) -> None:
    """Run one method ``repeat`` times (a warm method first loads once to fill the cache); print JSON."""
    import resource

    fn = METHODS[method]
    if method.endswith("_warm"):
        fn(root)
    elif method in ("events_df", "runs_df", "straightforward"):
        import pandas  # noqa: F401  (imported before the peak's baseline: growth counts the load, not the imports)

        import noesis_nb.frames  # noqa: F401
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    best, best_cpu, rows = float("inf"), float("inf"), 0
    for _ in range(repeat):
        start, cpu = time.perf_counter(), time.process_time()
        rows = fn(root)
        best = min(best, time.perf_counter() - start)
        best_cpu = min(best_cpu, time.process_time() - cpu)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    out = {"seconds": best, "cpu_seconds": best_cpu, "rows": rows, "peak_mb": (peak - before) / 1024.0, "rss_mb": peak / 1024.0}
    print(json.dumps(out))


_CHILD_FLAGS: list[str] = []  # passed to every child (``--no-pyarrow``)


def measure(method: str, root: Path, repeat: int, processes: int = 2) -> dict:
    """Best time over ``processes`` fresh processes × ``repeat`` runs (shared machines are noisy); peak of the best."""
    env = {**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    best: dict | None = None
    for _ in range(processes):
        out = subprocess.run(
            [sys.executable, __file__, "--child", method, str(root), str(repeat), *_CHILD_FLAGS],
            capture_output=True,
            text=True,
            env=env,
            check=False,
        )
        if out.returncode != 0:
            return {"error": (out.stderr.strip().splitlines() or ["failed"])[-1]}
        got = json.loads(out.stdout.strip().splitlines()[-1])
        cpu = min(got["cpu_seconds"], best["cpu_seconds"]) if best is not None else got["cpu_seconds"]
        if best is None or got["seconds"] < best["seconds"]:
            best = got
        best["cpu_seconds"] = cpu  # the best of each clock on its own: other work on the machine disturbs them differently
    assert best is not None
    return best


def _warm_page_cache(root: Path) -> None:
    for path in root.rglob("*"):
        if path.is_file():
            path.read_bytes()


def _line(label: str, r: dict) -> str:
    if "error" in r:
        return f"  {label:<44} error: {r['error']}"
    return (
        f"  {label:<44} {r['seconds']:8.3f} s (CPU {r['cpu_seconds']:.3f} s)   peak +{r['peak_mb']:7.1f} MB   "
        f"RSS {r['rss_mb']:5.0f} MB  ({r['rows']:,} rows)"
    )


def _ratio(label: str, num: dict, den: dict, target: str) -> str:
    """The ratio of wall times, and of process CPU times (less disturbed by other work on a shared machine)."""
    if "error" in num or "error" in den:
        return f"  {label:<44}      n/a"
    cpu = num["cpu_seconds"] / den["cpu_seconds"] if den["cpu_seconds"] > 0 else float("nan")
    return f"  {label:<44} {num['seconds'] / den['seconds']:7.2f}x   (CPU {cpu:.2f}x; target {target})"


def run_suite(root: Path, title: str, repeat: int, full: bool, only: set[str] | None = None) -> dict:
    _warm_page_cache(root)
    size = sum(p.stat().st_size for p in root.glob("*/events.jsonl")) / 1e6
    n_runs = sum(1 for _ in root.iterdir())
    print(f"\n{title}: {n_runs:,} runs, events.jsonl total {size:,.0f} MB")
    names = (["pandas", "duckdb"] if full else []) + [
        "floor",
        "floor_kept",
        "straightforward",
        "events_df",
        "events_df_warm",
        "summary_loop",
        "runs_df",
        "runs_df_warm",
    ]
    if only:
        names = [name for name in names if name in only]
    r = {name: measure(name, root, repeat) for name in names}
    labels = {
        "pandas": "(a) pandas read_json(lines) + concat",
        "duckdb": "(b) DuckDB read_json_auto -> pandas",
        "floor": "(c) floor: read + orjson every line",
        "floor_kept": "(c') the floor, keeping the parsed events",
        "straightforward": "(d) straightforward orjson -> columns",
        "events_df": "events_df (cold)",
        "events_df_warm": "events_df (second load)",
        "summary_loop": "baseline: scandir + orjson summary.json",
        "runs_df": "runs_df (cold)",
        "runs_df_warm": "runs_df (second load)",
    }
    for name in names:
        print(_line(labels[name], r[name]))
    print("  ratios:")
    ratios = [
        ("(a) pandas / events_df", "pandas", "events_df", ">= 3x"),
        ("(b) duckdb / events_df", "duckdb", "events_df", "> 1x"),
        ("events_df / (c) floor", "events_df", "floor", "<= 2x"),
        ("events_df cold / second load", "events_df", "events_df_warm", ">= 10x"),
        ("runs_df / summary loop", "runs_df", "summary_loop", "<= 2x"),
        ("runs_df cold / second load", "runs_df", "runs_df_warm", ">= 10x"),
    ]
    for label, num, den, target in ratios:
        if num in r and den in r:
            print(_ratio(label, r[num], r[den], target))
    if "events_df" in r and "floor" in r and "error" not in r["events_df"] and "error" not in r["floor"]:
        # the floor keeps nothing (its growth is ~0): compare the processes' peak resident sets
        ratio = r["events_df"]["rss_mb"] / r["floor"]["rss_mb"]
        print(f"  {'events_df / (c) floor, process peak RSS':<44} {ratio:7.2f}x   (target <= 2.5x)")
    kept = r.get("floor_kept", {})
    if "events_df" in r and "error" not in r["events_df"] and kept.get("peak_mb", 0) >= 8:  # below: the interpreter's own peak
        # what loading added to each process: the frame against the parsed events alone (imports not counted)
        ratio = r["events_df"]["peak_mb"] / max(r["floor_kept"]["peak_mb"], 1e-9)
        label = "events_df / (c') kept floor, peak growth"
        print(f"  {label:<44} {ratio:7.2f}x   (target <= 2.5x)")
    return r


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        if "--no-pyarrow" in sys.argv[5:]:
            if "pandas" in sys.modules or "pyarrow" in sys.modules:
                raise RuntimeError("--no-pyarrow: pandas was imported before pyarrow could be blocked")
            sys.meta_path.insert(0, _NoPyarrow())
        _child(sys.argv[2], sys.argv[3], int(sys.argv[4]))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000, help="big runs (default 1000)")
    parser.add_argument("--events", type=int, default=1000, help="events per big run (default 1000)")
    parser.add_argument("--small-runs", type=int, default=10000, help="small runs, ~15 events each (default 10000)")
    parser.add_argument("--repeat", type=int, default=3, help="repetitions per method; the best is reported")
    parser.add_argument("--dir", type=Path, default=None, help="where to build the corpus (default: a temp dir)")
    parser.add_argument("--keep", action="store_true", help="keep the corpus afterwards")
    parser.add_argument("--no-pyarrow", action="store_true", help="block pyarrow in the measured processes (a default install)")
    parser.add_argument("--only", default="", help="comma-separated methods to measure (default: all), e.g. floor,events_df")
    args = parser.parse_args()
    if args.no_pyarrow:
        _CHILD_FLAGS.append("--no-pyarrow")
    only = {name.strip() for name in args.only.split(",") if name.strip()} or None
    unknown = (only or set()) - set(METHODS)
    if unknown:
        parser.error(f"--only: unknown method(s) {sorted(unknown)}; choose from {sorted(METHODS)}")
    base = args.dir or Path(tempfile.mkdtemp(prefix="noesis_nb_bench_"))
    big, small = base / "big", base / "small"
    try:
        start = time.perf_counter()
        if not big.exists():
            make_corpus(big, args.runs, args.events, seed=1)
        if not small.exists():
            make_corpus(small, args.small_runs, 15, seed=2)
        print(
            f"corpus in {base} (built in {time.perf_counter() - start:.1f} s); python {sys.version.split()[0]}, "
            f"{os.cpu_count()} CPUs; each figure is the best of 2 fresh processes x {args.repeat} runs (wall clock, and"
            " process CPU time apart)" + ("; pyarrow blocked (a default install)" if args.no_pyarrow else "")
        )
        run_suite(big, f"big corpus ({args.runs} runs x {args.events} events)", args.repeat, full=True, only=only)
        run_suite(small, f"small corpus ({args.small_runs} runs x 15 events)", args.repeat, full=False, only=only)
    finally:
        if not args.keep and args.dir is None:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
