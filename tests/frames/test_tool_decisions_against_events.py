"""An approval record the run's events contradict is a problem row of tools_df, never a status read as the answer."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from noesis_nb.frames import tools_df


def _copy(engine_runs, scenario: str, tmp_path: Path) -> Path:
    runs, ids = engine_runs
    run = tmp_path / "runs" / ids[scenario]
    shutil.copytree(runs / ids[scenario], run)
    return run


def _set_decision(run: Path, status: str) -> None:
    [record] = (run / "tool_invocations" / "approvals").glob("*.json")
    doc = json.loads(record.read_text(encoding="utf-8"))
    doc["status"] = status
    record.write_text(json.dumps(doc), encoding="utf-8")


def _decision_problems(df) -> list[str]:
    return [p["reason"] for p in df.attrs["errors"] if "rejected" in p["reason"] or "approval record says" in p["reason"]]


def test_runs_as_written_have_no_decision_problem(engine_runs):
    runs, _ = engine_runs
    df = tools_df(runs)
    assert set(df["status"].dropna()) >= {"succeeded", "rejected"}  # tools that ran, and one a person rejected
    assert _decision_problems(df) == []


def test_a_rejection_written_over_an_approved_tool_that_ran_is_reported(engine_runs, tmp_path):
    run = _copy(engine_runs, "approved", tmp_path)
    _set_decision(run, "rejected")
    df = tools_df(run.parent)
    [reason] = _decision_problems(df)
    assert "the approval record says 'rejected', but the run's events say the draft was approved" in reason
    assert df.loc[0, "status"] == "succeeded"  # what ran is still shown, with the contradiction beside it


def test_an_approval_written_over_a_rejection_is_reported(engine_runs, tmp_path):
    run = _copy(engine_runs, "rejected", tmp_path)
    _set_decision(run, "approved")
    [reason] = _decision_problems(tools_df(run.parent))
    assert "the approval record says 'approved', but the run's events say the draft was rejected" in reason


def test_a_rejected_record_of_a_tool_that_ran_is_reported_without_a_decision_event(engine_runs, tmp_path):
    run = _copy(engine_runs, "approved", tmp_path)
    _set_decision(run, "rejected")
    log = run / "events.jsonl"
    lines = log.read_text(encoding="utf-8").splitlines(keepends=True)
    kept = [line for line in lines if json.loads(line).get("payload", {}).get("event_name") != "tool.approved"]
    assert len(kept) == len(lines) - 1
    log.write_text("".join(kept), encoding="utf-8")
    [reason] = _decision_problems(tools_df(run.parent))
    assert "the approval record says the draft was rejected, but the tool ran (status 'succeeded')" in reason
