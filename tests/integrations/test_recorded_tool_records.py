"""An imported trace's tool calls become the records the live path writes: a draft, the recorded person's decision
at the recorded time, the result. tools_df, runs_df.tool_calls / waiting_s say what the trace says.

The Noeta trace is a real one (``tests/fixtures/noeta-recorded-trace``: a ``noeta.sdk.Client`` run, a low-risk read,
then a delete ana approved about 2 s after it was asked for). Every expected figure is read from the trace here.
"""

from __future__ import annotations

import copy
import json
import warnings
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import noesis_nb
from noesis_nb.integrations.noeta import import_noeta
from noesis_nb.integrations.noetic import import_noetic
from noesis_nb.store import verify_manifest
from tests.compat.checker import check_run

TRACE = Path(__file__).resolve().parents[1] / "fixtures" / "noeta-recorded-trace" / "envelopes.json"


def _trace() -> list[dict[str, Any]]:
    return json.loads(TRACE.read_text())


def _frames(runs_dir: Path) -> tuple[pd.Series, pd.DataFrame]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        runs = noesis_nb.runs_df(runs_dir)
        tools = noesis_nb.tools_df(runs_dir)
    assert len(runs) == 1
    return runs.iloc[0], tools.sort_values("requested_at", kind="stable").reset_index(drop=True)


def _at(envelope: dict[str, Any]) -> pd.Timestamp:
    return pd.Timestamp(envelope["occurred_at"], unit="s", tz="UTC")


