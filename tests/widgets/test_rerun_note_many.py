"""A cell run again and again (a newcomer's Run All of the quickstart, ``approver='ask'``) leaves one more paused
episode each time: the note named every one of them (30 Run Alls, 30 items, 17 KB) with no way to stop them all.
It names the newest few, counts the rest with the command that lists them, and gives one ``%noesis stop`` line
that stops every one, which the real magic runs."""

from __future__ import annotations

import asyncio
import re
import sys
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.widgets import rerun
from noesis_nb.widgets.view import EpisodeView
from tests.ipshell import run_magic
from tests.widgets.staletext import with_kernel

RUNS = 9  # the cell's runs: the last one's view names the 8 episodes the earlier ones left paused


@pytest.fixture
def cell(monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    where = {"cell": "cell-1", "request": "r0"}
    monkeypatch.setattr(rerun, "running_cell", lambda: (where["cell"], where["request"]))
    monkeypatch.setattr(rerun, "_SHOWN", {})
    return where


def test_many_earlier_episodes_are_counted_and_one_line_stops_them_all(runs_dir: Path, cell: dict[str, str], nnb: Any) -> None:
    adapter = nnb.make_tool_adapter([sys.executable, "-c", "pass"])

    async def main() -> tuple[str, list[Any], str]:
        handles = []
        for i in range(RUNS):
            cell["request"] = f"r{i}"
            handle = noesis_nb.start(f"run {i}", using=adapter, runs_dir=runs_dir)
            await nnb.until(lambda h=handle: h.pending)
            view = EpisodeView(handle)
            view._repr_mimebundle_()
            handles.append(handle)
        note = view.earlier.value
        line = re.search(r"Stop all \d+ with (%noesis stop [^\n]+?)\s*$", with_kernel(note), re.M)
        assert line, with_kernel(note)
        _, said = run_magic(line.group(1).removeprefix("%noesis "))
        for handle in handles[:-1]:
            await handle.wait()
        handles[-1].cancel()
        await handles[-1].wait()
        return note, handles, said

    note, handles, said = asyncio.run(main())
    earlier = [h.episode_id for h in handles[:-1]]
    text = with_kernel(note)
    named = sorted((e for e in earlier if f"{e} still waits for a decision" in text), key=text.index)
    assert named == earlier[::-1][: len(named)] and 1 <= len(named) <= 5, (named, text)  # the newest, first
    assert f"and {len(earlier) - len(named)} more: %noesis list" in text, text
    assert note.count("<li>") == len(named) + 1, note
    assert len(note) < 4000, len(note)  # 8 named in full took ~4.6 KB; 30 took 17 KB
    assert [h.status for h in handles[:-1]] == ["cancelled"] * len(earlier), (said, [h.status for h in handles])
    assert all(f"cancelling {e}" in said for e in earlier), said
    assert handles[-1].episode_id not in text  # the view's own episode is not among those left behind


def test_stop_of_several_says_which_was_not_running(runs_dir: Path, nnb: Any) -> None:
    adapter = nnb.make_tool_adapter([sys.executable, "-c", "pass"])

    async def main() -> tuple[Any, str]:
        handle = noesis_nb.start("paused", using=adapter, runs_dir=runs_dir)
        await nnb.until(lambda: handle.pending)
        _, said = run_magic(f"stop ep_01K9ZZZZZZZZZZZZZZZZZZZZZZ {handle.episode_id}")
        await handle.wait()
        return handle, said

    handle, said = asyncio.run(main())
    assert handle.status == "cancelled", said
    assert "'ep_01K9ZZZZZZZZZZZZZZZZZZZZZZ' is not running in this kernel" in said and f"cancelling {handle.episode_id}" in said
