"""A live episode's tool call given up (its task cancelled, or dropped by ``asyncio.wait_for``) while it waits for an
approval: held behind another draft's pause, its draft is pending in the handle no more; paused on, its draft is
recorded abandoned (never run), its pause resumed saying why, and the draft held behind it pauses in its turn (a run
paused on one draft at a time, as Noēsis resumes it), so that the run stays valid under tests/compat's checker."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.runtime.gate import DecisionStands
from noesis_nb.store import read_events
from noesis_nb.tools import ApprovalDecisionRequiredError
from tests.compat.checker import check_run
from tests.compat.entrypoints import REPO


def _note(text: str) -> str:
    return text


def _call(ctx: Any, name: str) -> Any:
    return ctx.tool_async(f"notes.{name}", {"args": [name]}, protocol="python", fn=_note, effect="write", risk="high")


async def _until(check: Any) -> None:
    for _ in range(400):
        if check():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("timed out waiting")


def _interrupts(run: Path) -> int:
    return sum(e.get("event_type") == "run.interrupt" for e in read_events(run / "events.jsonl"))


def test_a_held_call_given_up_leaves_the_handles_pending(runs_dir: Path) -> None:
    give_up = asyncio.Event()

    async def agent(task: str, ctx: Any) -> Any:
        first = asyncio.ensure_future(_call(ctx, "a"))
        held = asyncio.ensure_future(_call(ctx, "b"))
        await asyncio.sleep(0)
        await give_up.wait()  # the test says when to give b up
        held.cancel()
        return await first

    async def main() -> None:
        handle = noesis_nb.start("two notes", agent, runs_dir=runs_dir, approver="ask")
        await _until(lambda: len(handle.pending) == 2)
        give_up.set()
        await _until(lambda: len(handle.pending) == 1)
        assert [p.tool for p in handle.pending] == ["notes.a"]
        handle.approve(approver_id="ana")
        await asyncio.wait_for(handle.wait(), 30)
        assert handle.status == "ok"

    asyncio.run(main())
    (run,) = runs_dir.iterdir()
    assert check_run(run) == []


def _lifecycle(run: Path) -> list[str]:
    kinds = ("run.interrupt", "run.checkpoint", "run.resume")
    return [e["event_type"] for e in read_events(run / "events.jsonl") if e.get("event_type") in kinds]


def _abandoned(run: Path) -> list[dict[str, Any]]:
    events = read_events(run / "events.jsonl")
    return [e for e in events if e.get("payload", {}).get("event_name") == "tool.approval.abandoned"]


@pytest.mark.parametrize("give_up", ["cancel", "wait_for"])
def test_a_paused_call_given_up_is_abandoned_and_the_next_draft_pauses(runs_dir: Path, give_up: str) -> None:
    """The adapter gives up the call paused on (``task.cancel()``, or ``asyncio.wait_for`` timing out) and goes on:
    its draft is recorded abandoned (never run), its pause resumed saying why, and the draft held behind it pauses."""
    release, gave_up = asyncio.Event(), asyncio.Event()
    written = []

    def _write(text: str) -> str:
        written.append(text)
        return text

    def call(ctx: Any, name: str) -> Any:
        return ctx.tool_async(f"notes.{name}", {"args": [name]}, protocol="python", fn=_write, effect="write", risk="high")

    async def agent(task: str, ctx: Any) -> Any:
        paused = asyncio.ensure_future(call(ctx, "b"))
        held = asyncio.ensure_future(call(ctx, "a"))  # asked second: held behind b's pause
        await release.wait()
        if give_up == "cancel":
            paused.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await paused
        else:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(paused, 0.05)
        gave_up.set()
        return await held

    async def main() -> None:
        handle = noesis_nb.start("two notes", agent, runs_dir=runs_dir, approver="ask")
        await _until(lambda: len(handle.pending) == 2)
        run = handle.run_dir
        (b,) = [p.draft_id for p in handle.pending if p.tool == "notes.b"]
        release.set()
        await asyncio.wait_for(gave_up.wait(), 30)
        await _until(lambda: _interrupts(run) == 2 and handle.status == "paused")  # a paused on, in its turn
        assert [p.tool for p in handle.pending] == ["notes.a"]
        assert _lifecycle(run) == ["run.interrupt", "run.checkpoint", "run.resume", "run.interrupt", "run.checkpoint"]
        assert check_run(run) == []  # paused on a alone
        with pytest.warns(DecisionStands, match=r"rejected by adapter .*gave up the call.*never ran"):
            handle.approve(b, approver_id="ana")  # too late: b was given up
        handle.approve(approver_id="ana")
        await asyncio.wait_for(handle.wait(), 30)
        assert handle.status == "ok"

    asyncio.run(main())
    (run,) = runs_dir.iterdir()
    assert written == ["a"]  # b never ran
    (event,) = _abandoned(run)
    resume = next(e for e in read_events(run / "events.jsonl") if e["id"] == event["caused_by"])
    assert resume["event_type"] == "run.resume" and "gave up the call" in resume["payload"]["reason"]
    decision = json.loads((run / "tool_invocations" / "approvals" / f"{event['payload']['draft_id']}.json").read_text())
    assert (decision["status"], decision["approver_id"]) == ("rejected", "adapter")
    assert check_run(run) == []


_KILLED_AFTER_GIVING_UP = textwrap.dedent(
    """
    import asyncio, contextlib, os, signal, sys
    from noesis_nb.runtime.recorder import Recorder
    real, seen = Recorder.emit, []
    def emit(self, *args, **kwargs):  # kill -9 at the sys.argv[3]-th event named sys.argv[2]
        event = real(self, *args, **kwargs)
        if sys.argv[2] in ((event.get("payload") or {}).get("event_name"), event.get("event_type")):
            seen.append(event)
            if len(seen) == int(sys.argv[3]):
                os.kill(os.getpid(), signal.SIGKILL)
        return event
    Recorder.emit = emit
    import noesis_nb
    from tests.runtime.test_pause_turns_given_up import _note

    def call(ctx, name):
        return ctx.tool_async(f"notes.{name}", {"args": [name]}, protocol="python", fn=_note, effect="write", risk="high")

    async def agent(task, ctx):
        paused = asyncio.ensure_future(call(ctx, "b"))
        held = asyncio.ensure_future(call(ctx, "a"))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(paused, 0.05)
        return await held

    async def main():
        handle = noesis_nb.start("two notes", agent, runs_dir=sys.argv[1], approver="ask")
        await handle
        await asyncio.sleep(60)

    asyncio.run(main())
    """
)


@pytest.mark.parametrize("kill_at", ["tool.approval.abandoned", "run.checkpoint"])
def test_a_run_killed_after_a_paused_call_was_given_up_is_resumed_without_it(runs_dir: Path, kill_at: str) -> None:
    """Killed (SIGKILL) right after its draft was recorded abandoned, or once the next draft paused: ``resume_run``
    never runs the abandoned draft; the next one, paused on, runs once approved; the run passes the checker."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    nth = "2" if kill_at == "run.checkpoint" else "1"  # the second checkpoint: a's, in its turn
    argv = [sys.executable, "-c", _KILLED_AFTER_GIVING_UP, str(runs_dir), kill_at, nth]
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == -signal.SIGKILL, done.stderr[-2000:]
    (run,) = runs_dir.iterdir()
    assert len(_abandoned(run)) == 1
    (b,) = [d["payload"]["draft_id"] for d in _abandoned(run)]
    if kill_at == "run.checkpoint":  # paused on a: a valid paused run
        assert _interrupts(run) == 2
        assert check_run(run) == []
    else:  # a, asked and held, waits for its decision: b is no draft to decide any more
        with pytest.raises(ApprovalDecisionRequiredError) as refused:
            noesis_nb.resume_run(run.name, runs_dir=runs_dir)
        assert "has no decision yet" in str(refused.value) and b not in str(refused.value)
    asked = [e["payload"].get("draft_id") for e in read_events(run / "events.jsonl") if e.get("phase") == "tool"]
    (a,) = {d for d in asked if d is not None and d != b}
    noesis_nb.approve_draft(run, a, approver_id="ana")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        noesis_nb.resume_run(run.name, runs_dir=runs_dir)
    events = read_events(run / "events.jsonl")
    started = [e["payload"]["draft_id"] for e in events if e.get("payload", {}).get("event_name") == "tool.execution.started"]
    assert started == [a]  # once; b never ran
    assert json.loads((run / "final.json").read_text())["outcome"] == "success"
    assert check_run(run) == []


