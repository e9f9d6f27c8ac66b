"""Loads of ``runs_df`` in real new Python processes (as a new kernel would), for the runs index and kept frames.

Each load shares the calling test's cache folder and seal key (its ``env``), counts the runs it read in full
and the frames it built, and leaves its frame in a pickle. ``again``: after the first load the process edits a
file and loads once more, counting only that second load's reads and builds.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pandas as pd

from noesis_nb.frames import runindex
from noesis_nb.frames._arrays import HAVE_ARROW
from noesis_nb.frames.fs import RACY_NS

from .runkit import SMOKE, basic_events, hand_summary, make_engine_runs, write_run

CHILD = """
import json, os, sys, time
args = json.loads(sys.argv[1])
if args["no_pyarrow"]:  # as the test process: a default install's frames, which it can unpickle
    import tests.hardening._no_pyarrow
from noesis_nb.frames import runs as runs_module, runs_df
from noesis_nb.frames import keptframe, runindex
from noesis_nb.frames.fs import RACY_NS

reads, built = [], []
read_run, frame = runs_module.read_run, runs_module._frame
def counted(ref, **kw):
    reads.append(os.path.basename(ref.path))
    return read_run(ref, **kw)
def counted_frame(*a, **kw):
    built.append(1)
    return frame(*a, **kw)
runs_module.read_run, runs_module._frame = counted, counted_frame
if args.get("learn"):
    from noesis_nb.secrets import for_run
    for_run(args["learn"]).learn([args["secret"]])
if args.get("code"):
    runindex._CODE = args["code"].encode()
if args.get("versions"):
    keptframe._versions = lambda: tuple(args["versions"])
adherence = runs_module.Column("plan_adherence", path="summary.metrics.plan_adherence", type="float")
columns = [adherence] if args.get("extras") else None
options = {"verify": args["verify"]} if args.get("verify") else {}
def load(source):
    return runs_df(source, columns=columns, prices=args.get("prices"), episodes=args.get("episodes"), **options)
df = load(args["root"])
for step in args.get("again", ()):  # then, in this process: an edit (same size, same mtime) or a subset load
    if "episodes" in step:
        runs_df(args["root"], episodes=step["episodes"])
        continue
    st = os.stat(step["path"])
    with open(step["path"], "r+b") as f:
        text = f.read()
        f.seek(0)
        f.write(text.replace(step["old"].encode(), step["new"].encode(), 1))
    os.utime(step["path"], ns=(st.st_atime_ns, st.st_mtime_ns))
    time.sleep(RACY_NS / 1e9 * 3)
    del reads[:], built[:]
    df = load(args["root"])
df.to_pickle(args["out"])
print(json.dumps({"reads": reads, "built": len(built)}))
"""

REPO = Path(__file__).resolve().parents[2]
#: the code digest every load in a new process keys the index and kept frames with (``runindex._CODE``). It stamps
#: each of the package's modules by size and mtime, so an edit of any of them while a test runs (a checkout, an
#: editor saving, a formatter) gives the loads after it another digest: rightly, they trust nothing kept before, and
#: read every run. A test counting the runs a load reads is about the runs, so its loads share the digest taken
#: once here (a test of another code version passes ``code=`` itself).
CODE = runindex._code_version().decode()


def settle() -> None:
    """Wait past the file system's tick: files written within it are not kept by any cache."""
    time.sleep(RACY_NS / 1e9 * 3)


def make_corpus(root: Path, *, damaged: bool) -> Path:
    """Engine runs of every kind and a Noēsis run; ``damaged``: and a hand run whose problems are reported each time."""
    make_engine_runs(root)
    shutil.copytree(SMOKE, root / SMOKE.name)
    if damaged:
        summary = hand_summary("ep_damaged", task="damaged") | {"metrics": {"act_count": "three"}}
        write_run(root, "ep_damaged", basic_events("ep_damaged"), summary=summary)
    settle()
    return root


def copy_runs(corpus: Path, tmp_path: Path) -> Path:
    root = tmp_path / "runs"
    shutil.copytree(corpus, root, copy_function=shutil.copy2)
    settle()
    return root


def load_counted(root: Path, env: dict[str, str], out: Path, **args: Any) -> tuple[pd.DataFrame, list[str], int]:
    """runs_df in a new process: (its frame, the runs it read in full, how many frames it built)."""
    args = {"root": str(root), "out": str(out), "no_pyarrow": not HAVE_ARROW, "code": CODE, **args}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, json.dumps(args)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    counts = json.loads(done.stdout.strip().splitlines()[-1])
    return pd.read_pickle(out), counts["reads"], counts["built"]


def load(root: Path, env: dict[str, str], out: Path, **args: Any) -> tuple[pd.DataFrame, int]:
    """runs_df in a new process: (its frame, how many runs it read in full)."""
    df, reads, _ = load_counted(root, env, out, **args)
    return df, len(reads)


def same(got: pd.DataFrame, want: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(got, want)
    assert got.attrs == want.attrs
