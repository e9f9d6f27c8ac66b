"""Imported traces that record tool calls: runs_df never says 0 tool calls or 0 s waited for them.

A recorded call (and its approval) becomes no draft, so tools_df has no row for it and the person's wait is not in
the run's log: runs_df reads tool_calls and waiting_s as unknown. A trace that records no tool call keeps its 0s.
"""

from __future__ import annotations

import warnings

import pandas as pd
import pytest

import noesis_nb
from noesis_nb.integrations.noeta import import_noeta
from noesis_nb.integrations.noetic import import_noetic

from .helpers import run

T0 = 1700000000.0


def _envelope(seq, kind, payload, after_s):
    return {
        "id": f"e{seq}",
        "task_id": "task1",
        "seq": seq,
        "type": kind,
        "schema_version": 1,
        "occurred_at": T0 + after_s,
        "actor": "engine",
        "trace_id": "tr",
        "correlation_id": None,
        "causation_id": None,
        "payload": payload,
        "origin": "engine",
    }


def _approved_call_envelopes():
    """A task whose delete_file call ana approved 60 s after it was asked for, then ran."""
    call = {"call_id": "d1", "tool_name": "delete_file"}
    return [
        _envelope(0, "TaskCreated", {"goal": "delete x"}, 0),
        _envelope(1, "TaskStarted", {}, 1),
        _envelope(2, "ToolCallApprovalRequested", {**call, "arguments": {"path": "x"}}, 5),
        _envelope(3, "ToolCallApprovalResolved", {**call, "approved": True, "reason": "ok", "resolver": "ana"}, 65),
        _envelope(4, "ToolCallStarted", {**call, "arguments": {"path": "x"}}, 66),
        _envelope(5, "ToolResultRecorded", {"call_id": "d1", "success": True, "summary": "deleted"}, 67),
        _envelope(6, "ToolCallFinished", {"call_id": "d1"}, 67),
        _envelope(7, "TaskCompleted", {"answer": "done"}, 70),
    ]


def _run(runs_dir, episode_id):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        runs = noesis_nb.runs_df(runs_dir)
    return runs.set_index("episode_id").loc[episode_id]


def test_an_approved_recorded_noeta_call_is_no_zero(tmp_path):
    episode = import_noeta(_approved_call_envelopes(), runs_dir=tmp_path)
    run = _run(tmp_path, episode)
    assert pd.isna(run["tool_calls"]), run["tool_calls"]  # recorded, not in tools_df: unknown, never 0
    assert pd.isna(run["waiting_s"]), run["waiting_s"]  # ana's 60 s are not in the log: unknown, never 0.0


def test_a_recorded_noetic_tool_call_is_no_zero(tmp_path):
    log = [
        {"source": "framework", "type": "a:turn_started", "data": {"turnId": "t1"}},
        {"source": "framework", "type": "a:tool_call_started", "data": {"toolName": "search"}},
        {"source": "framework", "type": "a:tool_call_completed", "data": {"toolName": "search"}},
        {"source": "framework", "type": "a:turn_completed", "data": {"turnId": "t1", "durationMs": 10}},
    ]
    run = _run(tmp_path, import_noetic(log, runs_dir=tmp_path))
    assert pd.isna(run["tool_calls"]), run["tool_calls"]
    assert run["waiting_s"] == 0.0  # no approval recorded: nobody was waited for


def test_a_trace_without_tool_calls_keeps_its_zeros(tmp_path):
    plain = [e for e in _approved_call_envelopes() if "Tool" not in e["type"]]
    run = _run(tmp_path, import_noeta(plain, runs_dir=tmp_path))
    assert run["tool_calls"] == 0 and run["waiting_s"] == 0.0


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # ripgrep absent: Noeta's Grep/Glob warn
def test_the_live_story_imported_is_no_zero(tmp_path):
    """The same approval story: the live Noeta adapter gives its call a tools_df row; its recorded envelopes imported
    give no row, so runs_df says unknown there, never 0 calls and 0 s waited."""
    sdk = pytest.importorskip("noeta.sdk")
    from .test_noeta_client import gated_adapter

    saved: list[dict] = []
    adapter = gated_adapter(tmp_path)

    def recording_client():
        options, provider, model = adapter.options, adapter.provider, adapter.model
        client = sdk.Client(options, provider=provider, model=model, multi_turn=False, workspace_dir=tmp_path)
        client.subscribe(lambda envelope: saved.append(sdk.envelope_to_dict(envelope)))
        return client

    adapter.client_factory = recording_client
    live, _ = run("delete x.txt", adapter, tmp_path / "live", decide="approve")
    live_run = _run(tmp_path / "live", live.episode_id)
    assert live_run["tool_calls"] == 1 and len(noesis_nb.tools_df(tmp_path / "live")) == 1
    assert any(e["type"] == "ToolCallApprovalRequested" for e in saved)
    imported = _run(tmp_path / "imported", import_noeta(saved, runs_dir=tmp_path / "imported"))
    assert pd.isna(imported["tool_calls"]) and pd.isna(imported["waiting_s"])
