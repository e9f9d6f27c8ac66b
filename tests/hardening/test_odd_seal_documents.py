"""A run whose ``final.json`` or ``manifest.json`` is a folder, a FIFO or a link (into the run, out of it, dangling)
instead of the regular file a seal writes: every place that asks whether the run is sealed gives one answer, and
every call that would write into it (resume, recovery of a lost run, a decision, a seal) refuses it with one error
naming the file and the fix, writing nothing, inside the run or out of it."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.errors import RunSealedError
from noesis_nb.runtime.api import RunRecovered
from noesis_nb.runtime.diskrun import DiskRun
from noesis_nb.store import is_sealed, run_info
from noesis_nb.store.ownership import holder
from noesis_nb.store.sealing import SealDocumentError, seal_state

from ..compat.checker import check_run
from .crashkit import tool_agent

pytestmark = pytest.mark.timeout(60)

ROOT = Path(__file__).resolve().parents[2]
SHAPES = ["folder", "fifo", "link_inside", "link_outside", "dangling"]

_WRITER = """
import sys, time
import noesis_nb

def agent(task, ctx):
    ctx.emit("reason", {"text": "working"})
    print("RUNNING", flush=True)
    time.sleep(120)

noesis_nb.solve("a long task", using=agent, runs_dir=sys.argv[1], episode_id="ep_lost")
"""


@pytest.fixture(scope="module")
def bases(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A run paused on a draft, and a run whose writer was killed while it ran (lost)."""
    root = tmp_path_factory.mktemp("odd-seal")
    ep = noesis_nb.solve("append the note", using=tool_agent(str(root / "marker.txt")), runs_dir=root / "runs", approver="ask")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-c", _WRITER, str(root / "runs")], env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "RUNNING"
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    return {"paused": root / "runs" / ep, "lost": root / "runs" / "ep_lost"}


def _plant(run: Path, name: str, shape: str, outside: Path) -> Path:
    path = run / name
    path.unlink(missing_ok=True)
    if shape == "folder":
        path.mkdir()
        (path / "inside.json").write_text("{}")
    elif shape == "fifo":
        os.mkfifo(path)
    elif shape == "link_inside":
        path.symlink_to("state.json")
    elif shape == "link_outside":
        path.symlink_to(outside)
    elif shape == "dangling":
        path.symlink_to("nothing-here.json")
    else:
        raise AssertionError(shape)
    return path


def _snapshot(*roots: Path) -> dict[str, tuple[int, int, int]]:
    """Every entry under ``roots`` (links not followed): its mode, size and modification time."""
    seen = {}
    for root in roots:
        for folder, dirs, files in os.walk(root):
            for name in dirs + files:
                st = os.lstat(Path(folder, name))
                seen[str(Path(folder, name))] = (st.st_mode, st.st_size, st.st_mtime_ns)
    return seen


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("name", ["final.json", "manifest.json"])
@pytest.mark.parametrize("kind", ["paused", "lost"])
def test_an_odd_seal_document_gets_one_answer_and_every_write_is_refused(
    bases: dict[str, Path], tmp_path: Path, kind: str, name: str, shape: str
) -> None:
    marker = bases[kind].parent.parent / "marker.txt"  # what the paused run's draft writes when its tool runs
    marker.unlink(missing_ok=True)
    run = tmp_path / "runs" / bases[kind].name
    shutil.copytree(bases[kind], run, symlinks=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "final.json").write_text('{"outcome": "success"}')
    planted = _plant(run, name, shape, outside / "final.json")

    assert not is_sealed(run) and not seal_state(run).sealed and run_info(run)["sealed"] is False
    assert DiskRun(run).status == run_info(run)["status"] == {"paused": "paused", "lost": "lost"}[kind]

    before = _snapshot(run, outside)
    refusals = [
        lambda: noesis_nb.resume_run(run, using=tool_agent(str(tmp_path / "marker.txt"))),
        lambda: noesis_nb.approve_draft(run, approver_id="ops"),
        lambda: noesis_nb.reject_draft(run, approver_id="ops"),
    ]
    for call in refusals:
        with pytest.raises(SealDocumentError) as told:
            call()
        said = str(told.value)
        assert said.startswith(f"{planted} is ") and f"Remove {planted}" in said, said
        assert _snapshot(run, outside) == before, "a refused call wrote into the run or out of it"
    assert not marker.exists(), "the draft's tool ran"

    if planted.is_dir() and not planted.is_symlink():
        shutil.rmtree(planted)
    else:
        planted.unlink()
    if kind == "paused":  # the odd file gone, the run is decided and continued as any other
        noesis_nb.approve_draft(run, approver_id="ops")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RunRecovered)
        noesis_nb.resume_run(run, using=tool_agent(str(tmp_path / "marker.txt")))
    assert is_sealed(run) and not check_run(run)
    assert run_info(run)["status"] == {"paused": "ok", "lost": "error"}[kind] and marker.exists() == (kind == "paused")


@pytest.mark.parametrize("shape", ["folder", "fifo", "dangling"])
def test_a_live_episode_whose_seal_document_was_planted_gives_its_run_up_unwritten(tmp_path: Path, shape: str) -> None:
    """Someone puts a folder, FIFO or link where the episode's final.json goes while its adapter runs: the seal is
    refused by name and writes nothing, and the run is let go (it reads lost, not held for the life of the
    process), so resume_run seals it once the file is removed."""
    runs, outside = tmp_path / "runs", tmp_path / "outside"
    outside.mkdir()
    seen: dict[str, object] = {}

    def agent(task: str, ctx: object) -> str:
        (run,) = runs.glob("ep_*")
        seen["planted"] = _plant(run, "final.json", shape, outside / "final.json")
        seen["files"] = _snapshot(run, outside)
        return "done"

    with pytest.raises((SealDocumentError, RunSealedError)) as told:
        noesis_nb.solve("a task", using=agent, runs_dir=runs)
    planted = seen["planted"]
    assert isinstance(planted, Path) and str(planted) in str(told.value), told.value
    run = planted.parent
    files = seen["files"]
    assert isinstance(files, dict)
    now = _snapshot(run, outside)
    assert {k: v for k, v in now.items() if not k.endswith("events.jsonl")} == {
        k: v for k, v in files.items() if not k.endswith("events.jsonl")
    }, "the refused seal wrote a document into the run or out of it"
    phases = [json.loads(line)["phase"] for line in (run / "events.jsonl").read_text().splitlines()]
    assert not {"terminate", "insight", "memory"} & set(phases), phases  # the episode's own events only: no seal
    assert holder(run) is None and run_info(run)["status"] == DiskRun(run).status == "lost"

    if shape == "folder":
        shutil.rmtree(planted)
    else:
        planted.unlink()
    with pytest.warns(RunRecovered, match="lost its process"):
        noesis_nb.resume_run(run)
    assert is_sealed(run) and not check_run(run)
