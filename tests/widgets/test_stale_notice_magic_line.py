"""The lost-kernel notice's ``%noesis approve … --runs-dir …`` line does what it says when typed as shown, for a
runs folder whose name holds ``{…}`` or ``$``: the magic reads ``{expr}`` and ``$name`` in each argument, so
``runs_{1}`` was read as ``runs_1`` and ``$x`` as the notebook's ``x``, and the line named another folder."""

from __future__ import annotations

import html
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from IPython.core.error import UsageError

import noesis_nb
from noesis_nb.widgets import show


def _agent(task: str, ctx: Any) -> Any:
    return ctx.tool("fs.touch", {"argv": [sys.executable, "-c", "pass"]}, effect="write", risk="high")


@pytest.mark.parametrize("folder", ["runs_{1}", "runs_$x", "runs {x} $$ }{"])
def test_the_approve_line_of_the_notice_reaches_the_run_in_an_odd_folder(ip: Any, tmp_path: Path, folder: str) -> None:
    runs = tmp_path / folder
    ep = noesis_nb.solve("t", using=_agent, runs_dir=runs, approver="ask")
    view = show(ep, runs_dir=runs)
    line = next(
        html.unescape(code)
        for code in re.findall(r"<code>(.*?)</code>", view.snapshot_html() + str(view.stale.value))
        if code.startswith("%noesis approve")
    )
    assert "--runs-dir" in line, line
    ip.user_ns["x"] = "elsewhere"  # a notebook name the folder's "$x" must not be read as
    try:
        ip.run_line_magic("noesis", line.removeprefix("%noesis "))
    except UsageError as exc:
        pytest.fail(f"{line!r} did not reach the run: {exc}")
    assert not noesis_nb.DiskRun(runs / ep).pending, "the draft was not approved"
