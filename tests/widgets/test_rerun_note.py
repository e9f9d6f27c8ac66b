"""The note a view shows when its cell ran again (``widgets/rerun.py``), and the commands a view gives
to reach a run from a restarted kernel (``widgets/reach.py``): what they say and what they keep alive."""

from __future__ import annotations

import asyncio
import gc
import os
import re
import sys
import weakref
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.widgets import reach, rerun
from noesis_nb.widgets.view import EpisodeView
from tests.widgets.staletext import with_kernel, without_kernel


@pytest.fixture
def cell(monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The running cell as a front end names it; change ``["request"]`` for the cell's next run."""
    where = {"cell": "cell-1", "request": "r1"}
    monkeypatch.setattr(rerun, "running_cell", lambda: (where["cell"], where["request"]))
    monkeypatch.setattr(rerun, "_SHOWN", {})
    return where


def test_an_earlier_episode_still_running_is_to_follow_not_to_decide(runs_dir: Path, cell: dict[str, str]) -> None:
    release = asyncio.Event()

    async def waits(task: str, ctx: Any) -> str:
        await release.wait()
        return "done"

    async def main() -> str:
        first = noesis_nb.start("first", using=waits, runs_dir=runs_dir)
        EpisodeView(first)._repr_mimebundle_()
        cell["request"] = "r2"
        second = noesis_nb.start("second", using=waits, runs_dir=runs_dir)
        view = EpisodeView(second)
        view._repr_mimebundle_()
        note = re.sub(r"<[^>]+>", "", view.earlier.value)
        release.set()
        await first.wait()
        await second.wait()
        assert first.episode_id in note and not first.pending
        return note

    note = asyncio.run(main())
    assert "is still running: follow it in" in note and "decide" not in note, note


def test_a_cell_that_never_runs_again_keeps_no_ended_episode_alive(runs_dir: Path, cell: dict[str, str]) -> None:
    async def chatty(task: str, ctx: Any) -> str:
        for i in range(200):
            ctx.emit("note", {"i": i})
        return "done"

    async def main() -> weakref.ref[Any]:
        handle = noesis_nb.start("big", using=chatty, runs_dir=runs_dir)
        await handle.wait()
        view = EpisodeView(handle)
        view._repr_mimebundle_()
        view.close()
        return weakref.ref(handle)

    ref = asyncio.run(main())
    gc.collect()
    assert ref() is None, [type(r).__name__ for r in gc.get_referrers(ref())]


def test_the_runs_dir_named_for_a_restarted_kernel_is_from_where_it_starts_not_where_a_cell_moved_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A restarted kernel starts in the notebook's folder again, whatever ``os.chdir`` a cell did."""

    class Shell:
        starting_dir = str(tmp_path)

    monkeypatch.setattr("IPython.get_ipython", lambda: Shell())
    (tmp_path / "sub" / "data" / "runs" / "ep_X").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "sub")  # a cell did os.chdir('sub'); the run was started with --runs-dir data/runs
    call = reach.show_call("ep_X", "data/runs/ep_X")
    named = re.search(r"runs_dir='(.*)'", call).group(1)  # type: ignore[union-attr]
    monkeypatch.chdir(tmp_path)  # the restarted kernel
    assert (Path(named) / "ep_X").is_dir(), call
    assert not os.path.isabs(named), "under the notebook's folder the path stays as short as typed"


def test_once_the_kernel_is_gone_the_note_says_the_earlier_episodes_go_on_no_more(
    runs_dir: Path, cell: dict[str, str], nnb: Any, comm_log: list
) -> None:
    """The note is drawn while the kernel runs; what it says once the kernel is gone (restarted, shut down) is drawn
    with it: an earlier episode waiting for a decision stays paused on disk, one running is lost; neither goes on in
    the background, and ``%noesis stop`` reaches nothing any more."""
    release = asyncio.Event()

    async def waits(task: str, ctx: Any) -> str:
        await release.wait()
        return "done"

    async def main() -> tuple[str, str, str]:
        running = noesis_nb.start("first", using=waits, runs_dir=runs_dir)
        EpisodeView(running)._repr_mimebundle_()
        paused = noesis_nb.start("second", using=nnb.make_tool_adapter([sys.executable, "-c", "pass"]), runs_dir=runs_dir)
        await nnb.until(lambda: paused.pending)
        EpisodeView(paused)._repr_mimebundle_()
        cell["request"] = "r2"
        third = noesis_nb.start("third", using=waits, runs_dir=runs_dir)
        view = EpisodeView(third)
        view._repr_mimebundle_()
        note = view.earlier.value
        release.set()
        paused.cancel()
        for handle in (running, paused, third):
            await handle.wait()
        return note, running.episode_id, paused.episode_id

    note, running_id, paused_id = asyncio.run(main())
    live, gone = with_kernel(note), without_kernel(note)
    assert "goes on in the background" in live and f"%noesis stop {running_id}" in live, live
    assert "background" not in gone and "%noesis stop" not in gone and "goes on no more" in gone, gone
    assert re.search(rf"{running_id} was running when the kernel stopped, so it is lost: settle it with %noesis resume", gone)
    assert re.search(rf"{paused_id} was paused waiting for a decision .* stays paused on disk", gone), gone
