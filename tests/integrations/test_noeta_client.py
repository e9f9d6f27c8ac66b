"""Noeta: a real ``noeta.sdk.Client`` with ``FakeLLMProvider`` (offline), approvals through the buttons."""

from __future__ import annotations

import json
import sys

import pytest

from noesis_nb.integrations import MissingExtraError
from noesis_nb.store import verify_manifest

from .helpers import disk_events, from_source, names, run, run_tags

noeta_sdk = pytest.importorskip("noeta.sdk")
from noeta.sdk import LLMResponse, Options, TextBlock, ToolResult, ToolUseBlock, Usage, tool  # noqa: E402
from noeta.sdk.testing import FakeLLMProvider  # noqa: E402

from noesis_nb.integrations.noeta import NoetaAdapter  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")  # ripgrep absent: Noeta's Grep/Glob warn


@tool(
    name="delete_file",
    version="1",
    risk_level="high",
    input_schema={"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
)
def delete_file(arguments, ctx):
    return ToolResult(success=True, output=f"deleted {arguments['path']}")


def gated_adapter(tmp_path, **kw):
    provider = FakeLLMProvider(
        responses=[
            LLMResponse(
                stop_reason="tool_use",
                content=[ToolUseBlock(call_id="d1", tool_name="delete_file", arguments={"path": "x.txt"})],
                usage=Usage(uncached=10, cache_read=5, output=3),
            ),
            LLMResponse(stop_reason="end_turn", content=[TextBlock(text="Done.")], usage=Usage(uncached=12, output=2)),
        ]
    )
    options = Options(
        system_prompt="You delete files when asked.", name="gated", allowed_tools=(delete_file,), permission_mode="default"
    )
    return NoetaAdapter(options, provider=provider, model="claude-sonnet-5", workspace_dir=tmp_path, **kw)


def test_approval_request_becomes_one_pending_draft_and_approve_resumes(runs_dir, tmp_path):
    handle, pending = run("delete x.txt", gated_adapter(tmp_path), runs_dir, decide="approve")
    assert handle.status == "ok" and handle.result() == "Done."
    assert len(pending) == 1 and pending[0].tool == "noeta.delete_file"
    assert pending[0].redacted_payload["kwargs"]["arguments"] == {"path": "x.txt"}
    events = disk_events(handle)
    noeta_events = [e["payload"] for e in from_source(events, "noeta")]
    resolved = next(p for p in noeta_events if p["event_name"] == "noeta.ToolCallApprovalResolved")
    assert resolved["approved"] is True and resolved["resolver"] == "noesis_nb"
    assert any(p["event_name"] == "noeta.ToolResultRecorded" for p in noeta_events)
    assert [p["kind"] for p in noeta_events if p["kind"] in ("run_finished", "messages_projection")] == [
        "run_finished",
        "messages_projection",
    ]
    models = [e["payload"] for e in events if e["phase"] == "model"]
    assert sum(m["input_tokens"] for m in models) == 27 and sum(m["cached_input_tokens"] for m in models) == 5
    assert sum(m["output_tokens"] for m in models) == 5
    assert sum(m["cost_usd"] for m in models) == pytest.approx(1.425e-4)
    messages = json.loads((handle.run_dir / "x-noeta" / "messages.json").read_text())["messages"]
    assert messages[0]["text"] == "delete x.txt" and messages[-1]["answer"] == "Done."
    assert run_tags(handle) == {"source": "noeta"} and verify_manifest(handle.run_dir).ok


def test_reject_calls_deny_with_the_reason(runs_dir, tmp_path):
    handle, _ = run("delete x.txt", gated_adapter(tmp_path), runs_dir, decide="reject", reason="keep it")
    assert handle.status == "ok"
    payloads = [e["payload"] for e in from_source(disk_events(handle), "noeta")]
    resolved = next(p for p in payloads if p["event_name"] == "noeta.ToolCallApprovalResolved")
    assert resolved["approved"] is False and resolved["reason"] == "keep it"
    assert not any(p["event_name"] == "noeta.ToolResultRecorded" and p.get("success") for p in payloads)
    assert "tool.rejected.governance" in names(disk_events(handle))


def test_auto_approver_needs_no_human(runs_dir, tmp_path):
    handle, _ = run("delete x.txt", gated_adapter(tmp_path), runs_dir, approver="auto")
    assert handle.result() == "Done."


def test_a_failed_task_fails_the_episode_with_its_detail(runs_dir, tmp_path):
    def boom(request):
        raise RuntimeError("provider exploded")

    adapter = NoetaAdapter(
        Options(system_prompt="s", name="n"),
        provider=FakeLLMProvider(responder=boom),
        model="claude-sonnet-5",
        workspace_dir=tmp_path,
    )
    handle, _ = run("hi", adapter, runs_dir)
    assert handle.status == "error"
    with pytest.raises(Exception, match="llm_error: provider exploded"):
        handle.result()


def test_options_errors_and_missing_extra(monkeypatch):
    with pytest.raises(ValueError, match="needs Options and a provider"):
        NoetaAdapter(Options(system_prompt="s"))
    monkeypatch.setitem(sys.modules, "noeta.sdk", None)
    with pytest.raises(MissingExtraError, match=r"pip install 'noesis_nb\[noeta\]'"):
        NoetaAdapter(Options(system_prompt="s"), provider=object())
