"""``approve_draft`` and ``reject_draft`` default who decides the same way, and as the buttons and magics do:
``$NOESIS_NB_APPROVER_ID``, else ``"human"``; a name given is recorded as given, a blank one refused."""

from __future__ import annotations

import inspect
import json
import sys
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.errors import InvalidOptionError


async def _agent(task: str, ctx: Any) -> Any:
    return await ctx.tool_async("fs.run", {"argv": [sys.executable, "-c", "pass"]}, effect="write", risk="high")


def _paused(runs_dir: Path) -> str:
    return noesis_nb.solve("a task", using=_agent, runs_dir=runs_dir, approver="ask")


def _approver(runs_dir: Path, ep: str) -> str:
    [decision] = (runs_dir / ep / "tool_invocations" / "approvals").glob("*.json")
    return json.loads(decision.read_text())["approver_id"]


@pytest.mark.parametrize("decide", [noesis_nb.approve_draft, noesis_nb.reject_draft])
def test_both_default_to_the_variable_then_human(decide: Any, runs_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NOESIS_NB_APPROVER_ID", raising=False)
    ep = _paused(runs_dir)
    decide(ep, runs_dir=runs_dir)  # no approver named: no TypeError
    assert _approver(runs_dir, ep) == "human"
    monkeypatch.setenv("NOESIS_NB_APPROVER_ID", "ana")
    other = _paused(runs_dir)
    decide(other, runs_dir=runs_dir)
    assert _approver(runs_dir, other) == "ana"
    third = _paused(runs_dir)
    decide(third, runs_dir=runs_dir, approver_id="bo")
    assert _approver(runs_dir, third) == "bo"
    with pytest.raises(InvalidOptionError, match="approver_id="):
        decide(_paused(runs_dir), runs_dir=runs_dir, approver_id="  ")


def test_the_signatures_and_docstrings_match() -> None:
    approve, reject = (inspect.signature(f).parameters["approver_id"] for f in (noesis_nb.approve_draft, noesis_nb.reject_draft))
    assert approve.default == reject.default and approve.kind == reject.kind == inspect.Parameter.KEYWORD_ONLY
    for f in (noesis_nb.approve_draft, noesis_nb.reject_draft):
        assert "NOESIS_NB_APPROVER_ID" in (f.__doc__ or "") and '"human"' in (f.__doc__ or "")
