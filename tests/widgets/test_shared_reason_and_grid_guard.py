"""The inbox's shared reason box, refused, is marked as a card's own box is (``nnb-invalid``, which the key guard says
as ``aria-invalid``), with the refusal under it in the box the guard describes it from; nothing is decided with it,
and a reason taken clears both. The batch grid carries its own key guard, as each view does (it had none of its own:
only its inbox's). What the guard does with both in a page: ``tests/browser/test_browser_grid_wide.py``."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import ipywidgets as w

import noesis_nb
from noesis_nb.widgets import InboxView
from noesis_nb.widgets.batchview import BatchView

GUARD = "nnb-keyguard"


def _paused(runs_dir: Path) -> str:
    def agent(task: str, ctx: Any) -> Any:
        return ctx.tool("fs.touch", {"argv": [sys.executable, "-c", "pass"]}, effect="write", risk="high")

    return noesis_nb.solve("touch", using=agent, runs_dir=runs_dir, approver="ask")


def _decisions(runs_dir: Path) -> list[Path]:
    return sorted(runs_dir.glob("*/tool_invocations/approvals/*.json"))


def _holding(view: Any, widget: Any) -> Any:
    return next(c for c in view.children if isinstance(c, w.Box) and widget in c.children)


def test_a_refused_shared_reason_marks_its_box_and_decides_nothing(runs_dir: Path, comm_log: list) -> None:
    _paused(runs_dir)
    inbox = InboxView(runs_dir)
    [row] = inbox.rows.values()
    row.check.value = True
    inbox.reason.value = "fine \u202eevil"  # a bidi control: the rule of every reason refuses it
    inbox.reject_selected.click()
    inbox.confirm_button.click()
    assert _decisions(runs_dir) == [] and row.decision is None
    assert "nnb-invalid" in inbox.reason._dom_classes
    bar = _holding(inbox, inbox.reason)
    assert "nnb-refusal-scope" in bar._dom_classes  # where the guard looks for what describes the box
    said = [c.value for c in bar.children if isinstance(c, w.HTML) and 'role="alert"' in c.value]
    assert len(said) == 1 and "nothing decided" in said[0] and "\u202e" not in said[0], said
    assert inbox.confirm_box.layout.display != "none"  # the question stays open, to confirm with a reason corrected

    inbox.reason.value = ""
    inbox.confirm_button.click()
    assert len(_decisions(runs_dir)) == 1 and row.decision is not None and row.decision["status"] == "rejected"
    assert "nnb-invalid" not in inbox.reason._dom_classes
    assert not [c for c in bar.children if isinstance(c, w.HTML) and 'role="alert"' in c.value]


def _guards(widget: Any) -> list[Any]:
    found = [widget] if GUARD in getattr(widget, "_dom_classes", ()) else []
    for child in getattr(widget, "children", ()):
        found += _guards(child)
    return found


def test_the_batch_grid_carries_one_guard_of_its_own(runs_dir: Path, comm_log: list) -> None:
    async def main() -> list[Any]:
        b = noesis_nb.batch(["a"], using=lambda task, ctx: "done", root=runs_dir)
        view = BatchView(b, rows=5)
        await b.wait()
        try:
            return [view.children, _guards(view)]
        finally:
            view.close()

    children, guards = asyncio.run(main())
    assert len(guards) == 1 and guards[0] in children  # the view's own: it keeps the grid and the inbox in it alike
