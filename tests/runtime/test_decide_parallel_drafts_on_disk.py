"""A decision without ``draft_id`` on a run paused on several parallel drafts (``asyncio.gather`` of
``ctx.tool_async``): "the draft" is the one left undecided; several undecided refuse it, naming each.

``approve_draft(ep)`` approved the first of three drafts, unsaid: the other two stayed pending and the user, told
nothing, resumed a run that then refused to continue (or, read as "approved", waited for nothing)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.errors import AmbiguousDraftError


async def _agent(task: str, ctx: Any) -> list[int]:
    calls = [ctx.tool_async(f"fs.w{i}", {"argv": ["echo", f"w{i}"]}, effect="write", risk="high") for i in range(3)]
    return [out["returncode"] for out in await asyncio.gather(*calls)]


def _statuses(run: Path) -> dict[str, Any]:
    frame = noesis_nb.tools_df(run)
    return dict(zip(frame["tool"], frame["status"]))


@pytest.mark.parametrize("decide", [noesis_nb.approve_draft, noesis_nb.reject_draft])
def test_several_undecided_drafts_refuse_a_decision_without_draft_id(runs_dir: Path, decide: Any) -> None:
    episode = noesis_nb.solve("three writes", using=_agent, runs_dir=runs_dir, approver="ask")
    run = runs_dir / episode
    before = _statuses(run)
    with pytest.raises(AmbiguousDraftError) as raised:
        decide(run, approver_id="ana")
    message = str(raised.value)
    assert all(f"fs.w{i}" in message for i in range(3)) and "draft_id=" in message, message
    assert _statuses(run) == before  # nothing decided


def test_the_one_draft_left_undecided_is_the_one_decided(runs_dir: Path) -> None:
    episode = noesis_nb.solve("three writes", using=_agent, runs_dir=runs_dir, approver="ask")
    run = runs_dir / episode
    drafts = {p.tool: p.draft_id for p in noesis_nb.show(run).source.pending}
    noesis_nb.approve_draft(run, draft_id=drafts["fs.w0"], approver_id="ana")
    noesis_nb.reject_draft(run, draft_id=drafts["fs.w2"], approver_id="ana", reason="not this one")
    decision = noesis_nb.approve_draft(run, approver_id="bo")  # the one left: fs.w1, not the first paused on
    assert decision.draft_id == drafts["fs.w1"] and decision.status == "approved" and decision.approver_id == "bo"
    noesis_nb.resume_run(run)
    frame = noesis_nb.tools_df(run)
    assert dict(zip(frame["tool"], frame["approver_id"])) == {"fs.w0": "ana", "fs.w1": "bo", "fs.w2": "ana"}


def test_every_reader_counts_each_parallel_draft_waiting(runs_dir: Path) -> None:
    """A run paused on three parallel drafts holds one pending_approval record (as Noēsis reads a paused run) and
    two held ``prepared``: runs_df's ``pending_approvals`` counted 1 while tools_df, the view and the inbox said 3."""
    episode = noesis_nb.solve("three writes", using=_agent, runs_dir=runs_dir, approver="ask")
    run = runs_dir / episode
    waiting = len(noesis_nb.show(run).source.pending)
    assert waiting == 3 and (noesis_nb.tools_df(run)["status"] == "pending").sum() == 3
    for frame in (noesis_nb.runs_df(runs_dir), noesis_nb.runs_df(runs_dir)):  # cold, then warm
        assert frame.set_index("episode_id").loc[episode, "pending_approvals"] == waiting
    drafts = {p.tool: p.draft_id for p in noesis_nb.show(run).source.pending}
    noesis_nb.approve_draft(run, draft_id=drafts["fs.w1"], approver_id="ana")
    assert noesis_nb.runs_df(runs_dir).set_index("episode_id").loc[episode, "pending_approvals"] == 2


