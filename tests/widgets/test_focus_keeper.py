"""The focus a decision moves is sent again when the page re-renders the view soon after, never later."""

from __future__ import annotations

import time
from typing import Any

import ipywidgets as widgets
import pytest

from noesis_nb.widgets import focus
from noesis_nb.widgets.focus import FocusKeeper


def _focus_sent(log: list[Any], widget: Any) -> int:
    return sum(
        1
        for t, cid, _, data in log
        if t == "comm_msg"
        and cid == widget.comm.comm_id
        and data.get("method") == "custom"
        and data.get("content", {}).get("do") == "focus"
    )


def _page_shows_it_again(widget: Any) -> None:
    """What the frontend sends as it displays one more view of the widget (a re-rendered output)."""
    widget.set_state({"_view_count": (widget._view_count or 0) + 1})


def test_a_re_render_right_after_the_decision_gets_the_focus_back_once(comm_log: list[Any]) -> None:
    button = widgets.Button(description="Approve")
    keeper = FocusKeeper()
    keeper.move(button)
    assert _focus_sent(comm_log, button) == 1
    _page_shows_it_again(button)
    assert _focus_sent(comm_log, button) == 2
    _page_shows_it_again(button)  # held once only: the keeper let go
    assert _focus_sent(comm_log, button) == 2 and keeper.target is None


def test_a_re_render_long_after_the_decision_leaves_the_focus_where_the_person_put_it(
    comm_log: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(focus, "RESTORE_WITHIN_S", 0.2)
    button = widgets.Button(description="Approve")
    keeper = FocusKeeper()
    keeper.move(button)
    time.sleep(0.3)  # the person may be typing in another cell by now
    _page_shows_it_again(button)
    assert _focus_sent(comm_log, button) == 1 and keeper.target is None
