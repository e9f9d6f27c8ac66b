"""The real run Noēsis wrote (tests/fixtures/noesis-smoke-run) loads here as Noēsis describes it."""

import shutil

import noesis_nb
from noesis_nb import ns
from noesis_nb.store import read_events, read_state, read_summary, run_status

from ..conftest import SMOKE_PHASES


def test_smoke_run_holds_what_noesis_wrote(smoke_run):
    events = read_events(smoke_run / "events.jsonl", strict=True)
    assert len(events) == 13
    assert [e["phase"] for e in events] == SMOKE_PHASES
    assert [e.get("id") is None for e in events[-2:]] == [True, True]  # older insight/memory lines have no id
    assert sum(1 for e in events if e["payload"].get("synthetic")) == 1
    summary, state = read_summary(smoke_run), read_state(smoke_run)
    assert summary["metrics"]["act_count"] == 3 and summary["metrics"]["success"] is True
    assert state["episode"]["using"] == "adapter:core.minimal" and len(state["outcomes"]["actions"]) == 3
    assert run_status(summary, state, events) == "ok"


def test_smoke_run_through_the_ns_facade(smoke_run, tmp_path):
    shutil.copytree(smoke_run, tmp_path / "runs" / smoke_run.name)
    ns.set(runs_dir=str(tmp_path / "runs"))
    assert ns.last() == smoke_run.name
    assert ns.summary.read(smoke_run.name)["task"] == "smoke: manifest happy path"
    assert [e["phase"] for e in ns.events.read(smoke_run.name, stream=True)][-1] == "memory"
    row = ns.list_runs(strict_manifest=True)[0]
    # Noēsis' row gives summary.status, which this run's summary has not; noesis_nb.list_runs derives "ok"
    assert row["manifest_status"] == "ok" and row["status"] is None
    assert noesis_nb.list_runs(runs_dir=tmp_path / "runs")[0]["status"] == "ok"
