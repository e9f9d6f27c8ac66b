"""A paused run whose decision file resume_run would not honour (its status written twice, not JSON, no status) still
waits for a decision: runs_df counts its draft in ``pending_approvals`` and reports the file, as the view and
resume_run read it. It counted the draft decided whatever the file held, and said nothing."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.frames import clear_cache
from noesis_nb.runtime.diskrun import DiskRun


def _asks(task: str, ctx: Any) -> Any:
    return ctx.tool("fs.touch", {"argv": [sys.executable, "-c", "pass"]}, effect="write", risk="high")


BAD = {
    "status twice": lambda t: t.replace('"status": "approved"', '"status": "rejected", "status": "approved"'),
    "not json": lambda t: t[: len(t) // 2],
    "no status": lambda t: t.replace('"status": "approved"', '"state": "approved"'),
}


@pytest.mark.parametrize("how", sorted(BAD))
def test_a_decision_file_resume_run_would_not_honour_leaves_the_draft_pending(runs_dir: Path, how: str) -> None:
    ep = noesis_nb.solve("touch it", using=_asks, runs_dir=runs_dir, approver="ask")
    noesis_nb.approve_draft(runs_dir / ep, approver_id="ana")
    clear_cache()
    assert noesis_nb.runs_df(runs_dir)["pending_approvals"].iloc[0] == 0  # decided: nothing waits
    (decision,) = (runs_dir / ep / "tool_invocations" / "approvals").glob("*.json")
    text = decision.read_text()
    spoiled = BAD[how](text)
    assert spoiled != text
    decision.write_text(spoiled)
    clear_cache()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = noesis_nb.runs_df(runs_dir)
    assert df["pending_approvals"].iloc[0] == 1, df.attrs["errors"]
    said = [e for e in df.attrs["errors"] if e["path"].endswith(decision.name) and "still waits" in e["reason"]]
    assert said, df.attrs["errors"]
    assert len(DiskRun(runs_dir / ep).pending) == 1  # the view reads it the same way
