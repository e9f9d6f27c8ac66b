"""An inbox whose kernel is gone says so, and how to list its runs again: its buttons were struck through with not
a word of why, and nothing named the command that reaches the runs (still paused on disk) from a new cell."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import ipywidgets as w

import noesis_nb
from noesis_nb.widgets.inboxview import InboxView
from tests.widgets.staletext import commands, without_kernel


def _tool(task: str, ctx: Any) -> Any:
    return ctx.tool("fs.touch", {"argv": [sys.executable, "-c", "pass"]}, effect="write", risk="high")


def test_an_inbox_without_its_kernel_names_the_command_that_lists_its_runs_again(ip: Any, tmp_path: Path, comm_log: list) -> None:
    runs = tmp_path / "runs {x} $y"  # what the magic would read as an expression or a variable, doubled in the line
    ep = noesis_nb.solve("t", using=_tool, runs_dir=runs, approver="ask")
    inbox = InboxView(runs)
    try:
        found = [str(c.value) for c in inbox.children if isinstance(c, w.HTML) and 'class="nnb-stale"' in str(c.value)]
    finally:
        inbox.close()
    assert len(found) == 1, found
    said = without_kernel(found[0])
    assert "lost its kernel" in said and "stay paused on disk" in said, said
    [line] = commands(found[0])
    ip.user_ns["y"] = "elsewhere"
    again = ip.run_line_magic("noesis", line.removeprefix("%noesis "))
    try:
        assert ep in again.snapshot_html(), "the inbox the line opens lists the paused run"
    finally:
        again.close()
