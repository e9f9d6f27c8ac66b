"""Step grouping: real runs of the engine grouped into steps, and generated event streams (hypothesis)."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import noesis_nb
from noesis_nb.errors import ToolRejected
from noesis_nb.store import read_events
from noesis_nb.store.vocab import TOOL_APPROVAL_PENDING, TOOL_EXECUTION_SUCCEEDED, TOOL_REQUESTED
from noesis_nb.widgets.steps import StepBook, group_steps
from noesis_nb.widgets.stepview import StepFacts, summary_html


def names(step: Any) -> list[str]:
    return [str((e.get("payload") or {}).get("event_name") or e.get("event_type") or e["phase"]) for e in step.events]


def run_with_tool(runs_dir: Path, *, approver: str = "auto") -> list[dict[str, Any]]:
    async def agent(task: str, ctx: Any) -> Any:
        ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=1850, output_tokens=240, latency_ms=812)
        ctx.emit("reason", {"text": "tagging needs approval"})
        out = await ctx.tool_async("git.tag@1", {"argv": [sys.executable, "-c", "print('tagged')"]}, effect="write", risk="high")
        ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=2100, output_tokens=60)
        return out["returncode"]

    episode = noesis_nb.solve("tag", using=agent, runs_dir=runs_dir, approver=approver)
    if approver == "ask":
        noesis_nb.approve_draft(episode, runs_dir=runs_dir, approver_id="ana")
        noesis_nb.resume_run(episode, runs_dir=runs_dir)
    return read_events(runs_dir / episode / "events.jsonl")


def test_a_tool_call_is_one_step_with_its_contract_events_in_order(runs_dir: Path) -> None:
    events = run_with_tool(runs_dir, approver="ask")  # paused on disk, approved, resumed by another call
    steps = group_steps(events)
    # resume_run executes the approved draft and seals the run (the adapter does not run again)
    assert [s.kind for s in steps] == ["opening", "model", "event", "tool", "closing"]
    tool = steps[3]
    request = tool.events[0]["payload"]["request_id"]
    in_order = [e for e in events if (e.get("payload") or {}).get("request_id") == request]
    assert [e for e in tool.events if (e.get("payload") or {}).get("request_id") == request] == in_order
    assert [e["id"] for e in tool.events] == sorted((e["id"] for e in tool.events), key=[x["id"] for x in events].index)
    got = names(tool)
    assert got[0] == TOOL_REQUESTED and got[-1] == TOOL_EXECUTION_SUCCEEDED
    assert got.index(TOOL_APPROVAL_PENDING) < got.index("run.interrupt") < got.index("run.resume")  # the pause inside it
    assert tool.state == "succeeded" and tool.flag() is None and tool.draft_id
    assert sum(len(s.events) for s in steps) == len(events)  # every event in exactly one step


def test_a_model_call_carries_its_usage_on_its_step(runs_dir: Path) -> None:
    steps = group_steps(run_with_tool(runs_dir))
    first_model = next(s for s in steps if s.kind == "model")
    html = summary_html(first_model, StepFacts(price=lambda payload: 0.000421))
    assert "gpt-4o-mini</b> (openai)" in html and "1,850 in" in html and "240 out" in html
    assert "$0.0004" in html and "812 ms" in html
    unknown = summary_html(first_model, StepFacts())
    assert "$" not in unknown  # no price: no cost, never $0


def test_a_pending_tool_stands_out_then_reads_as_decided(runs_dir: Path) -> None:
    events = run_with_tool(runs_dir, approver="ask")
    cut = next(i for i, e in enumerate(events) if e.get("event_type") == "run.checkpoint") + 1
    book = StepBook()
    book.add(events[:cut])
    tool = next(s for s in book.steps if s.kind == "tool")
    assert tool.flag() == "pause" and "waiting for approval" in summary_html(tool)
    changed = book.add(events[cut:])
    assert tool in changed and tool.flag() is None
    decided = StepFacts(decisions={tool.draft_id: {"status": "approved", "approver_id": "ana"}})
    assert "approved by ana" in summary_html(tool, decided) and "ran " in summary_html(tool, decided)


def test_a_veto_pause_and_its_override_are_one_governance_step(runs_dir: Path) -> None:
    import noesis_nb.ns as ns

    ns.set(runs_dir=str(runs_dir), governance_pause_on_veto=True)

    def janitor(task: str) -> str:
        return f"done: {task}"

    episode = ns.solve("wipe the build cache", using=janitor, governance="enforce")
    paused = group_steps(read_events(runs_dir / episode / "events.jsonl"))
    assert [s.kind for s in paused] == ["opening", "governance"]
    assert paused[1].flag() == "pause" and names(paused[1]) == ["governance", "run.interrupt", "run.checkpoint"]
    ns.resume_run(episode, using=janitor)
    steps = group_steps(read_events(runs_dir / episode / "events.jsonl"))
    governance = steps[1]
    assert names(governance)[:5] == ["governance", "run.interrupt", "run.checkpoint", "run.resume", "action_candidate"]
    assert names(governance)[5] == "governance" and governance.flag() == "veto"  # the veto stays visible
    line = summary_html(governance)  # no decision file: resuming the run was the go-ahead, and nobody is named
    assert "overridden by resuming the run (no approver named)" in line and "resume_run" not in line
    assert steps[-1].kind == "closing"


# -- generated streams -------------------------------------------------------------------------
def _tool_events(request: str, *, paused: bool) -> list[dict[str, Any]]:
    seq = [TOOL_REQUESTED, "tool.validated", "tool.authn.passed", "tool.authz.passed", "tool.draft_created"]
    seq += [TOOL_APPROVAL_PENDING, "tool.approved"] if paused else []
    seq += ["tool.execution.started", TOOL_EXECUTION_SUCCEEDED]
    return [{"phase": "tool", "payload": {"event_name": n, "request_id": request, "tool": "t"}} for n in seq]


@st.composite
def streams(draw: Any) -> tuple[list[dict[str, Any]], dict[str, list[int]]]:
    """Tool calls (some overlapping) interleaved with model calls and adapter events; ids record the order."""
    calls = draw(st.integers(min_value=0, max_value=5))
    queues = [_tool_events(f"req_{i}", paused=draw(st.booleans())) for i in range(calls)]
    others = draw(st.lists(st.sampled_from(["model", "reason", "integration"]), max_size=12))
    events: list[dict[str, Any]] = []
    while any(queues) or others:
        pick = draw(st.integers(min_value=0, max_value=len(queues)))
        if pick < len(queues) and queues[pick]:
            events.append(queues[pick].pop(0))
        elif others:
            phase = others.pop(0)
            payload = (
                {"event_name": "model.call", "model": "m", "input_tokens": 5, "output_tokens": 1} if phase == "model" else {}
            )
            events.append({"phase": phase, "payload": payload})
        else:
            events.append(next(q for q in queues if q).pop(0))
    for i, event in enumerate(events):
        event["id"] = f"e{i}"
    order: dict[str, list[int]] = {}
    for i, event in enumerate(events):
        request = event["payload"].get("request_id")
        if request:
            order.setdefault(request, []).append(i)
    return events, order


@settings(max_examples=150, deadline=None)
@given(streams(), st.integers(min_value=1, max_value=7))
def test_generated_streams_group_each_tool_call_in_order(stream: Any, batch: int) -> None:
    events, order = stream
    book = StepBook(keep=10_000)
    for start in range(0, len(events), batch):  # as a live view gets them: in batches
        book.add(events[start : start + batch])
    steps = list(book.steps)
    tools = {s.key: s for s in steps if s.kind == "tool"}
    assert set(tools) == set(order)
    for request, indices in order.items():
        assert [e["id"] for e in tools[request].events] == [f"e{i}" for i in indices]  # all of it, in order
        assert tools[request].state == "succeeded"
    models = [s for s in steps if s.kind == "model"]
    assert all(len(s.events) == 1 and s.events[0]["payload"]["input_tokens"] == 5 for s in models)
    assert sorted(e["id"] for s in steps for e in s.events) == sorted(e["id"] for e in events)
    assert [s.index for s in steps] == sorted(s.index for s in steps)


def test_the_book_keeps_only_the_newest_steps() -> None:
    book = StepBook(keep=5)
    changed = book.add([{"id": f"e{i}", "phase": "reason", "payload": {"i": i}} for i in range(100)])
    assert len(changed) == 100 and book.total == 100 and [s.index for s in book.steps] == [95, 96, 97, 98, 99]


def test_a_failed_and_a_rejected_tool_are_flagged(runs_dir: Path) -> None:
    async def agent(task: str, ctx: Any) -> Any:
        try:
            await ctx.tool_async("fs.rm", {"argv": [sys.executable, "-c", "pass"]}, effect="write", risk="high")
        except ToolRejected:
            pass
        return await ctx.tool_async("fs.fail", {"argv": [sys.executable, "-c", "import sys; sys.exit(3)"]})

    episode = noesis_nb.solve("two tools", using=agent, runs_dir=runs_dir, approver="deny")
    tools = [s for s in group_steps(read_events(runs_dir / episode / "events.jsonl")) if s.kind == "tool"]
    assert [(t.state, t.flag()) for t in tools] == [("rejected", "veto"), ("failed", "error")]
    assert "rejected" in summary_html(tools[0]) and "failed" in summary_html(tools[1])


def test_a_call_the_tool_contract_refuses_reads_as_refused_with_its_reason_not_as_rejected(runs_dir: Path) -> None:
    def agent(task: str, ctx: Any) -> Any:  # a field the subprocess protocol does not have: refused before anyone is asked
        return ctx.tool("shell.run", {"argv": ["true"], "note": "typo"}, effect="write", risk="high")

    episode = noesis_nb.solve("refused", using=agent, runs_dir=runs_dir, approver="ask")
    events = read_events(runs_dir / episode / "events.jsonl")
    [refusal] = [e for e in events if (e.get("payload") or {}).get("event_name") == "tool.rejected.invalid"]
    [tool] = [s for s in group_steps(events) if s.kind == "tool"]
    text = re.sub(r"<[^>]+>", "", summary_html(tool, StepFacts()))
    assert "rejected" not in text, text  # nobody rejected it: no person, no policy was asked
    assert f"refused by the tool contract: {refusal['payload']['reason_code']}" in text, text