_KILLED_AFTER_GIVING_UP_A_HELD_CALL = textwrap.dedent(
    """
    import asyncio, contextlib, os, signal, sys
    import noesis_nb
    from tests.runtime.test_pause_turns_given_up import _note

    go = asyncio.Event()

    def call(ctx, name):
        return ctx.tool_async(f"notes.{name}", {"args": [name]}, protocol="python", fn=_note, effect="write", risk="high")

    async def agent(task, ctx):
        paused = asyncio.ensure_future(call(ctx, "a"))
        held = asyncio.ensure_future(call(ctx, "b"))  # held behind a's pause
        await go.wait()
        held.cancel()  # the adapter gives b up, and is killed while still paused on a
        with contextlib.suppress(asyncio.CancelledError):
            await held
        os.kill(os.getpid(), signal.SIGKILL)
        return await paused

    async def main():
        handle = noesis_nb.start("two notes", agent, runs_dir=sys.argv[1], approver="ask")
        while len(handle.pending) < 2:
            await asyncio.sleep(0.01)
        if sys.argv[2] == "approved":  # a person approves b while it is held
            handle.approve([p.draft_id for p in handle.pending if p.tool == "notes.b"][0], approver_id="ana")
        go.set()
        await asyncio.sleep(60)

    asyncio.run(main())
    """
)


