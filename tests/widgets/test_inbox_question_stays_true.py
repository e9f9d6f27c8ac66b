"""The inbox's "Approve 2 drafts?" kept its count when one of the two was rejected on its own row meanwhile: the bar
still said "Confirm: approve 2", and Confirm answered "approved 1 draft" without a word of the other. The question
now counts what still waits and names what became of the rest; the answer says it too."""

from __future__ import annotations

from pathlib import Path

from noesis_nb.widgets import InboxView
from tests.widgets.test_inbox import decisions, paused_on_disk


def test_a_row_decided_on_its_own_row_leaves_the_question_and_the_answer_names_it(
    runs_dir: Path, tmp_path: Path, comm_log: list
) -> None:
    eps = paused_on_disk(runs_dir, tmp_path / "effect.txt", 2)
    inbox = InboxView(runs_dir)
    first, second = inbox.rows.values()
    first.check.value = second.check.value = True
    inbox.approve_selected.click()
    assert inbox.confirm_button.description == "Confirm: approve 2"
    second.reject_button.click()  # on its own row, while the question is open
    assert inbox.question.value.startswith("<b>Approve 1 draft?</b>"), inbox.question.value
    assert "fs.append rejected" in inbox.question.value
    assert inbox.confirm_button.description == "Confirm: approve 1"
    inbox.confirm_button.click()
    assert [d["status"] for ep in eps for d in decisions(runs_dir / ep)] == ["approved", "rejected"]
    said = inbox.pressed.line.value  # the line the focus goes to after the confirmation
    assert "approved 1 draft" in said and "decided before the confirmation: fs.append rejected" in said, said


def test_a_question_whose_rows_were_all_decided_meanwhile_closes_and_says_why(
    runs_dir: Path, tmp_path: Path, comm_log: list
) -> None:
    paused_on_disk(runs_dir, tmp_path / "effect.txt", 1)
    inbox = InboxView(runs_dir)
    [row] = inbox.rows.values()
    row.check.value = True
    inbox.reject_selected.click()
    row.approve_button.click()
    assert inbox.confirm_box.layout.display == "none" and not inbox.approve_selected.disabled
    assert "nothing left to confirm" in inbox.message.value and "fs.append approved" in inbox.message.value
