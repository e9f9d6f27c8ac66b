"""Ordinary outcomes read as one line, not a traceback: in cells, magics and buttons (issue: messages, not tracebacks).

Each test drives the real thing — IPython's shell running a cell, a magic, a view's button —
and checks both what a person reads and that code still gets the exception's type.
"""

from __future__ import annotations

import asyncio
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest
from IPython.core.error import UsageError
from IPython.utils.capture import capture_output

import noesis_nb
from noesis_nb.errors import EpisodeStateError, ToolRejected, UsingResolutionError
from noesis_nb.integrations._extras import MissingExtraError, require
from noesis_nb.widgets import EpisodeView, show


def shown_error(ip: Any, code: str) -> tuple[list[str], BaseException | None]:
    """Run ``code`` as a cell: (the lines IPython shows for its error, the exception itself)."""
    shown: list[list[str]] = []
    original = ip._showtraceback
    ip._showtraceback = lambda etype, evalue, stb: shown.append(stb)
    try:
        result = ip.run_cell(code)
    finally:
        ip._showtraceback = original
    return (shown[-1] if shown else []), result.error_in_exec


def paused(runs_dir: Path, tmp_path: Path) -> str:
    async def agent(task: str, ctx: Any) -> Any:
        argv = [sys.executable, "-c", f"open({str(tmp_path / 'x')!r}, 'a').write('x')"]
        return await ctx.tool_async("fs.append", {"argv": argv}, effect="write", risk="high")

    return noesis_nb.solve("append", using=agent, runs_dir=runs_dir, approver="ask")


def test_a_rejected_tool_is_one_line_in_a_cell_and_keeps_its_type(ip: Any) -> None:
    ip.user_ns["ToolRejected"] = ToolRejected
    lines, error = shown_error(ip, "x = 1\nraise ToolRejected('git.tag@1', 'not on a Friday')")
    assert isinstance(error, ToolRejected) and error.reason == "not on a Friday"  # code still sees the type
    assert lines[0] == "ToolRejected: tool call 'git.tag@1' was rejected: not on a Friday"
    assert lines[1] == "  (line 2 of the cell: raise ToolRejected('git.tag@1', 'not on a Friday'))"


def test_a_missing_extra_is_one_line_with_the_install_command(ip: Any) -> None:
    ip.user_ns["require"] = require
    lines, error = shown_error(ip, "require('noesis_nb_no_such_module', 'agui', 'AGUIAdapter')")
    assert isinstance(error, MissingExtraError) and isinstance(error, ImportError)
    assert len(lines) == 2 and "pip install 'noesis_nb[agui]'" in lines[0]


def test_a_paused_handle_result_says_what_it_waits_for(ip: Any, runs_dir: Path, tmp_path: Path) -> None:
    async def agent(task: str, ctx: Any) -> Any:
        return await ctx.tool_async("fs.touch", {"argv": [sys.executable, "-c", "pass"]}, effect="write", risk="high")

    async def main() -> None:
        handle = noesis_nb.start("touch", using=agent, runs_dir=runs_dir)
        await handle
        ip.user_ns["handle"] = handle
        lines, error = shown_error(ip, "handle.result()")
        assert isinstance(error, EpisodeStateError)
        assert lines[0].startswith("EpisodeStateError: episode ") and "approve or reject first" in lines[0]
        handle.cancel()
        await handle.wait()

    asyncio.run(main())


def test_deciding_a_decided_draft_says_who_decided_and_when(ip: Any, runs_dir: Path, tmp_path: Path, capsys: Any) -> None:
    episode = paused(runs_dir, tmp_path)
    noesis_nb.approve_draft(episode, runs_dir=runs_dir, approver_id="ana", reason="checked")
    ip.run_line_magic("noesis", f"approve {episode} --runs-dir {runs_dir} --approver-id bob")
    out = capsys.readouterr().out.strip()
    assert out.startswith("already approved by ana at ") and "— checked" in out and out.endswith("nothing changed")
    assert "\n" not in out and "bob" not in out
    ip.run_line_magic("noesis", f"reject {episode} --runs-dir {runs_dir}")  # a rejection after it: the approval stands
    assert capsys.readouterr().out.startswith("already approved by ana")


