"""An approver id named in code (``show(ep, approver_id=…)``, ``inbox(approver_id=…)``, ``handle.approve(approver_id=…)``,
``%noesis approve --approver-id``) is held to the rule ``$NOESIS_NB_APPROVER_ID`` is: non-blank printable text of at
most 200 characters. Before, a view took any value and failed only at the click (``approver_id=5``), or recorded a
line end or a 1,000-character name in the decision file and every line that shows it."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from IPython.core.error import UsageError

import noesis_nb
from noesis_nb.errors import InvalidOptionError

# a view refused while being made must not fail again when it is collected (Widget.__del__ closes it)
pytestmark = pytest.mark.filterwarnings("error::pytest.PytestUnraisableExceptionWarning")

WRONG = [5, "", "   ", "ana\nbo", "ana\x1b[31m", "a" * 201]


def paused_on_disk(runs_dir: Path, nnb: Any, marker: Path) -> Path:
    return runs_dir / noesis_nb.solve("append", using=nnb.make_tool_adapter(nnb.side_effect_argv(marker)), runs_dir=runs_dir)


def approvals(run_dir: Path) -> list[Path]:
    return sorted((run_dir / "tool_invocations" / "approvals").glob("*.json"))


@pytest.mark.parametrize("wrong", WRONG)
def test_a_view_or_inbox_refuses_a_wrong_approver_id_before_any_click(
    wrong: Any, runs_dir: Path, tmp_path: Path, nnb: Any, comm_log: list
) -> None:
    run_dir = paused_on_disk(runs_dir, nnb, tmp_path / "x.txt")
    for make in (lambda: noesis_nb.show(run_dir, approver_id=wrong), lambda: noesis_nb.inbox(runs_dir, approver_id=wrong)):
        with pytest.raises(InvalidOptionError, match=r"^approver_id=.*name who decides") as caught:
            make()
        assert "\n" not in str(caught.value) and "\x1b" not in str(caught.value)
    assert approvals(run_dir) == []


@pytest.mark.parametrize("wrong", WRONG[3:])
def test_handle_approve_refuses_it_and_loses_nothing(wrong: str, runs_dir: Path, tmp_path: Path, nnb: Any) -> None:
    marker = tmp_path / "x.txt"

    async def main() -> tuple[str, str]:
        handle = noesis_nb.start("append", using=nnb.make_tool_adapter(nnb.side_effect_argv(marker)), runs_dir=runs_dir)
        await handle
        with pytest.raises(InvalidOptionError, match="name who decides"):
            handle.approve(approver_id=wrong)
        with pytest.raises(InvalidOptionError, match="name who decides"):
            noesis_nb.reject_draft(handle.run_dir, approver_id=wrong)
        assert handle.status == "paused" and len(handle.pending) == 1 and approvals(handle.run_dir) == []
        handle.approve(approver_id="ana")
        await handle.wait()
        return handle.status, marker.read_text()

    assert asyncio.run(main()) == ("ok", "x")


def test_the_magic_refuses_a_name_too_long(ip: Any, runs_dir: Path, tmp_path: Path, nnb: Any) -> None:
    run_dir = paused_on_disk(runs_dir, nnb, tmp_path / "x.txt")
    with pytest.raises(UsageError, match=r"^%noesis approve: approver_id='a+'… \(201 characters\): .*at most 200"):
        ip.run_line_magic("noesis", f"approve {run_dir} --approver-id {'a' * 201}")
    assert approvals(run_dir) == []
