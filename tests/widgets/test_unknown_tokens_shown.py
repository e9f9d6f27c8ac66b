"""A token total that is unknown (some call did not report it) reads "—" or "≥ N" in every view, never 0 or a smaller sum."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import noesis_nb
from noesis_nb.widgets import EpisodeView
from noesis_nb.widgets.batchgrid import BatchFigures
from noesis_nb.widgets.batchview import BatchView
from noesis_nb.widgets.state import format_tokens
from tests.runtime.test_usage_unknown import UNKNOWN_INPUT, input_unknown, parts_unreported

SHOWN = "— in · 15 out (2 calls)"


def _tokens_in(html: str) -> str:
    found = re.search(r"tokens ([^<]*?) · cost", html)
    assert found, html
    return found.group(1)


def test_the_live_view_the_disk_view_and_the_replay_show_an_unknown_input_total_as_a_dash(runs_dir: Path, comm_log: list) -> None:
    async def main() -> Any:
        handle = noesis_nb.start("count tokens", using=input_unknown, runs_dir=runs_dir)
        view = EpisodeView(handle)
        await handle.wait()
        view.flush()
        assert view.state()["header"]["tokens"] == SHOWN
        assert _tokens_in(view.snapshot_html()) == SHOWN
        view.close()
        return handle

    handle = asyncio.run(main())
    assert handle.usage == UNKNOWN_INPUT
    disk = noesis_nb.show(handle.run_dir)
    assert disk.state()["header"]["tokens"] == SHOWN and _tokens_in(disk.snapshot_html()) == SHOWN
    replay = noesis_nb.replay(handle.episode_id, runs_dir=runs_dir)
    assert replay.state()["header"]["tokens"] == SHOWN
    model_events = [i for i, e in enumerate(replay.run.events) if e["phase"] == "model"]
    assert replay.seek(model_events[0] + 1).state()["header"]["tokens"] == "100 in · 10 out (1 call)"
    assert replay.seek(0).state()["header"]["tokens"] == "0 in · 0 out (0 calls)"  # no call made yet: none, not unknown


def test_format_tokens_shows_a_dash_for_an_unknown_total() -> None:
    assert format_tokens({"model_calls": 3, "input_tokens": None, "output_tokens": 0}) == "— in · 0 out (3 calls)"  # 0 known
    assert format_tokens({"model_calls": 1, "input_tokens": 1200, "output_tokens": None}) == "1,200 in · — out (1 call)"
    assert format_tokens({"model_calls": 0, "input_tokens": None, "output_tokens": None}) == "—"


def test_the_batch_grid_sums_known_totals_as_a_lower_bound_and_never_counts_unknown_as_zero(
    runs_dir: Path, comm_log: list
) -> None:
    async def main() -> None:
        b = noesis_nb.batch(["a", "b"], using={"parts": parts_unreported, "input": input_unknown}, root=runs_dir)
        view = BatchView(b, rows=5)
        await b.wait()
        await asyncio.sleep(0.25)
        view.flush()
        assert "tokens ≥ 300 in · 60 out" in view.header.value  # two entries' 150 known, two entries' input unknown
        assert _tokens_in(view.snapshot_html()) == "≥ 300 in · 60 out"
        view.close()

        only_unknown = noesis_nb.batch(["c"], using=input_unknown, root=runs_dir)
        view = BatchView(only_unknown, rows=5)
        await only_unknown.wait()
        await asyncio.sleep(0.25)
        view.flush()
        assert _tokens_in(view.snapshot_html()) == "— in · 15 out"
        view.close()

    asyncio.run(main())


class _Entry:
    def __init__(self, index: int, usage: dict[str, Any]) -> None:
        self.index, self.adapter, self.usage, self.handle, self.disk = index, "a", usage, None, None
        self.status, self.run_dir = "running", None  # a batch entry's status and run folder, as the grid reads them


def test_batch_figures_leave_out_entries_without_calls_and_mark_unknown_totals() -> None:
    figures = BatchFigures()
    figures.update([_Entry(0, {}), _Entry(1, {"model_calls": 0, "input_tokens": None, "output_tokens": None})])
    assert figures.token_text() == "—"  # nothing has called a model yet
    figures.update([_Entry(2, {"model_calls": 1, "input_tokens": 40, "output_tokens": 4})])
    assert figures.token_text() == "40 in · 4 out"
    figures.update([_Entry(3, {"model_calls": 2, "input_tokens": None, "output_tokens": 6})])
    assert figures.token_text() == "≥ 40 in · 10 out"
    figures.update([_Entry(3, {})])  # the entry runs again: its old figures go
    assert figures.token_text() == "40 in · 4 out"
