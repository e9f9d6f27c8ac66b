"""A run whose folder is removed while it is shown: it reads ``lost`` (never ``running``), the view and the inbox
name the path and what to do, and nothing offers a decision that could no longer be written."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.errors import EpisodeStateError
from noesis_nb.runtime.diskrun import DiskRun
from noesis_nb.runtime.inbox import PendingScan
from noesis_nb.widgets import InboxView, show


def _agent(marker: Path) -> Any:
    async def agent(task: str, ctx: Any) -> Any:
        argv = [sys.executable, "-c", f"open({str(marker)!r}, 'a').write('x')"]
        return await ctx.tool_async("fs.append", {"argv": argv}, effect="write", risk="high")

    return agent


def _paused(runs_dir: Path, marker: Path) -> str:
    return noesis_nb.solve("a task", using=_agent(marker), runs_dir=runs_dir, approver="ask")


def test_a_removed_run_reads_lost_and_says_where_it_was(runs_dir: Path, tmp_path: Path) -> None:
    ep = _paused(runs_dir, tmp_path / "effect.txt")
    run = DiskRun(runs_dir / ep)
    assert run.status == "paused" and len(run.pending) == 1
    shutil.rmtree(runs_dir / ep)
    run.refresh()
    assert run.status == "lost" and run.gone
    assert str(runs_dir / ep) in (run.hint or "") and "noesis_nb.show(" in (run.hint or "")
    assert run.pending == [] and not run.can_resume
    assert run.events  # what was read before stays on show
    with pytest.raises(EpisodeStateError, match="is gone"):
        run.approve(approver_id="ana")
    assert not (runs_dir / ep).exists()  # no folder made again at the old place


def test_the_view_closes_its_card_and_names_the_path(runs_dir: Path, tmp_path: Path, comm_log: list) -> None:
    ep = _paused(runs_dir, tmp_path / "effect.txt")
    view = show(runs_dir / ep)
    [card] = view.approvals.cards.values()
    shutil.rmtree(runs_dir / ep)
    view.source.refresh()
    view.flush()
    assert 'nnb-badge nnb-c-red">lost<' in view.header.value
    assert str(runs_dir / ep) in view.message.value and "is gone" in view.message.value
    assert card.controls.layout.display == "none" and "folder is gone" in card.status.value
    assert view.settling.button.layout.display == "none"  # nothing left there to settle
    view.close()


@pytest.mark.parametrize("followed", ["root", "episodes"])
def test_the_inbox_says_the_folder_went_with_its_decision(runs_dir: Path, tmp_path: Path, followed: str) -> None:
    ep = _paused(runs_dir, tmp_path / "effect.txt")
    scan = PendingScan(runs_dir) if followed == "root" else PendingScan(runs_dir, episode_ids=lambda: [ep])
    scan.poll()
    assert [i.episode_id for i in scan.items] == [ep]
    moved = tmp_path / "elsewhere"
    shutil.move(str(runs_dir / ep), moved)
    scan._listed_at = float("-inf")  # the root is listed again at once (a removal changes its stamp too)
    scan.poll()
    assert scan.items == []
    [problem] = scan.problems
    assert str(runs_dir / ep) in problem and "is gone" in problem
    shutil.move(str(moved), runs_dir / ep)  # moved back: read as any run again
    scan._listed_at = float("-inf")
    scan.poll()
    assert [i.episode_id for i in scan.items] == [ep] and scan.problems == []


def test_the_inbox_view_closes_the_row(runs_dir: Path, tmp_path: Path, comm_log: list) -> None:
    ep = _paused(runs_dir, tmp_path / "effect.txt")
    inbox = InboxView(runs_dir, approver_id="ana")
    [row] = inbox.rows.values()
    shutil.rmtree(runs_dir / ep)
    inbox.scan._listed_at = float("-inf")
    inbox.refresh()
    inbox.flush()
    assert row.controls.layout.display == "none" and "folder is gone" in row.status.value
    assert str(runs_dir / ep) in inbox.problems.value
    inbox.close()
