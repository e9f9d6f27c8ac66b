"""A draft decided on disk and resumed later: ``tools_df.decided_at`` is when the person decided (the approval
record's ``decided_at``), not when the resume logged ``tool.approved``; before, a draft approved at T and resumed
hours later read as decided hours later. A record's time that is no time, or after the log's, is said in the
frame's problems and the log's time kept. An approval written for another run (its ``run_id``: Noēsis looks a
decision up by run id and draft id) binds no draft of this one: the resume refuses it, naming the run."""

from __future__ import annotations

import json
import time
import warnings
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import noesis_nb
from noesis_nb.store import read_events
from noesis_nb.tools import ApprovalDecisionBindingError

from .agents import make_writer


def _paused(runs_dir: Path, out: Path) -> tuple[str, Path]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        episode = noesis_nb.solve("one", using=make_writer(out), runs_dir=runs_dir)
    (record,) = (runs_dir / episode / "tool_invocations" / "prepared").glob("*.json")
    return episode, record


def _approval(runs_dir: Path, episode: str) -> Path:
    (path,) = (runs_dir / episode / "tool_invocations" / "approvals").glob("*.json")
    return path


def _edit(path: Path, **changes: Any) -> None:
    doc = json.loads(path.read_text())
    doc.update(changes)
    path.write_text(json.dumps(doc))


def _resume(runs_dir: Path, episode: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        noesis_nb.resume_run(episode, runs_dir=runs_dir)


def _logged(runs_dir: Path, episode: str) -> pd.Timestamp:
    (event,) = [e for e in read_events(runs_dir / episode / "events.jsonl") if e["payload"].get("event_name") == "tool.approved"]
    return pd.Timestamp(event["timestamp"])


def test_decided_at_is_the_decision_not_the_resume(runs_dir: Path, tmp_path: Path) -> None:
    episode, _ = _paused(runs_dir, tmp_path / "out.txt")
    noesis_nb.approve_draft(episode, approver_id="ana", runs_dir=runs_dir)
    decided = pd.Timestamp(json.loads(_approval(runs_dir, episode).read_text())["decided_at"])
    time.sleep(1.5)  # the person's decision, then the resume a while later
    _resume(runs_dir, episode)
    row = noesis_nb.tools_df(runs_dir).iloc[0]
    assert _logged(runs_dir, episode) - decided >= pd.Timedelta(seconds=1.5)
    assert row.decided_at == decided, (row.decided_at, decided)
    assert row.executed_at - row.decided_at >= pd.Timedelta(seconds=1.5)


@pytest.mark.parametrize("decided_at", ["yesterday", "2999-01-01T00:00:00+00:00"], ids=["no time", "after the log"])
def test_a_decision_time_that_cannot_be_is_said_and_the_log_kept(runs_dir: Path, tmp_path: Path, decided_at: str) -> None:
    episode, _ = _paused(runs_dir, tmp_path / "out.txt")
    noesis_nb.approve_draft(episode, approver_id="ana", runs_dir=runs_dir)
    _edit(_approval(runs_dir, episode), decided_at=decided_at)  # an extension Noēsis ignores: the resume goes on
    _resume(runs_dir, episode)
    assert (tmp_path / "out.txt").read_text() == "one\n"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tools = noesis_nb.tools_df(runs_dir)
    assert tools.decided_at.iloc[0] == _logged(runs_dir, episode)
    said = [e["reason"] for e in tools.attrs["errors"]]
    assert any("decided_at" in r and decided_at in r for r in said), said


def test_an_approval_for_another_run_is_refused_naming_it(runs_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.txt"
    episode, _ = _paused(runs_dir, out)
    noesis_nb.approve_draft(episode, approver_id="ana", runs_dir=runs_dir)
    _edit(_approval(runs_dir, episode), run_id="ep_another_run")  # fingerprint, request and draft id all the draft's
    lines = (runs_dir / episode / "events.jsonl").read_bytes()
    with pytest.raises(ApprovalDecisionBindingError, match=r"for run 'ep_another_run'.*moved aside"):
        noesis_nb.resume_run(episode, runs_dir=runs_dir)
    assert not out.exists() and (runs_dir / episode / "events.jsonl").read_bytes() == lines
    noesis_nb.approve_draft(episode, approver_id="ana", runs_dir=runs_dir)  # decided anew, in its own run
    _resume(runs_dir, episode)
    assert out.read_text() == "one\n"
