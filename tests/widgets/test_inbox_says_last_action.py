"""The inbox's line under its toolbar says what its last action did.

Resume on a run decided on disk sealed it and wrote its file, yet the inbox said only "nothing waits for a decision";
and after "approved 2 drafts" a row rejected on its own kept that line on show. A Resume now says what it did (the
tools it ran and how the run ended) or its error, escaped; a row's own decision replaces the line of an earlier one."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from noesis_nb.store import is_sealed, read_summary
from noesis_nb.widgets import InboxView
from tests.widgets.test_inbox import decisions, paused_on_disk


def test_resume_says_the_tools_it_ran_and_how_the_run_ended(runs_dir: Path, tmp_path: Path, nnb: Any, comm_log: list) -> None:
    marker = tmp_path / "effect.txt"
    [ep] = paused_on_disk(runs_dir, marker, 1)

    async def main() -> None:
        inbox = InboxView(runs_dir, approver_id="ana")
        [row] = inbox.rows.values()
        row.approve_button.click()
        [resume] = inbox.resume_box.children
        resume.children[0].click()
        await nnb.until(lambda: "resumed run" in inbox.message.value, timeout=10)
        assert is_sealed(runs_dir / ep) and marker.read_text() == "x"
        assert (read_summary(runs_dir / ep) or {}).get("status") == "ok"
        said = inbox.message.value
        assert f"resumed run {ep}: ran 1 approved tool, sealed ok" in said and 'role="status"' in said, said
        inbox.close()

    asyncio.run(main())


def test_a_resume_that_fails_says_its_error_escaped(tmp_path: Path, nnb: Any, comm_log: list) -> None:
    runs_dir = tmp_path / "<i>runs</i>"  # a folder name the error quotes: shown as text, never as markup
    [ep] = paused_on_disk(runs_dir, tmp_path / "effect.txt", 1)

    async def main() -> None:
        inbox = InboxView(runs_dir, approver_id="ana")
        [row] = inbox.rows.values()
        row.approve_button.click()
        (runs_dir / ep / "final.json").mkdir()  # where the seal is written: a folder, so the resume is refused
        [resume] = inbox.resume_box.children
        resume.children[0].click()
        await nnb.until(lambda: "could not resume" in inbox.message.value, timeout=10)
        said = inbox.message.value
        assert f"could not resume run {ep}: " in said and "final.json" in said, said
        assert "<i>" not in said and "&lt;i&gt;runs&lt;/i&gt;" in said, said
        assert not is_sealed(runs_dir / ep)
        inbox.close()

    asyncio.run(main())


def test_a_rows_own_decision_replaces_the_line_of_the_selection_before(runs_dir: Path, tmp_path: Path, comm_log: list) -> None:
    eps = paused_on_disk(runs_dir, tmp_path / "effect.txt", 4)
    inbox = InboxView(runs_dir)
    first, second, third, fourth = inbox.rows.values()
    first.check.value = second.check.value = True
    inbox.approve_selected.click()
    inbox.confirm_button.click()
    assert "approved 2 drafts" in inbox.pressed.line.value and inbox.pressed.line.layout.display is None
    third.reject_button.click()
    said = inbox.message.value
    assert inbox.pressed.line.layout.display == "none"  # the confirmation's line is no longer the last word
    assert "approved 2 drafts" not in said and f"rejected the fs.append draft of {eps[2]}" in said, said
    assert 'role="status"' not in said  # the row's own line is read out, once
    fourth.approve_button.click()
    assert f"approved the fs.append draft of {eps[3]}" in inbox.message.value and eps[2] not in inbox.message.value
    assert [d["status"] for ep in eps for d in decisions(runs_dir / ep)] == ["approved", "approved", "rejected", "approved"]
    assert "4 decided here" in inbox.header.value
    inbox.close()
