"""A run pauses on one tool draft at a time, and every tool that needed approval runs after its own pause.

An approval a policy decides (``approver="auto"``, ``"deny"``, a callable) is paused on as a person's is
(interrupt → checkpoint → decision → resume, marked the policy's), so Noēsis' tool-bridge lineage holds; the
readers count that pause as the policy's: no wait for a person, no pause in the view. Parallel drafts waiting for
people take turns: one ``pending_approval`` record and one open pause at any moment, the others held yet decidable.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.errors import ToolRejected
from noesis_nb.runtime.recorder import artifact_digest
from noesis_nb.store import read_events
from noesis_nb.store.layout import PREPARED_DIRS
from noesis_nb.widgets.render import event_flag
from noesis_nb.widgets.state import Tally
from noesis_nb.widgets.steps import StepBook
from tests.compat.checker import check_run

_LIFECYCLE = ("run.interrupt", "run.checkpoint", "run.resume")


def _note(text: str) -> str:
    return text


def _notes(*names: str, parallel: bool = False) -> Any:
    """An adapter writing one note per name with a tool that needs approval (in turn, or all at once)."""

    async def call(ctx: Any, name: str) -> Any:
        try:
            return await ctx.tool_async(
                f"notes.{name}", {"args": [name]}, protocol="python", fn=_note, effect="write", risk="high"
            )
        except ToolRejected:
            return None

    async def agent(task: str, ctx: Any) -> Any:
        if parallel:
            return await asyncio.gather(*(call(ctx, name) for name in names))
        return [await call(ctx, name) for name in names]

    return agent


def _reviewer(pending: Any) -> bool:
    return True


def _lifecycle(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in events if e.get("event_type") in _LIFECYCLE]


def _pending_records(run: Path) -> list[str]:
    """The drafts whose record is ``pending_approval`` (Noēsis' folder and the python tools' one)."""
    docs = [json.loads(p.read_text()) for sub in PREPARED_DIRS for p in (run / "tool_invocations" / sub).glob("*.json")]
    return [d["draft_id"] for d in docs if d["status"] == "pending_approval"]


@pytest.mark.parametrize("approver", ["auto", "deny", _reviewer], ids=["auto", "deny", "callable"])
def test_a_policy_decision_is_paused_on_and_counted_the_policys(runs_dir: Path, approver: Any) -> None:
    episode_id = noesis_nb.solve("write two notes", using=_notes("a", "b"), runs_dir=runs_dir, approver=approver)
    run = runs_dir / episode_id
    assert check_run(run) == []  # every started tool's §5 chain runs through its resume, checkpoint and interrupt
    events = read_events(run / "events.jsonl")
    pauses = _lifecycle(events)
    assert [e["event_type"] for e in pauses] == list(_LIFECYCLE) * 2
    policy = "policy:" + (approver if isinstance(approver, str) else "_reviewer")
    assert {e["payload"]["decided_by_policy"] for e in pauses} == {policy}
    assert all(policy in e["payload"]["reason"] for e in pauses if e["event_type"] == "run.interrupt")
    for resume in (e for e in pauses if e["event_type"] == "run.resume"):  # the decision is on disk before the resume
        checkpoint = next(e for e in events if e["id"] == resume["caused_by"])
        interrupt = next(e for e in events if e["id"] == checkpoint["caused_by"])
        draft = next(e for e in events if e["id"] == interrupt["caused_by"])["payload"]["draft_id"]
        decision = json.loads((run / "tool_invocations" / "approvals" / f"{draft}.json").read_text())
        assert checkpoint["timestamp"] <= decision["decided_at"] <= resume["timestamp"]
        assert decision["approver_id"] == policy

    # what a user reads: nobody waited, nothing paused, nothing pending
    row = noesis_nb.runs_df(runs_dir).set_index("episode_id").loc[episode_id]
    assert row["status"] in {"ok", "vetoed"} and row["waiting_s"] == 0.0 and row["pending_approvals"] == 0
    tally, book = Tally(), StepBook()
    for event in events:  # one at a time, as the live view gets them
        tally.extend([event])
        book.add([event])
        assert tally.clock.paused_since is None and tally.flags["pause"] == 0
        assert not any(step.paused for step in book.steps)
    assert tally.clock.waited == 0.0
    assert [event_flag(e) for e in pauses] == [None] * len(pauses)
    figure = noesis_nb.plots.episode_timeline(noesis_nb.events_df(run))
    assert not {t.name for t in figure.data} & {"interrupt", "paused (checkpoint)", "resumed"}


def test_a_persons_pause_is_still_counted_as_a_wait(runs_dir: Path) -> None:
    """The same readers on a pause a person decided: it is one, with its wait."""
    episode_id = noesis_nb.solve("write a note", using=_notes("a"), runs_dir=runs_dir, approver="ask")
    run = runs_dir / episode_id
    (record,) = [json.loads(p.read_text()) for p in (run / "checkpoints").glob("*/checkpoint.json")]
    # the checkpoint's digest of events.jsonl came from the writer's running sha256: the same as reading the file
    assert record["artifact_manifest_hash"] == artifact_digest(run, record["event_offset"])
    noesis_nb.approve_draft(run, approver_id="ana")
    noesis_nb.resume_run(run)
    events = read_events(run / "events.jsonl")
    assert not any("decided_by_policy" in e["payload"] for e in _lifecycle(events))
    tally = Tally()
    tally.extend(events)
    assert tally.flags["pause"] == 1 and tally.clock.waited > 0
    assert noesis_nb.runs_df(runs_dir).set_index("episode_id").loc[episode_id, "waiting_s"] > 0
    assert "pause" in [event_flag(e) for e in _lifecycle(events)]


def test_parallel_drafts_pause_one_at_a_time_and_are_decided_in_reverse(runs_dir: Path) -> None:
    """Two drafts awaited together in a live episode: one pause on disk, the other held yet decidable at once;
    decided in reverse order, each gets its own pause when its turn comes, and both run once."""
    pending_counts: list[int] = []
    opened: list[str] = []  # interrupt/resume in the order written: never two interrupts without a resume between

    async def main() -> None:
        handle = noesis_nb.start("two notes at once", _notes("a", "b", parallel=True), runs_dir=runs_dir, approver="ask")

        def watch(event: dict[str, Any]) -> None:
            pending_counts.append(len(_pending_records(handle.run_dir)))
            if event.get("event_type") in ("run.interrupt", "run.resume"):
                opened.append(event["event_type"])

        handle.subscribe(watch)
        await handle
        run = handle.run_dir
        assert handle.status == "paused" and len(handle.pending) == 2
        events = read_events(run / "events.jsonl")
        asked = [e["payload"]["draft_id"] for e in events if e["payload"].get("event_name") == "tool.approval.pending"]
        assert len(asked) == 2 and _pending_records(run) == [asked[0]]  # the second is held from its first write
        assert [e["event_type"] for e in _lifecycle(events)] == ["run.interrupt", "run.checkpoint"]
        assert check_run(run) == []  # a paused run Noēsis resumes: one pause, one pending draft

        handle.approve(asked[1], approver_id="ana")  # the held one first: its decision is on disk at once
        assert (run / "tool_invocations" / "approvals" / f"{asked[1]}.json").is_file()
        assert handle.status == "paused" and [p.draft_id for p in handle.pending] == [asked[0]]
        handle.approve(asked[0], approver_id="ana")
        await asyncio.wait_for(handle.wait(), 30)
        assert handle.status == "ok" and handle.result() == [{"result": "a"}, {"result": "b"}]

    asyncio.run(main())
    (run,) = runs_dir.glob("ep_*")
    assert check_run(run) == []  # both tools' §5 chains, one pending at a time, no interrupt while paused
    events = read_events(run / "events.jsonl")
    assert [e["event_type"] for e in _lifecycle(events)] == list(_LIFECYCLE) * 2
    assert opened == ["run.interrupt", "run.resume"] * 2
    assert max(pending_counts) == 1
    started = [e for e in events if e["payload"].get("event_name") == "tool.execution.started"]
    assert len(started) == 2


def test_a_policys_pause_is_written_without_fsync(runs_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A pause a policy resolves in the same breath fsyncs nothing of its own (a killed process keeps the page
    cache; only a person's pause must outlive a power loss): beside the same calls needing no approval, each call
    fsyncs only its decision record."""
    import os

    fsyncs = [0]
    real = os.fsync

    def counted(fd: int) -> None:
        fsyncs[0] += 1
        real(fd)

    monkeypatch.setattr(os, "fsync", counted)

    def spent(requires_approval: bool) -> int:
        async def agent(task: str, ctx: Any) -> None:
            for name in ("a", "b", "c"):
                await ctx.tool_async(
                    f"notes.{name}",
                    {"args": [name]},
                    protocol="python",
                    fn=_note,
                    effect="write",
                    risk="high",
                    requires_approval=requires_approval,
                )

        before = fsyncs[0]
        noesis_nb.solve("three notes", using=agent, runs_dir=runs_dir, approver="auto")
        return fsyncs[0] - before

    spent(False)  # the first run in the folder makes what later runs share
    baseline = spent(False)
    assert spent(True) - baseline == 3  # the three decision records