@pytest.mark.parametrize("b_decided", ["undecided", "approved"])
def test_a_held_call_given_up_is_abandoned_on_disk_and_never_resumed(runs_dir: Path, b_decided: str) -> None:
    """A draft held behind another's pause whose call the adapter gives up is recorded abandoned on disk (rejected by
    the adapter unless a person decided it first): after a SIGKILL while paused on the other draft, approving that one
    and ``resume_run`` never runs (nor pauses on) the draft given up."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    argv = [sys.executable, "-c", _KILLED_AFTER_GIVING_UP_A_HELD_CALL, str(runs_dir), b_decided]
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == -signal.SIGKILL, done.stderr[-2000:]
    (run,) = runs_dir.iterdir()
    (event,) = _abandoned(run)
    b = event["payload"]["draft_id"]
    decision = json.loads((run / "tool_invocations" / "approvals" / f"{b}.json").read_text())
    expected = ("approved", "ana") if b_decided == "approved" else ("rejected", "adapter")
    assert (decision["status"], decision["approver_id"]) == expected
    asked = {e["payload"].get("draft_id") for e in read_events(run / "events.jsonl") if e.get("phase") == "tool"}
    (a,) = asked - {b, None}
    noesis_nb.approve_draft(run, a, approver_id="ana")
    noesis_nb.resume_run(run.name, runs_dir=runs_dir)
    events = read_events(run / "events.jsonl")
    started = [e["payload"]["draft_id"] for e in events if e.get("payload", {}).get("event_name") == "tool.execution.started"]
    assert started == [a]  # b never ran
    assert _interrupts(run) == 1  # nor was paused on
    assert json.loads((run / "final.json").read_text())["outcome"] == "success"
    tools = noesis_nb.tools_df(runs_dir).set_index("draft_id")
    assert tools.loc[b, "status"] == "abandoned" and tools.loc[a, "status"] == "succeeded"
    assert check_run(run) == []


_KILLED_WHILE_ABANDONING = textwrap.dedent(
    """
    import asyncio, contextlib, os, signal, sys
    import noesis_nb
    import noesis_nb.runtime.abandoned as abandoned
    from noesis_nb.runtime.recorder import Recorder
    from tests.runtime.test_pause_turns_given_up import _note

    if sys.argv[2] == "decision":  # killed once the abandonment's decision is written, before its run.resume
        real_decide = abandoned.tc.decide

        def decide(*args, **kwargs):
            made = real_decide(*args, **kwargs)
            os.kill(os.getpid(), signal.SIGKILL)
            return made

        abandoned.tc.decide = decide
    else:  # killed once its run.resume is written too, before tool.approval.abandoned
        real_resume = Recorder.resume_pause

        def resume_pause(self, *args, **kwargs):
            event = real_resume(self, *args, **kwargs)
            if kwargs.get("reason"):
                os.kill(os.getpid(), signal.SIGKILL)
            return event

        Recorder.resume_pause = resume_pause

    async def agent(task, ctx):
        call = ctx.tool_async("notes.a", {"args": ["a"]}, protocol="python", fn=_note, effect="write", risk="high")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(call, 0.05)
        return "went on without a"

    async def main():
        handle = noesis_nb.start("one note", agent, runs_dir=sys.argv[1], approver="ask")
        await handle.wait()

    asyncio.run(main())
    """
)


@pytest.mark.parametrize("killed_after", ["decision", "run.resume"])
def test_a_run_killed_while_recording_an_abandonment_reads_abandoned(runs_dir: Path, killed_after: str) -> None:
    """SIGKILL between the abandonment's writes (its decision, its pause's run.resume, tool.approval.abandoned): the
    draft reads abandoned (tools_df), not rejected by a person, and ``resume_run`` completes the missing writes and
    seals the run as when all three were written (its process lost after the adapter went on), never vetoed."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    argv = [sys.executable, "-c", _KILLED_WHILE_ABANDONING, str(runs_dir), killed_after]
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == -signal.SIGKILL, done.stderr[-2000:]
    (run,) = runs_dir.iterdir()
    assert _abandoned(run) == []  # its process died before writing it
    assert noesis_nb.tools_df(runs_dir)["status"].tolist() == ["abandoned"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        noesis_nb.resume_run(run.name, runs_dir=runs_dir)
    (event,) = _abandoned(run)
    assert event["payload"]["reason_code"] == "tool.call_abandoned"
    resumes = [e for e in read_events(run / "events.jsonl") if e.get("event_type") == "run.resume"]
    assert len(resumes) == 1 and "gave up the call" in resumes[0]["payload"]["reason"]
    final = json.loads((run / "final.json").read_text())
    assert final["outcome"] == "error" and "tool_rejected" not in json.dumps(final)
    summary = json.loads((run / "summary.json").read_text())
    assert summary["status"] == "error" and "process_lost" in json.dumps(summary)
    assert noesis_nb.tools_df(runs_dir)["status"].tolist() == ["abandoned"]
    assert check_run(run) == []
