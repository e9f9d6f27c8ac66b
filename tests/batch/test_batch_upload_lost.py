"""batch(upload_to=…) copies every run the batch finished, once: a run lost with its process (kill -9) and sealed
``process_lost`` when the batch is called again is copied too, and so is the new episode that runs its task again."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.errors import InvalidIdError
from noesis_nb.store import read_summary
from noesis_nb.store.artifacts import verify_manifest

from ..conftest import REPO
from .agents import mixed

TASKS = ["slow one", "quick two"]
HOLDS_A_RUN = """
import asyncio, sys
import noesis_nb
from tests.batch.agents import mixed

async def main():
    handle = noesis_nb.batch({tasks!r}, using={{"agent": mixed}}, root=sys.argv[1], batch_id="lost", upload_to=sys.argv[2])
    while handle.counts() != {{"running": 1, "ok": 1}}:
        await asyncio.sleep(0.02)
    print("READY", flush=True)
    await asyncio.sleep(120)

asyncio.run(main())
"""


def _killed_holding_a_run(runs_dir: Path, url: str) -> None:
    """A batch process that holds the 'slow one' run (its adapter sleeps 60 s) is killed (kill -9)."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("BATCH_TEST_FAST", None)
    code = HOLDS_A_RUN.format(tasks=TASKS)
    proc = subprocess.Popen([sys.executable, "-c", code, str(runs_dir), url], env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "READY"
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()


def _batch(runs_dir: Path, url: str | None) -> noesis_nb.BatchHandle:
    async def main() -> noesis_nb.BatchHandle:
        return await noesis_nb.batch(TASKS, using={"agent": mixed}, root=runs_dir, batch_id="lost", upload_to=url).wait()

    return asyncio.run(main())


def _record(runs_dir: Path, batch_id: str = "lost") -> list[dict]:
    return json.loads((runs_dir / "batches" / f"{batch_id}.json").read_text())["entries"]


def _whole_copies(runs_dir: Path, remote: Path) -> dict[str, int]:
    """Each copy under ``remote``: its manifest the run's own and its files matching it; the manifest's mtime."""
    copies = {}
    for copy in remote.iterdir():
        assert (copy / "manifest.json").read_bytes() == (runs_dir / copy.name / "manifest.json").read_bytes()
        assert verify_manifest(copy).ok, copy
        copies[copy.name] = (copy / "manifest.json").stat().st_mtime_ns
    return copies


@pytest.mark.parametrize("first_call_uploads", [True, False], ids=["recovered-by-the-uploading-call", "recovered-before"])
def test_a_lost_run_and_the_episode_that_runs_it_again_are_each_copied_once(
    runs_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, first_call_uploads: bool
) -> None:
    remote = tmp_path / "remote"
    remote.mkdir()
    url = f"file://{remote}"
    _killed_holding_a_run(runs_dir, url)
    monkeypatch.setenv("BATCH_TEST_FAST", "1")  # the task runs again at once
    if not first_call_uploads:  # a call without upload_to recovers the lost run and runs its task again
        _batch(runs_dir, None)

    handle = _batch(runs_dir, url)
    assert [(e.status, e.error) for e in handle.entries] == [("ok", None), ("ok", None)]
    record = _record(runs_dir)
    (lost,) = record[0]["previous"]
    assert "process_lost" in read_summary(runs_dir / lost)["x-noesis_nb"]["reasons"]
    every_run = {lost, record[0]["episode_id"], record[1]["episode_id"]}
    assert {p.name for p in runs_dir.iterdir() if p.name.startswith("ep_")} == every_run
    copies = _whole_copies(runs_dir, remote)
    assert set(copies) == every_run

    _batch(runs_dir, url)  # called again: every copy is whole, none is written again
    assert _whole_copies(runs_dir, remote) == copies


def test_a_record_naming_an_earlier_run_that_is_a_path_is_refused(
    runs_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The earlier runs a record names are copied too: an id there is checked before it becomes a path."""
    remote = tmp_path / "remote"
    remote.mkdir()
    monkeypatch.setenv("BATCH_TEST_FAST", "1")
    _batch(runs_dir, None)
    path = runs_dir / "batches" / "lost.json"
    record = json.loads(path.read_text())
    record["entries"][0]["previous"] = ["../../elsewhere"]
    path.write_text(json.dumps(record))
    with pytest.raises(InvalidIdError, match=r"lost\.json.*elsewhere"):
        _batch(runs_dir, f"file://{remote}")
    assert list(remote.iterdir()) == []


HOLDS_TASK_ONE = """
import asyncio, sys
import noesis_nb
from tests.batch.agents import gated

async def main():
    tasks = [{{"task": t, "inputs": {{"gate": g}}}} for t, g in {gates!r}]
    handle = noesis_nb.batch(tasks, using={{"agent": gated}}, root=sys.argv[1], batch_id="elsewhere", concurrency=2)
    while handle.entries[1].status != "running" or handle.entries[1].handle is None:
        await asyncio.sleep(0.02)
    print("RUNNING", flush=True)
    await asyncio.sleep(120)

asyncio.run(main())
"""


@pytest.mark.filterwarnings("ignore::noesis_nb.runtime.api.RunRecovered")  # the recovery in this test says it
def test_a_run_lost_elsewhere_and_run_again_by_this_call_is_copied_with_its_new_episode(runs_dir: Path, tmp_path: Path) -> None:
    """This call queues task one behind task zero; another process starts task one's run and is killed (kill -9), and
    the run is recovered (sealed ``process_lost``) before this call reaches it: this call runs the task again as a new
    episode, and copies both runs of the entry, the lost one too."""
    from .agents import gated

    remote = tmp_path / "remote"
    remote.mkdir()
    url = f"file://{remote}"
    gates = [("zero", str(tmp_path / "gate-zero")), ("one", str(tmp_path / "gate-one"))]
    tasks = [{"task": t, "inputs": {"gate": g}} for t, g in gates]
    env = {**os.environ, "PYTHONPATH": str(REPO)}

    async def cell() -> noesis_nb.BatchHandle:
        batch = noesis_nb.batch(tasks, using={"agent": gated}, root=runs_dir, batch_id="elsewhere", concurrency=1, upload_to=url)
        while batch.counts() != {"running": 1, "queued": 1}:  # task zero holds the one slot, task one waits
            await asyncio.sleep(0.02)
        code = HOLDS_TASK_ONE.format(gates=gates)
        other = subprocess.Popen([sys.executable, "-c", code, str(runs_dir)], env=env, stdout=subprocess.PIPE, text=True)
        try:
            assert other.stdout is not None and other.stdout.readline().strip() == "RUNNING"
        finally:
            os.kill(other.pid, signal.SIGKILL)
            other.wait()
        lost = runs_dir / _record(runs_dir, "elsewhere")[1]["episode_id"]
        await asyncio.to_thread(noesis_nb.resume_run, lost)  # recovered elsewhere: sealed lost
        Path(gates[1][1]).touch()
        Path(gates[0][1]).touch()  # task zero ends; task one's slot finds its run sealed lost
        return await asyncio.wait_for(batch.wait(), 60)

    handle = asyncio.run(cell())
    assert [(e.status, e.error) for e in handle.entries] == [("ok", None), ("ok", None)]
    record = _record(runs_dir, "elsewhere")
    (lost,) = record[1]["previous"]
    assert "process_lost" in read_summary(runs_dir / lost)["x-noesis_nb"]["reasons"]
    assert set(_whole_copies(runs_dir, remote)) == {record[0]["episode_id"], lost, record[1]["episode_id"]}