def test_resuming_a_sealed_run_is_one_line_and_no_warning(ip: Any, runs_dir: Path, tmp_path: Path, capsys: Any) -> None:
    episode = paused(runs_dir, tmp_path)
    noesis_nb.approve_draft(episode, runs_dir=runs_dir, approver_id="ana")
    noesis_nb.resume_run(episode, runs_dir=runs_dir)
    with warnings.catch_warnings(record=True) as caught, capture_output() as captured:
        warnings.simplefilter("always")
        ip.run_line_magic("noesis", f"resume {episode} --runs-dir {runs_dir}")
    assert [w.category for w in caught] == []  # said in the output, not as a warning pointing into a library
    assert captured.stdout.startswith(f"nothing to resume: run {episode} is already sealed (outcome success)")


def test_a_misspelled_agent_gets_did_you_mean(ip: Any, runs_dir: Path) -> None:
    def janitor(task: str) -> str:
        return "done"

    ip.user_ns["janitor"] = janitor

    async def magic() -> None:
        with pytest.raises(UsageError, match=r"did you mean janitor"):
            ip.run_line_magic("noesis", f'run janitr "clean up" --runs-dir {runs_dir}')

    asyncio.run(magic())
    main = sys.modules["__main__"]
    main.janitor_fn = janitor
    try:
        with pytest.raises(UsingResolutionError) as guessed:
            noesis_nb.solve("clean up", using="janitor_fm", runs_dir=runs_dir)
        # what went wrong and the likeliest fix lead; the rules for using= follow
        assert str(guessed.value).startswith(
            "using='janitor_fm' names no agent — did you mean janitor_fn (defined in this notebook)? It is not a file"
        )
    finally:
        delattr(main, "janitor_fn")
    with pytest.raises(UsingResolutionError) as info:  # nothing close: no guess
        noesis_nb.solve("clean up", using="zzzqqq", runs_dir=runs_dir)
    assert "did you mean" not in str(info.value) and str(info.value).startswith("using='zzzqqq' names no agent. It is")


def test_an_empty_runs_dir_says_how_to_start(ip: Any, tmp_path: Path) -> None:
    empty = tmp_path / "nothing-here"
    table = ip.run_line_magic("noesis", f"list --runs-dir {empty}")
    assert repr(table).startswith(f"no runs in {empty} yet (no such folder): start one with noesis_nb.start(")
    empty.mkdir()
    table = ip.run_line_magic("noesis", f"list --runs-dir {empty}")
    assert repr(table).startswith(f"no runs in {empty} yet: start one with noesis_nb.start(")
    assert "%noesis run" in table._repr_html_() and "<table" not in table._repr_html_()


def test_a_button_on_a_run_that_ended_says_so_in_one_line(runs_dir: Path, tmp_path: Path) -> None:
    from noesis_nb.store import is_sealed

    episode = paused(runs_dir, tmp_path)
    with capture_output():
        view = show(episode, runs_dir=runs_dir)
    assert isinstance(view, EpisodeView)
    run = view.source
    noesis_nb.approve_draft(episode, runs_dir=runs_dir, approver_id="ana")  # elsewhere, after the view was drawn
    noesis_nb.resume_run(episode, runs_dir=runs_dir)
    assert is_sealed(run.run_dir)
    card = view.approvals.card()
    card.reject_button.click()  # the view was behind: the approval stands, nothing is decided again
    assert "already <b>approved</b> by ana" in card.status.value and "nothing changed" in card.status.value
    assert "approved</b> by ana" in card.body.value and card.controls.layout.display == "none"
    view.resume()  # Resume on a run someone else finished: the current state, not an action
    assert "nothing to resume: the run is ok now" in view.message.value
    view.close()