def test_a_resume_refused_for_the_draft_paused_on_writes_nothing(runs_dir: Path) -> None:
    """The two drafts asked beside the one paused on are approved, that one not: resume_run refused, saying
    "nothing ran or was written now", after it had paused on the other two (two interrupts and checkpoints) and
    made an approved draft the run's pending_approval record, the undecided one held."""
    from noesis_nb.tools.errors import ApprovalDecisionRequiredError
    from tests.run_snapshot import snapshot

    episode = noesis_nb.solve("three writes", using=_agent, runs_dir=runs_dir, approver="ask")
    run = runs_dir / episode
    drafts = {p.tool: p.draft_id for p in noesis_nb.show(run).source.pending}
    for tool in ("fs.w1", "fs.w2"):
        noesis_nb.approve_draft(run, draft_id=drafts[tool], approver_id="ana")
    before = snapshot(run)
    with pytest.raises(ApprovalDecisionRequiredError, match=r"nothing ran or was written now") as refused:
        noesis_nb.resume_run(run)
    assert drafts["fs.w0"] in str(refused.value)
    assert snapshot(run) == before
    decision = noesis_nb.approve_draft(run, approver_id="bo")  # the one left
    assert decision.draft_id == drafts["fs.w0"]
    noesis_nb.resume_run(run)
    assert noesis_nb.tools_df(run)["status"].tolist() == ["succeeded"] * 3


_LIVE_THEN_KILLED = """
import asyncio, os, sys
import noesis_nb

async def agent(task, ctx):
    calls = [ctx.tool_async(f"fs.w{i}", {"argv": ["echo", f"w{i}"]}, effect="write", risk="high") for i in range(3)]
    return [out["returncode"] for out in await asyncio.gather(*calls)]

async def main():
    handle = noesis_nb.start("three", using=agent, runs_dir=sys.argv[1], approver="ask")
    for _ in range(600):
        await asyncio.sleep(0.05)
        if len(handle.pending) == 3:
            break
    first = next(p for p in handle.pending if p.tool == "fs.w0")
    handle.approve(first.draft_id, approver_id="ana")
    for _ in range(600):  # its tool ran: the episode waits on the other two, in this process
        await asyncio.sleep(0.05)
        if any(e["payload"].get("event_name") == "tool.execution.succeeded" for e in handle.events):
            break
    os._exit(9)

asyncio.run(main())
"""


def test_a_decision_without_draft_id_on_a_lost_run_still_waiting_on_two_drafts_is_refused(runs_dir: Path) -> None:
    """A live episode approved one of three parallel drafts, ran it, and died waiting on the other two: a decision
    naming no draft returned the first draft's old decision (created=False) and decided nothing, unsaid."""
    import subprocess
    import sys

    runs_dir.mkdir(parents=True, exist_ok=True)
    done = subprocess.run([sys.executable, "-c", _LIVE_THEN_KILLED, str(runs_dir)], timeout=120)
    assert done.returncode == 9
    (run,) = runs_dir.glob("ep_*")
    waiting = {p.tool: p.draft_id for p in noesis_nb.show(run).source.pending}
    assert sorted(waiting) == ["fs.w1", "fs.w2"]
    with pytest.raises(AmbiguousDraftError) as refused:
        noesis_nb.approve_draft(run, approver_id="bo")
    assert all(draft in str(refused.value) for draft in waiting.values()) and str(run) in str(refused.value)
    noesis_nb.approve_draft(run, draft_id=waiting["fs.w1"], approver_id="bo")
    assert noesis_nb.reject_draft(run, approver_id="bo").draft_id == waiting["fs.w2"]  # the one left


def test_the_magic_names_its_own_commands_for_several_waiting_drafts(runs_dir: Path) -> None:
    """``%noesis approve EP --resume`` on a run waiting on three drafts said the Python call (``pass draft_id=``)."""
    from IPython.core.error import UsageError

    from tests.ipshell import run_magic

    episode = noesis_nb.solve("three writes", using=_agent, runs_dir=runs_dir, approver="ask")
    with pytest.raises(UsageError) as refused:
        run_magic(f"approve {episode} --runs-dir {runs_dir} --resume")
    said = str(refused.value)
    assert "draft_id=" not in said and f"%noesis approve {runs_dir / episode} <draft id>" in said, said
    assert f"then %noesis resume {runs_dir / episode}" in said, said
