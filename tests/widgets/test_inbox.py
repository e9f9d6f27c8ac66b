"""The approvals inbox against the real engine, without a kernel: clicks are ``Button.click()``."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from IPython.utils.capture import capture_output

import noesis_nb
import noesis_nb.ns as ns
from noesis_nb.errors import InvalidOptionError
from noesis_nb.store import is_sealed, read_summary
from noesis_nb.widgets import InboxView, show

SECRET = "sk-proj-ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcd"


def decisions(run_dir: Path) -> list[dict[str, Any]]:
    return [json.loads(p.read_text()) for p in sorted((run_dir / "tool_invocations" / "approvals").glob("*.json"))]


def writer(marker: Path, *, catch: bool = False) -> Any:
    async def agent(task: str, ctx: Any) -> Any:
        argv = [sys.executable, "-c", f"open({str(marker)!r}, 'a').write('x')", f"--key={SECRET}"]
        try:
            return await ctx.tool_async("fs.append", {"argv": argv}, effect="write", risk="high")
        except Exception as exc:  # ToolRejected
            if catch:
                return f"rejected: {exc}"
            raise

    return agent


def paused_on_disk(runs_dir: Path, marker: Path, n: int) -> list[str]:
    return [noesis_nb.solve(f"task {i} <b>bold</b>", using=writer(marker), runs_dir=runs_dir, approver="ask") for i in range(n)]


def test_approve_one_then_resume_from_the_inbox(runs_dir: Path, tmp_path: Path, nnb: Any, comm_log: list) -> None:
    marker = tmp_path / "effect.txt"
    [ep] = paused_on_disk(runs_dir, marker, 1)

    async def main() -> None:
        inbox = InboxView(runs_dir, approver_id="ana")
        [row] = inbox.rows.values()
        body = row.body.value
        assert ep in body and "fs.append" in body and "write" in body and "high" in body
        assert SECRET not in body and "[REDACTED]" in body  # redacted as the cards do
        assert "<b>bold</b>" not in body and "&lt;b&gt;bold&lt;/b&gt;" in body  # the task is escaped
        assert "1 draft waiting in 1 run" in inbox.header.value
        row.reason.value = "fine"
        row.approve_button.click()
        [decision] = decisions(runs_dir / ep)  # on disk before anything continues
        assert decision["status"] == "approved" and decision["approver_id"] == "ana" and decision["reason"] == "fine"
        assert not marker.exists()  # paused on disk: nothing runs until Resume
        assert "approved</b> by ana" in row.body.value and row.controls.layout.display == "none"
        assert inbox.pending == [] and list(inbox.decided) == [row]
        [resume] = inbox.resume_box.children  # a run paused on disk is offered Resume, as its view offers it
        resume.children[0].click()
        await nnb.until(lambda: is_sealed(runs_dir / ep), timeout=10)
        assert marker.read_text() == "x" and (read_summary(runs_dir / ep) or {}).get("status") == "ok"
        await nnb.until(lambda: not inbox.resume_box.children, timeout=3)
        inbox.close()

    asyncio.run(main())


def test_a_selection_of_two_is_decided_only_after_confirming(runs_dir: Path, tmp_path: Path, comm_log: list) -> None:
    eps = paused_on_disk(runs_dir, tmp_path / "effect.txt", 3)
    inbox = InboxView(runs_dir)
    assert [i.episode_id for i in inbox.pending] == eps  # oldest first
    first, second, third = inbox.rows.values()
    inbox.approve_selected.click()
    assert "tick the rows" in inbox.message.value and inbox.confirm_box.layout.display == "none"
    first.check.value = second.check.value = True
    inbox.approve_selected.click()
    assert inbox.question.value.startswith("<b>Approve 2 drafts?</b>") and inbox.confirm_box.layout.display is None
    assert all(not decisions(runs_dir / ep) for ep in eps)  # asking decides nothing
    inbox.cancel_button.click()
    assert inbox.confirm_box.layout.display == "none" and all(not decisions(runs_dir / ep) for ep in eps)
    inbox.approve_selected.click()
    third.check.value = True  # ticked after the question: the confirmation decides only the two it named
    inbox.confirm_button.click()
    assert [len(decisions(runs_dir / ep)) for ep in eps] == [1, 1, 0]
    assert first.decided and second.decided and not third.decided
    assert [i.episode_id for i in inbox.pending] == [eps[2]] and "approved 2 drafts" in inbox.pressed.line.value
    assert "1 draft waiting in 1 run" in inbox.header.value and "2 ready to resume" not in inbox.header.value
    assert "2 decided here · 2 runs decided, ready to resume" in inbox.header.value  # drafts, then runs
    assert "decided on disk" not in inbox.header.value and len(inbox.resume_box.children) == 2
    html = inbox.snapshot_html()
    assert html.count("approved</b> by human") == 2 and "noesis-nb-inbox" in html
    assert inbox.text_summary() == "InboxView: 1 draft waiting in 1 run, 2 decided here"
    with pytest.raises(InvalidOptionError, match=r"'ep_nope/draft' is not waiting in this inbox"):
        inbox.approve(["ep_nope/draft"])  # bad input: one clear error, nothing decided
    with pytest.raises(InvalidOptionError, match=r"episode_ids=\['x'\]: pass a function"):
        InboxView(runs_dir, episode_ids=["x"])  # type: ignore[arg-type]
    assert [len(decisions(runs_dir / ep)) for ep in eps] == [1, 1, 0]


def test_reject_with_a_reason_and_the_live_episode_continues(runs_dir: Path, tmp_path: Path, nnb: Any, comm_log: list) -> None:
    marker = tmp_path / "effect.txt"

    async def main() -> None:
        handle = noesis_nb.start("append", using=writer(marker, catch=True), runs_dir=runs_dir)
        await handle
        inbox = InboxView(runs_dir)
        [row] = inbox.rows.values()
        assert row.source is handle  # a live episode is decided through its own handle's gate
        inbox.reason.value = "not on a Friday"
        row.check.value = True
        inbox.reject_selected.click()
        assert inbox.question.value.startswith('<b>Reject 1 draft?</b> <span class="nnb-ib-named">fs.append in ')
        assert inbox.question.value.endswith("</span> — reason: not on a Friday")
        inbox.confirm_button.click()
        [decision] = decisions(handle.run_dir)
        assert decision["status"] == "rejected" and decision["reason"] == "not on a Friday"
        await handle.wait()  # the decision continued it: no Resume needed
        assert handle.status == "ok" and handle.result().startswith("rejected:") and not marker.exists()
        assert "rejected</b> by human" in row.body.value and "not on a Friday" in row.body.value
        assert not inbox.resume_box.children
        inbox.close()

    asyncio.run(main())


def test_the_inbox_and_an_episode_views_card_stay_consistent(runs_dir: Path, tmp_path: Path, nnb: Any, comm_log: list) -> None:
    async def main() -> None:
        a = noesis_nb.start("a", using=writer(tmp_path / "a.txt"), runs_dir=runs_dir)
        b = noesis_nb.start("b", using=writer(tmp_path / "b.txt"), runs_dir=runs_dir)
        await a
        await b
        with capture_output():
            view_a, view_b = show(a), show(b)
        inbox = InboxView(runs_dir, poll_interval=0.1)
        assert {i.episode_id for i in inbox.pending} == {a.episode_id, b.episode_id}
        # decided on the episode's own card: it leaves the inbox's pending rows and shows who decided
        view_a.approvals.card().approve_button.click()
        row_a = inbox.rows[next(k for k in inbox.rows if k.startswith(a.episode_id))]
        await nnb.until(lambda: row_a.decided, timeout=2)
        assert "approved</b> by human" in row_a.body.value and [i.episode_id for i in inbox.pending] == [b.episode_id]
        # decided in the inbox: the episode's card shows it (same gate, same decision)
        [row_b] = inbox.rows.values()
        row_b.reason.value = "from the inbox"
        row_b.approve_button.click()
        view_b.flush()
        card_b = view_b.approvals.card()
        assert card_b.decided and "from the inbox" in card_b.body.value and card_b.controls.layout.display == "none"
        await a.wait()
        await b.wait()
        assert a.status == b.status == "ok"
        card_b.approve_button.click()  # a stale click on the card decides nothing again
        assert len(decisions(b.run_dir)) == 1
        inbox.close()

    asyncio.run(main())


def test_a_decision_made_elsewhere_leaves_the_inbox_and_says_who(
    runs_dir: Path, tmp_path: Path, nnb: Any, comm_log: list
) -> None:
    eps = paused_on_disk(runs_dir, tmp_path / "effect.txt", 2)

    async def main() -> None:
        inbox = InboxView(runs_dir, poll_interval=0.1)
        noesis_nb.approve_draft(eps[0], runs_dir=runs_dir, approver_id="ops", reason="by script")
        await nnb.until(lambda: len(inbox.pending) == 1, timeout=2)
        [decided] = inbox.decided
        assert "approved</b> by ops" in decided.body.value and "by script" in decided.body.value
        inbox.close()

    asyncio.run(main())


def test_restricted_to_episodes_and_a_veto_is_overridden(runs_dir: Path, tmp_path: Path, comm_log: list) -> None:
    eps = paused_on_disk(runs_dir, tmp_path / "effect.txt", 2)
    ns.set(runs_dir=str(runs_dir), governance_pause_on_veto=True)
    vetoed = ns.solve("wipe the build cache", using=lambda task: f"done: {task}", governance="enforce")
    only = InboxView(runs_dir, episode_ids=lambda: [eps[1], vetoed])
    assert [i.episode_id for i in only.pending] == [eps[1], vetoed]
    veto_row = only.rows[only.pending[1].key]
    assert "governance veto" in veto_row.body.value and "rules.veto.protected" in veto_row.body.value
    assert [veto_row.approve_button.description, veto_row.reject_button.description] == ["Override", "Uphold"]
    only.approve([only.pending[1]], reason="a cache")
    decision = json.loads(next((runs_dir / vetoed / "checkpoints").glob("*/decision.json")).read_text())
    assert decision["decision"] == "override" and decision["reason"] == "a cache"
    assert "overridden</b> by human" in veto_row.body.value
    assert [i.episode_id for i in only.pending] == [eps[1]]


def test_an_episode_named_after_its_run_appeared_is_found_at_once(runs_dir: Path, tmp_path: Path, comm_log: list) -> None:
    eps = paused_on_disk(runs_dir, tmp_path / "effect.txt", 2)
    known = [eps[0]]  # a batch learns an episode's id when its worker reports it, after the run exists
    inbox = InboxView(runs_dir, episode_ids=lambda: list(known))
    assert [i.episode_id for i in inbox.pending] == [eps[0]]
    known.append(eps[1])  # the runs root has not changed since the last look
    assert [i.episode_id for i in inbox.pending] == eps


def test_a_live_episode_paused_on_a_veto_is_overridden_from_the_inbox(runs_dir: Path, nnb: Any, comm_log: list) -> None:
    def janitor(task: str) -> str:
        return f"done: {task}"

    async def main() -> None:
        handle = noesis_nb.start(
            "wipe the build cache", using=janitor, runs_dir=runs_dir, governance="enforce", pause_on_veto=True
        )
        await handle
        assert handle.status == "paused" and handle.paused_on_veto
        inbox = InboxView(runs_dir)
        [row] = inbox.rows.values()
        assert row.source is handle and row.item.kind == "veto" and "governance veto" in row.body.value
        row.approve_button.click()  # Override, through the handle: the adapter runs
        await handle.wait()
        assert handle.status == "ok" and handle.result() == "done: wipe the build cache"
        assert "overridden</b> by human" in row.body.value and inbox.pending == []
        inbox.close()

    asyncio.run(main())


def test_one_item_or_a_draft_id_is_decided_as_a_list_of_one_would_be(runs_dir: Path, tmp_path: Path, comm_log: list) -> None:
    eps = paused_on_disk(runs_dir, tmp_path / "effect.txt", 3)
    inbox = InboxView(runs_dir)
    first, second, third = inbox.pending
    inbox.reject(first, reason="not this one")  # one item, as inbox.pending hands them out
    inbox.approve(second.draft_id)  # a draft id, as handle.pending and approve_draft name drafts
    assert [len(decisions(runs_dir / ep)) for ep in eps] == [1, 1, 0]
    assert [i.episode_id for i in inbox.pending] == [third.episode_id]
    for wrong in (3, {"key": third.key}, [None]):
        with pytest.raises(InvalidOptionError, match="names no draft"):
            inbox.approve(wrong)
    assert [len(decisions(runs_dir / ep)) for ep in eps] == [1, 1, 0]
    inbox.close()


def test_a_row_decided_by_its_own_button_is_read_out_and_a_bulk_decision_once(
    runs_dir: Path, tmp_path: Path, comm_log: list
) -> None:
    """A screen reader hears a row's own decision (as the episode card's); deciding many says one summary."""
    paused_on_disk(runs_dir, tmp_path / "effect.txt", 3)
    inbox = InboxView(runs_dir)
    first, second, third = inbox.rows.values()

    def statuses() -> int:
        rows = (first, second, third)
        return inbox.message.value.count('role="status"') + sum(r.body.value.count('role="status"') for r in rows)

    first.reject_button.click()
    assert first.decided and first.body.value.count('role="status"') == 1 and statuses() == 1
    inbox.approve([second, third])
    assert second.decided and third.decided
    assert inbox.message.value.count('role="status"') == 1 and statuses() == 2  # the summary, not one per row
    inbox.close()


def test_a_run_made_within_the_tick_of_the_last_look_at_the_root_is_found(
    runs_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An inbox of episodes (a batch's) looks for a run not there yet once per change of the runs root. A run made
    within the file system's timestamp tick of that look (its staging folder made, then renamed in: a worker in
    another process) leaves the root's (size, mtime, ctime) as they were: remembered, that stamp hid the run for
    ever, and its pending draft never reached the inbox. A stamp too recent to tell is not remembered."""
    import os
    import time

    import noesis_nb.runtime.inbox as inbox_mod
    from noesis_nb.runtime.inbox import PendingScan

    [ep] = paused_on_disk(tmp_path / "elsewhere", tmp_path / "effect.txt", 1)
    runs_dir.mkdir(parents=True, exist_ok=True)
    tick = time.time_ns()  # the file system's clock: it does not tick while this test runs
    stat = inbox_mod._stat

    def coarse(path: str) -> Any:
        got = stat(path)
        return (0, tick, tick, *got[3:]) if got is not None and os.path.samefile(path, runs_dir) else got

    monkeypatch.setattr(inbox_mod, "_stat", coarse)
    monkeypatch.setattr(inbox_mod, "live_handles", dict)  # made by another process
    scan = PendingScan(runs_dir, episode_ids=lambda: [ep])
    scan.poll()
    assert scan.items == []
    os.rename(tmp_path / "elsewhere" / ep, runs_dir / ep)  # the run appears whole, in the same tick
    scan.poll()
    assert [i.episode_id for i in scan.items] == [ep]


def test_the_decided_list_counts_the_earlier_rows_it_no_longer_shows(runs_dir: Path, tmp_path: Path, comm_log: list) -> None:
    """It keeps the newest ``decided_rows``; with "5 decided here" over 2 rows it said nothing of the other 3."""
    paused_on_disk(runs_dir, tmp_path / "effect.txt", 5)
    inbox = InboxView(runs_dir, decided_rows=2)
    inbox.approve(list(inbox.pending))
    inbox.flush()
    assert "5 decided here" in inbox.header.value
    shown = [b for b in inbox.decided_box.children if b is not inbox._decided_title]
    assert len(shown) == 2 and "3 earlier not shown" in inbox._decided_title.value
    assert "3 earlier not shown" in inbox.snapshot_html()  # and in the saved notebook
    inbox.close()
