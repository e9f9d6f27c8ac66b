"""A seal that fails in a way nobody foresaw (a bug, an error no write refusal names) gives the run up as it stands:
it reads ``lost`` at once and ``resume_run`` completes its seal in the same process. It stayed held by the process that
failed until that process exited (``running``, and ``resume_run`` answered busy)."""

from __future__ import annotations

import asyncio
import errno

import pytest

import noesis_nb
from noesis_nb.runtime import lifecycle
from noesis_nb.runtime.api import RunRecovered
from noesis_nb.runtime.diskrun import DiskRun

from ..compat.checker import check_run


@pytest.mark.parametrize("failure", [ValueError("a bug in the seal"), OSError(errno.EIO, "I/O error")])
def test_a_seal_that_fails_unforeseen_lets_the_run_go(failure, runs_dir, monkeypatch):
    def broken_seal(rec, outcome):
        raise failure

    monkeypatch.setattr(lifecycle, "seal", broken_seal)
    with pytest.raises(type(failure)):
        noesis_nb.solve("a task", using=lambda task: "done", runs_dir=runs_dir, episode_id="ep_seal_failed")
    monkeypatch.undo()
    run = runs_dir / "ep_seal_failed"
    assert DiskRun(run).status == "lost"
    with pytest.warns(RunRecovered):
        noesis_nb.resume_run("ep_seal_failed", runs_dir=runs_dir)
    assert DiskRun(run).status == "ok"  # the adapter's answer was written before the seal failed: the seal completes
    assert check_run(run) == []


def test_a_started_episode_whose_seal_fails_ends_error_for_whoever_awaits_it(runs_dir, monkeypatch):
    failure = ValueError("a bug in the seal")

    def broken_seal(rec, outcome):
        raise failure

    monkeypatch.setattr(lifecycle, "seal", broken_seal)

    async def main():
        handle = noesis_nb.start("a task", using=lambda task: "done", runs_dir=runs_dir, episode_id="ep_started_seal_failed")
        await asyncio.wait_for(handle.wait(), 30)  # it was left running for ever: every await of it hung
        return handle

    handle = asyncio.run(main())
    monkeypatch.undo()
    assert handle.done() and handle.status == "error"
    assert handle.error is failure
    assert DiskRun(runs_dir / "ep_started_seal_failed").status == "lost"
