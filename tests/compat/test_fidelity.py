"""Field fidelity: what our runs hold looks as it does in real Noēsis runs (``tests/fixtures``), where the
format document fixes it: ``state.outcomes.actions`` ids are ``act-N``, one per action; millisecond
figures of the summary (``phase_ms``, ``latencies``) are whole numbers; event times carry microseconds and
``+00:00``; manifest entries are sorted by name.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from tests.runtime.agents import make_writer, sync_writer_factory

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
ACT_ID = re.compile(r"^act-[1-9][0-9]*$")


def _real_runs() -> list[Path]:
    return sorted(p.parent for p in FIXTURES.glob("noesis-*/*/summary.json"))


def _doc(run: Path, name: str) -> Any:
    return json.loads((run / name).read_text(encoding="utf-8"))


def _events(run: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run / "events.jsonl").read_text(encoding="utf-8").splitlines() if line]


def _our_runs(root: Path) -> list[Path]:
    """A tool then the adapter's act in one process; and a tool resumed by ``resume_run`` after a pause on disk."""
    runs = root / "runs"
    noesis_nb.solve("Write a note", using=make_writer(root / "a.txt"), runs_dir=runs, approver="auto")
    paused = noesis_nb.solve("Write again", using=sync_writer_factory(root / "b.txt"), runs_dir=runs, approver="ask")
    noesis_nb.approve_draft(paused, approver_id="ana", runs_dir=runs)
    noesis_nb.resume_run(paused, runs_dir=runs)
    return sorted(p for p in runs.iterdir() if (p / "final.json").is_file())


def test_real_runs_number_their_actions_act_n() -> None:
    for run in _real_runs():
        ids = [a["id"] for a in _doc(run, "state.json")["outcomes"]["actions"]]
        assert ids and all(ACT_ID.match(i) for i in ids) and len(set(ids)) == len(ids), (run.name, ids)


def test_each_action_has_its_own_act_number_and_the_act_event_names_it(tmp_path: Path) -> None:
    runs = _our_runs(tmp_path)
    assert len(runs) == 2
    for run in runs:
        actions = _doc(run, "state.json")["outcomes"]["actions"]
        ids = [a["id"] for a in actions]
        assert {a["kind"] for a in actions} >= {"adapter", "subprocess"}, (run.name, actions)
        assert all(ACT_ID.match(i) for i in ids), (run.name, ids)
        assert len(set(ids)) == len(ids), f"{run.name}: action ids used twice: {ids}"
        (adapter_action,) = [a for a in actions if a["kind"] == "adapter"]
        (act,) = [e for e in _events(run) if e["phase"] == "act"]
        assert act["payload"]["action_id"] == adapter_action["id"]


def _ms_figures(summary: dict[str, Any]) -> dict[str, Any]:
    metrics = summary.get("metrics") or {}
    found = {f"latencies.{k}": v for k, v in (metrics.get("latencies") or {}).items()}
    found.update({f"phase_ms.{k}": v for k, v in (metrics.get("phase_ms") or {}).items()})
    insight = (summary.get("insight") or {}).get("metrics") or {}
    found.update({f"insight.phase_ms.{k}": v for k, v in (insight.get("phase_ms") or {}).items()})
    return found


@pytest.mark.parametrize("run", _real_runs(), ids=lambda p: p.parent.name)
def test_real_runs_write_milliseconds_as_whole_numbers(run: Path) -> None:
    figures = _ms_figures(_doc(run, "summary.json"))
    assert figures and all(type(v) is int for v in figures.values()), figures


def test_our_milliseconds_are_whole_numbers_too(tmp_path: Path) -> None:
    for run in _our_runs(tmp_path):
        figures = _ms_figures(_doc(run, "summary.json"))
        assert figures, run.name
        mistyped = {k: v for k, v in figures.items() if type(v) is not int}
        assert not mistyped, f"{run.name}: millisecond figures that are not whole numbers: {mistyped}"


STAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$")  # the form the format gives event timestamps


def test_event_times_have_microseconds_and_utc_offset_and_manifests_are_sorted(tmp_path: Path) -> None:
    for run in _our_runs(tmp_path):
        for event in _events(run):
            stamps = [event["timestamp"], *((event.get("metrics") or {}).get(k) for k in ("started_at", "completed_at"))]
            odd = [s for s in stamps if s is not None and not STAMP.match(s)]
            assert not odd, (run.name, event["id"], odd)
        names = [f["name"] for f in _doc(run, "manifest.json")["files"]]
        assert names == sorted(names), (run.name, names)


@pytest.mark.parametrize("mode", ["audit", "enforce"])
def test_the_summary_states_the_failure_policy_the_governance_event_applied(tmp_path: Path, mode: str) -> None:
    """Noēsis' summary ``flags`` name the failure policy its governance applied (``fail_closed`` in the
    real enforce run); ours said null while our own governance event said ``fail_closed``."""
    runs = tmp_path / "runs"
    noesis_nb.solve("Write a note", using=make_writer(tmp_path / "a.txt"), runs_dir=runs, approver="auto", governance=mode)
    (run,) = [p for p in runs.iterdir() if p.is_dir()]
    (policy,) = {e["payload"]["failure_policy"] for e in _events(run) if e["phase"] == "governance"}
    assert _doc(run, "summary.json")["flags"]["governance_failure_policy"] == policy


def test_real_runs_name_the_failure_policy_their_governance_applied() -> None:
    for run in _real_runs():
        applied = {e["payload"].get("failure_policy") for e in _events(run) if e["phase"] == "governance"}
        if applied:
            assert {_doc(run, "summary.json")["flags"].get("governance_failure_policy")} == applied, run.name


def test_with_governance_off_the_summary_keeps_the_failure_policy_set(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NOESIS_GOVERNANCE_FAILURE_POLICY", "fail_closed")
    runs = tmp_path / "runs"
    noesis_nb.solve("Write a note", using=make_writer(tmp_path / "a.txt"), runs_dir=runs, approver="auto", governance="off")
    (run,) = [p for p in runs.iterdir() if p.is_dir()]
    assert _doc(run, "summary.json")["flags"]["governance_failure_policy"] == "fail_closed"