def _expected(envelopes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each call the trace records, in the order it was asked for: its tool, whether a person was asked, who
    decided, when it was asked for and decided, and how long the person took (seconds between those two)."""
    calls: dict[str, dict[str, Any]] = {}
    for e in envelopes:
        data, kind = e["payload"], e["type"]
        if kind in ("ToolCallApprovalRequested", "ToolCallStarted") and data["call_id"] not in calls:
            calls[data["call_id"]] = {"tool": f"noeta.{data['tool_name']}", "asked": None, "requested_at": _at(e)}
        call = calls.get(data.get("call_id"))
        if call is None:
            continue
        if kind == "ToolCallApprovalRequested":
            call["asked"] = _at(e)
        elif kind == "ToolCallApprovalResolved":
            call.update(approver=data["resolver"], decided=_at(e), approved=data["approved"], reason=data.get("reason"))
        elif kind == "ToolResultRecorded":
            call["success"] = data["success"]
    out = []
    for call in calls.values():
        asked = call["asked"] is not None
        status = ("succeeded" if call.get("success") else "failed") if call.get("approved", True) else "rejected"
        out.append(
            {
                "tool": call["tool"],
                "requires_approval": asked,
                "status": status,
                "approver_id": call.get("approver"),
                "requested_at": call["requested_at"],
                "decided_at": call.get("decided"),
                "wait_s": (call["decided"] - call["asked"]).total_seconds() if asked else None,
            }
        )
    return out


def _check_rows(tools: pd.DataFrame, expected: list[dict[str, Any]]) -> None:
    assert tools["tool"].tolist() == [c["tool"] for c in expected]
    assert tools["requires_approval"].tolist() == [c["requires_approval"] for c in expected]
    assert tools["status"].tolist() == [c["status"] for c in expected]
    for row, call in zip(tools.to_dict("records"), expected):
        assert (row["approver_id"] if isinstance(row["approver_id"], str) else None) == call["approver_id"]
        assert abs((row["requested_at"] - call["requested_at"]).total_seconds()) < 1e-3
        if call["decided_at"] is None:
            assert pd.isna(row["decided_at"]) and pd.isna(row["wait_s"])
        else:
            assert abs((row["decided_at"] - call["decided_at"]).total_seconds()) < 1e-3
            assert row["wait_s"] == pytest.approx(call["wait_s"], abs=1e-3)


def _waited(expected: list[dict[str, Any]]) -> float:
    return sum(c["wait_s"] or 0.0 for c in expected)


def test_a_recorded_noeta_trace_gives_the_tool_rows_it_records(tmp_path: Path) -> None:
    envelopes = _trace()
    expected = _expected(envelopes)
    assert [c["requires_approval"] for c in expected] == [False, True] and expected[1]["wait_s"] > 1.5  # the fixture
    episode = import_noeta(envelopes, runs_dir=tmp_path)
    run, tools = _frames(tmp_path)
    _check_rows(tools, expected)
    assert tools["approver_id"].tolist()[1] == "ana"
    assert run["tool_calls"] == len(expected) and run["pending_approvals"] == 0
    assert run["waiting_s"] == pytest.approx(_waited(expected), abs=1e-3)
    assert verify_manifest(tmp_path / episode).ok
    assert check_run(tmp_path / episode) == []  # still a run Noēsis's validators accept


def test_a_streamed_import_gives_the_same_records(tmp_path: Path) -> None:
    envelopes = _trace()
    expected = _expected(envelopes)
    import_noeta(iter(envelopes), runs_dir=tmp_path)  # read as it comes: no look at the whole trace first
    run, tools = _frames(tmp_path)
    _check_rows(tools, expected)
    assert run["tool_calls"] == len(expected)
    assert run["waiting_s"] == pytest.approx(_waited(expected), abs=1e-3)


def test_a_recorded_denial_is_the_persons_rejection(tmp_path: Path) -> None:
    envelopes = [
        e
        for e in _trace()
        if not (e["payload"].get("call_id") == "d1" and e["type"].startswith("ToolCall") and "Approval" not in e["type"])
    ]
    for e in envelopes:
        if e["type"] == "ToolCallApprovalResolved":
            e["payload"].update(approved=False, reason="not that file")
    expected = _expected(envelopes)
    assert expected[1]["status"] == "rejected"
    episode = import_noeta(envelopes, runs_dir=tmp_path)
    run, tools = _frames(tmp_path)
    _check_rows(tools, expected)
    assert tools["decision_reason"].tolist()[1] == "not that file"
    assert run["tool_calls"] == 2 and run["waiting_s"] == pytest.approx(_waited(expected), abs=1e-3)
    assert check_run(tmp_path / episode) == []


def test_a_recorded_failure_is_a_failed_call(tmp_path: Path) -> None:
    envelopes = copy.deepcopy(_trace())
    for e in envelopes:
        if e["type"] == "ToolResultRecorded" and e["payload"]["call_id"] == "r1":
            e["payload"].update(success=False, summary="no such file")
    expected = _expected(envelopes)
    assert expected[0]["status"] == "failed"
    import_noeta(envelopes, runs_dir=tmp_path)
    run, tools = _frames(tmp_path)
    _check_rows(tools, expected)
    assert run["tool_calls"] == 2


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
def test_a_trace_cut_while_a_person_was_asked_says_unknown(tmp_path: Path, streamed: bool) -> None:
    """Saved while the task waited for ana: the delete's decision is not in it, so it becomes no draft; runs_df
    says its count and the wait unknown (whole import or stream alike), never 0; the read before it is a row."""
    envelopes = [e for e in _trace() if e["seq"] <= 22]  # up to TaskSuspended
    import_noeta(iter(envelopes) if streamed else envelopes, runs_dir=tmp_path)
    run, tools = _frames(tmp_path)
    assert run["status"] == "error"
    assert tools["tool"].tolist() == ["noeta.read_file"]
    assert pd.isna(run["tool_calls"]) and pd.isna(run["waiting_s"])


def test_a_noetic_tool_call_is_a_row(tmp_path: Path) -> None:
    log = [
        {"source": "framework", "type": "a:turn_started", "data": {"turnId": "t1"}},
        {"source": "framework", "type": "a:tool_call_started", "data": {"callId": "c1", "name": "search"}},
        {"source": "framework", "type": "a:tool_call_completed", "data": {"callId": "c1"}},
        {"source": "framework", "type": "a:tool_call_started", "data": {"toolName": "fetch"}},  # no id: paired by name
        {"source": "framework", "type": "a:tool_call_completed", "data": {"toolName": "fetch"}},
        {"source": "framework", "type": "a:turn_completed", "data": {"turnId": "t1", "durationMs": 10}},
    ]
    episode = import_noetic(log, runs_dir=tmp_path)
    run, tools = _frames(tmp_path)
    assert sorted(tools["tool"]) == ["noetic.fetch", "noetic.search"]
    assert tools["status"].tolist() == ["succeeded", "succeeded"] and not tools["requires_approval"].any()
    assert run["tool_calls"] == 2 and run["waiting_s"] == 0.0
    assert check_run(tmp_path / episode) == []


def test_a_users_tag_named_like_the_old_marker_is_only_a_tag(tmp_path: Path) -> None:
    plain = [e for e in _trace() if "Tool" not in e["type"]]
    import_noeta(plain, runs_dir=tmp_path / "imported", tags={"recorded_tool_calls": 3, "recorded_approvals": 2})
    run, _ = _frames(tmp_path / "imported")
    assert run["tool_calls"] == 0 and run["waiting_s"] == 0.0
    noesis_nb.solve("t", using=lambda task, ctx: "ok", runs_dir=tmp_path / "live", tags={"recorded_tool_calls": 3})
    run, _ = _frames(tmp_path / "live")
    assert run["tool_calls"] == 0


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # ripgrep absent: Noeta's Grep/Glob warn
def test_the_live_noeta_story_and_its_import_give_the_same_calls(tmp_path: Path) -> None:
    """Live, a call Noeta runs without asking (a low-risk read) is a tools_df row too, beside the approved delete;
    the same task's envelopes imported give the same calls, and the import's decision is the one Noeta recorded."""
    sdk = pytest.importorskip("noeta.sdk")
    from noeta.sdk import LLMResponse, Options, TextBlock, ToolResult, ToolUseBlock, Usage, tool
    from noeta.sdk.testing import FakeLLMProvider

    from noesis_nb.integrations.noeta import NoetaAdapter

    from .helpers import run

    schema = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}

    @tool(name="read_file", version="1", risk_level="low", input_schema=schema)
    def read_file(arguments: dict[str, Any], ctx: Any) -> Any:
        return ToolResult(success=True, output="contents")

    @tool(name="delete_file", version="1", risk_level="high", input_schema=schema)
    def delete_file(arguments: dict[str, Any], ctx: Any) -> Any:
        return ToolResult(success=True, output="deleted")

    provider = FakeLLMProvider(
        responses=[
            LLMResponse(
                stop_reason="tool_use",
                content=[ToolUseBlock(call_id="r1", tool_name="read_file", arguments={"path": "a"})],
                usage=Usage(uncached=10, output=3),
            ),
            LLMResponse(
                stop_reason="tool_use",
                content=[ToolUseBlock(call_id="d1", tool_name="delete_file", arguments={"path": "x"})],
                usage=Usage(uncached=10, output=3),
            ),
            LLMResponse(stop_reason="end_turn", content=[TextBlock(text="Done.")], usage=Usage(uncached=12, output=2)),
        ]
    )
    options = Options(system_prompt="files", name="story", allowed_tools=(read_file, delete_file), permission_mode="default")
    saved: list[dict[str, Any]] = []

    def recording_client() -> Any:
        client = sdk.Client(options, provider=provider, model="claude-sonnet-5", multi_turn=False, workspace_dir=tmp_path)
        client.subscribe(lambda envelope: saved.append(sdk.envelope_to_dict(envelope)))
        return client

    live, _ = run("read a, delete x", NoetaAdapter(client_factory=recording_client), tmp_path / "live", decide="approve")
    assert live.status == "ok"
    live_run, live_tools = _frames(tmp_path / "live")
    assert live_tools["tool"].tolist() == ["noeta.read_file", "noeta.delete_file"]
    assert live_tools["requires_approval"].tolist() == [False, True]
    assert live_tools["status"].tolist() == ["succeeded", "succeeded"] and live_run["tool_calls"] == 2
    assert check_run(live.run_dir) == []
    import_noeta(saved, runs_dir=tmp_path / "imported")
    run_, tools = _frames(tmp_path / "imported")
    _check_rows(tools, _expected(saved))
    assert tools["tool"].tolist() == live_tools["tool"].tolist() and run_["tool_calls"] == live_run["tool_calls"]


def test_a_run_an_earlier_release_imported_still_says_unknown(tmp_path: Path) -> None:
    """``tests/fixtures/noeta-import-earlier-release``: this trace imported by the release before (its calls became
    no drafts; its tags counted them, beside its trace_digest): still read as unknown, never 0, and still sound."""
    import shutil

    # one folder down: the fixture-wide check that tool_calls is tools_df's row count (its calls are unknown) skips it
    source = TRACE.parents[1] / "noeta-import-earlier-release" / "runs"
    shutil.copytree(source, tmp_path / "runs")
    run, tools = _frames(tmp_path / "runs")
    assert len(tools) == 0 and bool(run["manifest_ok"]) is True
    assert pd.isna(run["tool_calls"]) and pd.isna(run["waiting_s"])


def _noetic_calls(calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A Noetic log of one turn holding ``calls`` (each a started or completed tool call's data, in order)."""
    rows = [{"source": "framework", "type": f"a:tool_call_{kind}", "data": data} for kind, data in calls]
    turn = {"source": "framework", "type": "a:turn_started", "data": {"turnId": "t1"}}
    end = {"source": "framework", "type": "a:turn_completed", "data": {"turnId": "t1", "durationMs": 10}}
    return [turn, *rows, end]


@pytest.mark.parametrize(
    "data",
    [{"toolName": "fetch"}, {"callId": "c0", "name": "fetch"}],
    ids=["paired-by-name", "reused-call-id"],
)
def test_a_tool_called_twice_with_one_key_gives_two_calls(tmp_path: Path, data: dict[str, Any]) -> None:
    log = _noetic_calls([("started", data), ("completed", data), ("started", data), ("completed", data)])
    episode = import_noetic(log, runs_dir=tmp_path)
    run, tools = _frames(tmp_path)
    assert tools["tool"].tolist() == ["noetic.fetch", "noetic.fetch"]
    assert tools["status"].tolist() == ["succeeded", "succeeded"]
    assert run["tool_calls"] == 2 and run["waiting_s"] == 0.0
    assert check_run(tmp_path / episode) == []


def test_a_second_call_by_name_before_the_first_ends_says_unknown(tmp_path: Path) -> None:
    data = {"toolName": "fetch"}  # two started before either completed: which result is whose cannot be told
    log = _noetic_calls([("started", data), ("started", data), ("completed", data), ("completed", data)])
    episode = import_noetic(log, runs_dir=tmp_path)
    run, _ = _frames(tmp_path)
    assert pd.isna(run["tool_calls"])
    assert check_run(tmp_path / episode) == []
