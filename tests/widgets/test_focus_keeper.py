"""The focus a decision moves is sent again when the page re-renders the view soon after, never later."""

from __future__ import annotations

import asyncio
import sys
import time
from typing import Any

import ipywidgets as widgets
import pytest

import noesis_nb
from noesis_nb.widgets import EpisodeView, focus
from noesis_nb.widgets.focus import FocusKeeper
from tests.widgets.conftest import until


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


def test_a_press_in_another_view_takes_the_focus_from_a_view_re_rendered_after_it(comm_log: list[Any]) -> None:
    """A draft approved in a view, then an inbox's selection confirmed: the view's run ends and its output is
    re-rendered within seconds, and its keeper took the focus back from the inbox's line (one page, one focus)."""
    approve, line = widgets.Button(description="Approve"), widgets.Label("approved 2 drafts")
    view, inbox = FocusKeeper(), FocusKeeper()
    view.move(approve)
    inbox.move(line)
    assert view.target is None and inbox.target is line
    _page_shows_it_again(approve)  # the view's run ended: its output re-rendered
    assert _focus_sent(comm_log, approve) == 1 and _focus_sent(comm_log, line) == 1
    _page_shows_it_again(line)
    assert _focus_sent(comm_log, line) == 2  # the inbox's own re-render still gets it back
    inbox.release()
    assert FocusKeeper.holding is None


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


def test_the_outcome_line_the_focus_goes_to_reads_math_delimiters_as_text(
    runs_dir: Any, tmp_path: Any, nnb: Any, comm_log: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Label's text is typeset by MathJax in JupyterLab: a name holding ``$…$`` or ``\\(…\\)`` would be read as
    math by the screen reader the line is for."""
    monkeypatch.setenv("NOESIS_NB_APPROVER_ID", r"$\href{https://evil.example}{ana}$ \(x\)")

    async def main() -> None:
        handle = noesis_nb.start(
            "append", using=nnb.make_tool_adapter(nnb.side_effect_argv(tmp_path / "x.txt")), runs_dir=runs_dir
        )
        view = EpisodeView(handle)
        await handle
        view.flush()
        card = view.approvals.card()
        card.approve_button.click()
        await handle.wait()
        said = card.outcome.value
        assert "approved by" in said and "evil.example" in said and "ana" in said
        assert "$" not in said and "\\" not in said
        assert _focus_sent(comm_log, card.outcome) == 1  # the only card decided: its outcome line has the focus

    asyncio.run(main())


async def _two_notes(task: str, ctx: Any) -> Any:
    argv = [sys.executable, "-c", "pass"]
    calls = [ctx.tool_async(f"notes.w{i}", {"argv": argv}, effect="write", risk="high") for i in range(2)]
    return await asyncio.gather(*calls)


@pytest.mark.parametrize("later", [False, True], ids=["soon", "after-the-window"])
def test_a_focused_draft_decided_elsewhere_passes_the_focus_on_only_soon_after_the_click(
    runs_dir: Any, comm_log: list[Any], monkeypatch: pytest.MonkeyPatch, later: bool
) -> None:
    monkeypatch.setattr(focus, "RESTORE_WITHIN_S", 1.0)

    async def main() -> None:
        handle = noesis_nb.start("write two notes", using=_two_notes, approver="ask", runs_dir=runs_dir)
        view = EpisodeView(handle)
        await until(lambda: len(handle.pending) == 2)
        view.flush()
        first, second = view.approvals.cards.values()
        first.approve_button.click()
        assert view.approvals.focus.target is second.approve_button  # the next draft's Approve has the focus
        if later:
            time.sleep(1.2)  # the person may be typing in another cell by now
        handle.approve(second.pending.draft_id)  # decided elsewhere: a magic, code, another view
        await handle.wait()
        view.flush()
        assert _focus_sent(comm_log, second.outcome) == (0 if later else 1)

    asyncio.run(main())
