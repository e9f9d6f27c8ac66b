"""Parallel drafts with an async approver policy in ``solve``: a draft whose policy answers first waits for the one
before it (still with its policy, no pause on disk) instead of unwinding to a pause that does not exist; when a pause
is on disk it stays held behind it. Every run stays valid (tests/compat's checker) and resumable."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import noesis_nb
from noesis_nb.store import read_events
from noesis_nb.widgets.render import event_flag
from noesis_nb.widgets.state import Tally
from tests.compat.checker import check_run


def _note(text: str) -> str:
    return text


async def _two_notes(task: str, ctx: Any) -> Any:
    calls = (ctx.tool_async(f"notes.{n}", {"args": [n]}, protocol="python", fn=_note, effect="write", risk="high") for n in "ab")
    return await asyncio.gather(*calls)


def _policy(a_says: Any, b_says: Any) -> Any:
    """An async policy answering b first, then a (a waits until b's answer is given)."""
    b_answered: asyncio.Event | None = None

    async def policy(pending: Any) -> Any:
        nonlocal b_answered
        b_answered = b_answered or asyncio.Event()
        if pending.tool.endswith(".a"):
            await b_answered.wait()
            return a_says
        b_answered.set()
        return b_says

    return policy


def _names(run: Path) -> list[str]:
    return [e["payload"].get("event_name") or e.get("event_type") for e in read_events(run / "events.jsonl")]


def _decisions(run: Path) -> dict[str, str]:
    return {p.stem: json.loads(p.read_text())["approver_id"] for p in (run / "tool_invocations" / "approvals").glob("*.json")}


def test_a_draft_decided_first_waits_for_the_one_before_it(runs_dir: Path) -> None:
    episode_id = noesis_nb.solve("two notes", using=_two_notes, runs_dir=runs_dir, approver=_policy(True, True))
    run = runs_dir / episode_id
    assert check_run(run) == []
    names = _names(run)
    assert names.count("tool.execution.started") == 2 and names.count("run.resume") == 2
    assert noesis_nb.list_runs(runs_dir=runs_dir)[0]["status"] == "ok"


def _solved_paused(runs_dir: Path, approver: Any) -> Path:
    """The two notes solved with ``approver``, leaving a draft to a person: the run is paused, and valid meanwhile."""
    run = runs_dir / noesis_nb.solve("two notes", using=_two_notes, runs_dir=runs_dir, approver=approver)
    assert check_run(run) == []
    assert noesis_nb.list_runs(runs_dir=runs_dir)[0]["status"] == "paused"
    return run


def _approved_and_resumed(run: Path) -> None:
    """A person approves the draft left to them and resumes: the run stays valid and both notes are written."""
    noesis_nb.approve_draft(run, approver_id="ana")
    noesis_nb.resume_run(run)
    assert check_run(run) == []
    assert _names(run).count("tool.execution.started") == 2


def test_a_draft_its_policy_leaves_to_a_person_pauses_when_its_turn_comes(runs_dir: Path) -> None:
    run = _solved_paused(runs_dir, _policy(True, None))
    names = _names(run)  # a's policy pause resumed, then b's pause open
    assert names.count("run.interrupt") == 2 and names.count("run.resume") == 1
    _approved_and_resumed(run)


def test_a_draft_decided_while_the_one_before_it_pauses_stays_held_decided(runs_dir: Path) -> None:
    run = _solved_paused(runs_dir, _policy(None, True))
    assert list(_decisions(run).values()) == ["policy:policy"]  # b's, on disk, held behind a's pause
    _approved_and_resumed(run)


def _asks_for_a(pending: Any) -> Any:
    return None if pending.tool.endswith(".a") else True


def test_a_held_draft_a_policy_decided_is_paused_on_as_the_policys(runs_dir: Path) -> None:
    """b, decided by the policy while held behind a's pause (a person's), is paused on by resume_run: that pause is
    the policy's (marked so), and the readers count one pause, a's."""
    episode_id = noesis_nb.solve("two notes", using=_two_notes, runs_dir=runs_dir, approver=_asks_for_a)
    run = runs_dir / episode_id
    noesis_nb.approve_draft(run, approver_id="ana")
    noesis_nb.resume_run(run, using=_two_notes)
    assert check_run(run) == []
    events = read_events(run / "events.jsonl")
    pauses = [e for e in events if e.get("event_type") in ("run.interrupt", "run.checkpoint", "run.resume")]
    assert [e["payload"].get("decided_by_policy") for e in pauses] == [None] * 3 + ["policy:_asks_for_a"] * 3
    tally = Tally()
    tally.extend(events)
    assert tally.flags["pause"] == 1
    assert [event_flag(e) for e in pauses] == ["pause", "pause", None, None, None, None]


async def _asks_for_a_later(pending: Any) -> Any:
    """An async policy that answers on its loop's next turn, as a review service asked over the network does."""
    await asyncio.sleep(0)
    return _asks_for_a(pending)


def test_a_policy_answering_after_the_unwinding_pause_leaves_its_draft_held_decided(runs_dir: Path) -> None:
    """a's policy leaves it to a person and a pauses (``solve`` unwinds, waking b's turn) before b's policy answers:
    b took a policy pause of its own on top of a's open one and ran its tool, an invalid run (a second
    run.interrupt while paused). b now stays held behind a's pause, decided, and resume_run pauses on it."""
    episode_id = noesis_nb.solve("two notes", using=_two_notes, runs_dir=runs_dir, approver=_asks_for_a_later)
    run = runs_dir / episode_id
    assert check_run(run) == []
    assert _names(run).count("tool.execution.started") == 0  # nothing ran while a's pause is open
    noesis_nb.approve_draft(run, approver_id="ana")
    noesis_nb.resume_run(run, using=_two_notes)
    assert check_run(run) == []
    events = read_events(run / "events.jsonl")
    pauses = [e for e in events if e.get("event_type") in ("run.interrupt", "run.checkpoint", "run.resume")]
    assert [e["payload"].get("decided_by_policy") for e in pauses] == [None] * 3 + ["policy:_asks_for_a_later"] * 3
