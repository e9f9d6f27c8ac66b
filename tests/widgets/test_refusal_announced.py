"""A refused action's message was a plain red span: a screen reader heard nothing (no live region), the focus stayed
on Approve and the reason box said nothing of its problem. Each refusal a view shows is now a ``role="alert"`` in
the HTML itself; a refused reason sends the focus to its box, whose name says what was refused."""

from __future__ import annotations

import asyncio
import html
import re
from pathlib import Path
from typing import Any

from noesis_nb.widgets import InboxView
from tests.widgets.test_approver_id_env import paused_on_disk
from tests.widgets.test_focus_keeper import _focus_sent

_ALERT = re.compile(r'<(\w+)[^>]*\brole="alert"[^>]*>(.*)</\1>', re.S)


def _announced(value: str) -> str:
    """The text inside the message's live region (empty when it has none)."""
    found = _ALERT.search(value)
    return html.unescape(re.sub(r"<[^>]+>", "", found.group(2))) if found else ""


def test_a_refused_reason_is_announced_and_the_focus_goes_to_its_box(
    runs_dir: Path, tmp_path: Path, nnb: Any, comm_log: list[Any]
) -> None:
    paused_on_disk(runs_dir, nnb, tmp_path / "a.txt", task="first")
    view = InboxView(runs_dir, approver_id="ana")
    view.refresh()
    (row,) = view.rows.values()
    for bad in ("fine \u202eevil", "r" * 20_001):
        row.reason.value = bad
        row.approve_button.click()
        assert row.decision is None and row.waiting
        said = _announced(row.status.value)
        assert said.startswith("could not approve"), row.status.value
        assert "\u202e" not in said
        # the box's accessible name (ipywidgets' description) says the reason was not accepted, and it is marked
        assert "not accepted" in row.reason.description and "nnb-invalid" in row.reason._dom_classes
    assert _focus_sent(comm_log, row.reason) == 2  # each refusal: to the box to correct it
    assert _focus_sent(comm_log, row.approve_button) == 0
    row.reason.value = "checked the path"
    row.approve_button.click()
    assert row.decision is not None and row.decision["reason"] == "checked the path"
    assert row.reason.description == "reason for the decision" and "nnb-invalid" not in row.reason._dom_classes
    view.close()


def test_a_decision_refused_for_another_cause_is_announced_too(
    runs_dir: Path, tmp_path: Path, nnb: Any, comm_log: list[Any]
) -> None:
    import shutil

    run = paused_on_disk(runs_dir, nnb, tmp_path / "a.txt", task="first")
    view = InboxView(runs_dir, approver_id="ana")
    view.refresh()
    (row,) = view.rows.values()
    shutil.rmtree(run)
    row.reject_button.click()
    assert _announced(row.status.value).startswith("could not reject")
    assert _focus_sent(comm_log, row.reject_button) == 1 and _focus_sent(comm_log, row.reason) == 0
    view.close()


def test_a_refused_steer_is_announced_and_the_focus_goes_back_to_the_box(listening: Any, comm_log: list[Any]) -> None:
    async def main() -> None:
        run = await listening()
        view = run.view
        view.steering.text.value = "use \u202estaging"
        view.steering.send_button.click()
        assert _announced(view.message.value).startswith("could not send"), view.message.value
        assert _focus_sent(comm_log, view.steering.text) == 1
        assert await run.finish() == ""  # nothing was sent
        view.close()

    asyncio.run(main())
