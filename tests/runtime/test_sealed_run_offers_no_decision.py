"""A run cancelled while paused on a draft is sealed without a decision: ``approve_draft`` refuses it, so no surface
offers one. ``DiskRun.pending`` is empty (awaits_decision's rule: a run whose seal began takes none), ``%noesis show
--text`` ends on the status alone, and runs_df/tools_df count nothing pending, as the live handle says."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.errors import RunSealedError
from tests.frames.runkit import writer_adapter
from tests.ipshell import run_magic


async def _cancelled_while_paused(runs: Path) -> Any:
    handle = noesis_nb.start("write a file", using=writer_adapter, runs_dir=runs, approver="ask")
    await asyncio.wait_for(handle, 30)  # returns once the episode waits for a person
    assert handle.status == "paused" and handle.pending
    handle.cancel()
    await asyncio.wait_for(handle.wait(), 30)
    assert handle.status == "cancelled" and not handle.pending
    return handle


def test_a_sealed_cancelled_run_offers_no_decision_anywhere(runs_dir: Path) -> None:
    handle = asyncio.run(_cancelled_while_paused(runs_dir))
    run = noesis_nb.DiskRun(handle.run_dir)
    assert run.status == "cancelled"
    assert run.pending == []
    _, out = run_magic(f"show {handle.episode_id} --runs-dir {runs_dir} --text")
    last = out.strip().splitlines()[-1]
    assert last == "status: cancelled", last
    assert noesis_nb.runs_df(runs_dir)["pending_approvals"].tolist() == [0]
    assert noesis_nb.tools_df(runs_dir)["status"].tolist() == ["undecided"]
    with pytest.raises(RunSealedError):  # what the lines above no longer offer is indeed refused
        noesis_nb.approve_draft(handle.run_dir, approver_id="ana")
