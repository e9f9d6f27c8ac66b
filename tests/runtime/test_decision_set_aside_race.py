"""A decision file judged bad (malformed, or approving another fingerprint) is moved aside so a real decision can take
its place. Between the judgment and the move, another process may set that file aside itself and write a valid
decision: the move then took the valid decision, filed it as ``….invalid-<time>``, and the draft's first real
decision was lost (its maker told it was recorded). The move now judges what it moved and puts a valid decision
back. Each test races a real second process into that moment: the hook runs it, to its end, right before the move."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.tools import decisions, repositories

from .agents import paused_on_disk
from .test_unbound_decision_file import _forge

_DECIDE = """
import json, sys
import noesis_nb
d = noesis_nb.approve_draft(sys.argv[1], sys.argv[2], approver_id="bob")
print(json.dumps({"created": d.created, "approver_id": d.approver_id}))
"""


def _racing(module: Any, monkeypatch: pytest.MonkeyPatch, run_dir: Path, draft: str) -> list[dict[str, Any]]:
    """Make ``module``'s first set-aside run a second process's ``approve_draft`` to its end just before the move."""
    told: list[dict[str, Any]] = []
    real: Callable[..., Any] = module.quarantine

    def hooked(*args: Any, **kwargs: Any) -> Any:
        if not told:
            done = subprocess.run(
                [sys.executable, "-c", _DECIDE, str(run_dir), draft], capture_output=True, text=True, timeout=120
            )
            assert done.returncode == 0, done.stderr
            told.append(json.loads(done.stdout.splitlines()[-1]))
        return real(*args, **kwargs)

    monkeypatch.setattr(module, "quarantine", hooked)
    return told


def _approvals(run_dir: Path) -> Path:
    return run_dir / "tool_invocations" / "approvals"


def _stored(run_dir: Path, draft: str) -> dict[str, Any]:
    return json.loads((_approvals(run_dir) / f"{draft}.json").read_text())


def _aside(run_dir: Path) -> list[str]:
    return sorted(p.read_text() for p in _approvals(run_dir).iterdir() if ".invalid-" in p.name)


def test_an_unbound_decision_set_aside_while_another_process_decides_keeps_that_decision(
    runs_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_dir, draft = paused_on_disk(runs_dir, tmp_path / "out.txt")
    _forge(run_dir, draft)  # approves another fingerprint: set aside by whoever reads it first
    told = _racing(decisions, monkeypatch, run_dir, draft)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # DecisionStands: bob's approval came first
        mine = noesis_nb.approve_draft(run_dir, draft, approver_id="ana")
    assert told == [{"created": True, "approver_id": "bob"}]
    # before: bob's decision moved aside as invalid, and ana's recorded in its place
    assert _stored(run_dir, draft)["approver_id"] == "bob"
    assert not mine.created and mine.approver_id == "bob"
    aside = _aside(run_dir)
    assert len(aside) == 1 and "mallory" in aside[0] and "bob" not in aside[0], aside


def test_a_malformed_decision_set_aside_while_another_process_decides_keeps_that_decision(
    runs_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_dir, draft = paused_on_disk(runs_dir, tmp_path / "out.txt")
    _approvals(run_dir).mkdir(parents=True, exist_ok=True)
    (_approvals(run_dir) / f"{draft}.json").write_text('{"status": "approved"')  # cut short: not JSON
    told = _racing(repositories, monkeypatch, run_dir, draft)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mine = noesis_nb.reject_draft(run_dir, draft, approver_id="ana")
    assert told == [{"created": True, "approver_id": "bob"}]
    stored = _stored(run_dir, draft)
    assert stored["approver_id"] == "bob" and stored["status"] == "approved"  # before: ana's rejection in its place
    assert not mine.created and mine.approved
    assert _aside(run_dir) == ['{"status": "approved"']
