"""A cold load makes few system calls a run (issue 16): each frame's per-run calls into the operating system are
counted in a new process, so a file read twice, a folder listed twice or a folder's links checked again for every
file in it shows as a count over its budget (a shared machine's clock is too noisy to hold a figure).

The runs are the scale benchmark's (``benchmarks/bench_frames.py``: ~30 events, model calls, a tool draft prepared
and executed, summary, state, final and manifest, sealed as noesis_nb seals). Each call Python makes into ``os``
is counted by ``sys.setprofile`` (its ``c_call`` events), weighted by the system calls it makes on Linux: a listing
opens, stats, reads and closes its folder; ``os.open`` + ``os.fstat`` + ``os.read`` + ``os.close`` is one read.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BENCHMARKS = REPO / "benchmarks"

#: system calls a cold load makes per run of the scale corpus, beyond a root of fewer such runs. A run's four
#: documents (summary, final, manifest and events, each opened, stat-ed, read and closed) and the root listing's stat
#: of its log are 17; tools_df adds tool_invocations/ (an lstat and a listing), each record folder (its stamp and
#: listing) and each record's read (51 before: a record's two folders were lstat-ed again for each record, and the
#: manifest read a second time for the records' sizes); runs_df reads state.json, lists the tool folders and stats
#: the files the seal lists.
BUDGETS = {"events_df": 17, "usage_df": 17, "tools_df": 43, "runs_df": 39}

CHILD = r"""
import io, json, os, random, shutil, sys, threading
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from bench_frames import _write_run
import pandas  # noqa: F401 - imports are not what is counted
import noesis_nb.frames as frames
from noesis_nb.frames.runindex import INDEX_DIR

base, cache = Path(sys.argv[2]), Path(os.environ["NOESIS_NB_CACHE_DIR"])
sizes = {"warm-up": 2, "small": 3, "large": 9}
for name, n in sizes.items():
    (base / name).mkdir()
    rnd = random.Random(n)
    for i in range(n):
        _write_run(base / name, i, 30, rnd)
# one system call each, but a listing (open, fstat, two getdents, close) and a whole read (open, fstat, read, close)
WEIGHTS = {os.listdir: 5, os.scandir: 5, io.open: 7}
WATCHED = {f: WEIGHTS.get(f, 1) for f in (
    os.open, os.stat, os.lstat, os.fstat, os.read, os.close, os.listdir, os.scandir, io.open, os.readlink, os.access,
)}
counted = {}
def profile(frame, event, arg):
    if event == "c_call" and arg in WATCHED:
        counted[arg.__name__] = counted.get(arg.__name__, 0) + WATCHED[arg]
out = {}
for frame in sys.argv[3].split(","):
    load = getattr(frames, frame)
    for root in sizes:
        frames.clear_cache()
        shutil.rmtree(cache / INDEX_DIR, ignore_errors=True)  # cold: the first load of these runs ever
        counted.clear()
        if root != "warm-up":  # its load takes imports and first-call paths out of the counts
            sys.setprofile(profile)
            threading.setprofile(profile)
        try:
            rows = len(load(str(base / root), progress=False))
        finally:
            sys.setprofile(None)
            threading.setprofile(None)
        out[f"{frame}:{root}"] = {"calls": dict(counted), "rows": rows}
print(json.dumps({"sizes": sizes, "counts": out}))
"""


def _per_run(tmp_path: Path, frames: list[str]) -> dict[str, tuple[float, dict[str, float]]]:
    """Each frame's system calls a run (large root minus small, by the runs between) and by which call."""
    path = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p)  # this tree's noesis_nb
    env = {**os.environ, "NOESIS_NB_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": path}
    (tmp_path / "runs").mkdir()
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(BENCHMARKS), str(tmp_path / "runs"), ",".join(frames)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout.strip().splitlines()[-1])
    sizes, counts = got["sizes"], got["counts"]
    between = sizes["large"] - sizes["small"]
    out = {}
    for frame in frames:
        small, large = counts[f"{frame}:small"], counts[f"{frame}:large"]
        assert small["rows"] > 0 and large["rows"] > small["rows"]
        names = set(small["calls"]) | set(large["calls"])
        by = {n: (large["calls"].get(n, 0) - small["calls"].get(n, 0)) / between for n in names}
        out[frame] = (sum(by.values()), {n: v for n, v in sorted(by.items()) if v})
    return out


def test_a_cold_load_makes_no_more_system_calls_a_run_than_its_budget(tmp_path: Path):
    per_run = _per_run(tmp_path, list(BUDGETS))
    over = {f: per_run[f] for f, budget in BUDGETS.items() if per_run[f][0] > budget}
    assert not over, "system calls a run over budget " + "; ".join(
        f"{f}: {total:.1f} (budget {BUDGETS[f]}; {by})" for f, (total, by) in over.items()
    )
