"""Approve or Reject on an inbox row leaves the keyboard focus in the inbox, as on the view's cards: the decided row
hides its buttons, the pressed one with them, and the focus went to the page's body."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from noesis_nb.widgets import InboxView
from tests.widgets.test_approver_id_env import paused_on_disk
from tests.widgets.test_focus_keeper import _focus_sent


def _two_paused(runs_dir: Path, nnb: Any, tmp_path: Path) -> tuple[InboxView, Any, Any, list[Path]]:
    runs = [paused_on_disk(runs_dir, nnb, tmp_path / f"{name}.txt", task=name) for name in ("first", "second")]
    view = InboxView(runs_dir, approver_id="ana")
    view.refresh()
    first, second = view.rows.values()
    assert (first.item.task, second.item.task) == ("first", "second")
    return view, first, second, runs


def _all_focus(log: list[Any], rows: list[Any]) -> int:
    widgets = [x for r in rows for x in (r.approve_button, r.reject_button, r.outcome)]
    return sum(_focus_sent(log, x) for x in widgets)


def test_approving_a_row_focuses_the_next_row_s_approve_then_the_last_its_outcome_line(
    runs_dir: Path, tmp_path: Path, nnb: Any, comm_log: list[Any]
) -> None:
    view, first, second, _ = _two_paused(runs_dir, nnb, tmp_path)
    first.approve_button.click()
    assert first.decision is not None and first.controls.layout.display == "none"
    assert _focus_sent(comm_log, second.approve_button) == 1
    assert _all_focus(comm_log, [first, second]) == 1  # nothing else was focused
    second.approve_button.click()
    assert second.decision is not None
    assert _focus_sent(comm_log, second.outcome) == 1  # nothing waits: the decided row's outcome line
    assert second.outcome in second.box.children  # the line is shown with the row (hidden from the eye only)
    said = second.outcome.value
    assert "approved by ana" in said and second.item.pending.tool in said
    assert _all_focus(comm_log, [first, second]) == 2
    view.close()
    assert view.focus.target is None  # the inbox closed: nothing keeps the focus any more


def test_the_last_row_passes_the_focus_back_to_an_earlier_row_still_waiting(
    runs_dir: Path, tmp_path: Path, nnb: Any, comm_log: list[Any]
) -> None:
    view, first, second, _ = _two_paused(runs_dir, nnb, tmp_path)
    second.reject_button.click()
    assert second.decision is not None and second.decision["status"] == "rejected"
    assert _focus_sent(comm_log, first.approve_button) == 1
    assert _all_focus(comm_log, [first, second]) == 1
    view.close()


def test_a_decision_that_fails_gives_the_focus_back_to_the_button_pressed(
    runs_dir: Path, tmp_path: Path, nnb: Any, comm_log: list[Any]
) -> None:
    view, first, second, runs = _two_paused(runs_dir, nnb, tmp_path)
    shutil.rmtree(runs[0])  # the run's folder went away under the inbox
    first.reject_button.click()
    assert first.decision is None and "could not reject" in first.status.value
    assert _focus_sent(comm_log, first.reject_button) == 1
    assert _all_focus(comm_log, [first, second]) == 1
    view.close()


def test_the_selection_s_question_takes_the_focus_and_gives_it_back(
    runs_dir: Path, tmp_path: Path, nnb: Any, comm_log: list[Any]
) -> None:
    """Approve selected… disables itself and shows the question: the focus goes to Confirm (it fell to the page's
    body); Cancel gives it back to the button that asked, Confirm to the line saying what was decided."""
    view, first, second, _ = _two_paused(runs_dir, nnb, tmp_path)
    view.tick_all()
    view.reject_selected.click()
    assert view.reject_selected.disabled and _focus_sent(comm_log, view.confirm_button) == 1
    view.cancel_button.click()
    assert not view.reject_selected.disabled and _focus_sent(comm_log, view.reject_selected) == 1
    assert _focus_sent(comm_log, view.approve_selected) == 0
    view.approve_selected.click()
    assert _focus_sent(comm_log, view.confirm_button) == 2
    view.confirm_button.click()
    assert first.decision is not None and second.decision is not None
    assert _focus_sent(comm_log, view.pressed.line) == 1 and view.focus.target is view.pressed.line
    assert view.pressed.line.value == "approved 2 drafts" and view.pressed.line.layout.display is None
    assert view.message.value == ""  # said once, on the focused line
    assert _all_focus(comm_log, [first, second]) == 0
    view.close()
