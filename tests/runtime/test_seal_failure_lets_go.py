"""A seal that fails in a way nobody foresaw (a bug, an error no write refusal names) gives the run up as it stands:
it reads ``lost`` at once and ``resume_run`` completes its seal in the same process. It stayed held by the process that
failed until that process exited (``running``, and ``resume_run`` answered busy)."""

from __future__ import annotations

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
