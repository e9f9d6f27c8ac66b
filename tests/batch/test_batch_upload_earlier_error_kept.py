"""An entry's error keeps what the copy of its earlier run said, whatever its new episode's end says after it.

The lost run of an entry run again by this call is copied while the new episode runs (a paused episode may wait for
a person for hours: its lost run's copy does not wait for it); the episode's end then set the entry's error (its
scorer's failure) over the copy's, and the failed copy was no longer said anywhere.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import noesis_nb

from ..conftest import REPO
from .test_batch_upload_lost import HOLDS_TASK_ONE, _record


def _scorer(task, result):
    raise ValueError(f"cannot score {task}")


@pytest.mark.filterwarnings("ignore::noesis_nb.runtime.api.RunRecovered")
def test_the_earlier_runs_failed_copy_and_the_scorers_failure_are_both_said(runs_dir: Path, tmp_path: Path) -> None:
    from .agents import gated

    remote = tmp_path / "remote"
    remote.mkdir()
    url = f"file://{remote}"
    gates = [("zero", str(tmp_path / "gate-zero")), ("one", str(tmp_path / "gate-one"))]
    tasks = [{"task": t, "inputs": {"gate": g}} for t, g in gates]
    env = {**os.environ, "PYTHONPATH": str(REPO)}

    async def cell() -> noesis_nb.BatchHandle:
        batch = noesis_nb.batch(
            tasks, using={"agent": gated}, root=runs_dir, batch_id="elsewhere", concurrency=1, upload_to=url, score=_scorer
        )
        while batch.counts() != {"running": 1, "queued": 1}:
            await asyncio.sleep(0.02)
        other = subprocess.Popen(
            [sys.executable, "-c", HOLDS_TASK_ONE.format(gates=gates), str(runs_dir)], env=env, stdout=subprocess.PIPE, text=True
        )
        try:
            assert other.stdout is not None and other.stdout.readline().strip() == "RUNNING"
        finally:
            os.kill(other.pid, signal.SIGKILL)
            other.wait()
        lost = runs_dir / _record(runs_dir, "elsewhere")[1]["episode_id"]
        await asyncio.to_thread(noesis_nb.resume_run, lost)
        (remote / lost.name).write_text("not a run folder")  # the lost run's copy cannot be made
        Path(gates[0][1]).touch()  # task zero ends; task one runs again as a new episode, which waits for its gate
        for _ in range(1500):  # until the lost run's copy has failed, while the new episode waits for its gate
            if "its earlier run" in (batch.entries[1].error or ""):
                break
            await asyncio.sleep(0.02)
        assert "its earlier run" in (batch.entries[1].error or ""), "the earlier run is copied while the episode runs"
        Path(gates[1][1]).touch()
        return await asyncio.wait_for(batch.wait(), 60)

    handle = asyncio.run(cell())
    (lost,) = _record(runs_dir, "elsewhere")[1]["previous"]
    error = handle.entries[1].error or ""
    assert "cannot score one" in error, error
    assert f"its earlier run {lost}" in error, error
