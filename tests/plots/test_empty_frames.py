"""A plot of a frame with nothing to draw says so in the figure, with what to do: a blank grid says neither.

A newcomer's first ``usage_df()`` often reads an empty or wrong runs dir; each figure drawn from it used to be
an empty grid (or bars of nothing) that reads as "no cost" rather than "no runs here".
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import plotly.graph_objects as go
import pytest

import noesis_nb
from noesis_nb import plots
from noesis_nb.errors import InvalidOptionError
from noesis_nb.frames import clear_cache


def _said(fig: go.Figure) -> str:
    return " ".join(str(a.text) for a in fig.layout.annotations or ())


@pytest.fixture
def empty(tmp_path: Path) -> dict[str, Any]:
    clear_cache()
    root = tmp_path / "runs"
    root.mkdir()
    return {name: getattr(noesis_nb, name)(root) for name in ("events_df", "runs_df", "tools_df", "usage_df")}


def test_each_figure_of_an_empty_frame_says_there_is_nothing_and_how_to_load_some(empty: dict[str, Any]) -> None:
    runs, tools, usage = empty["runs_df"], empty["tools_df"], empty["usage_df"]
    assert runs.empty and tools.empty and usage.empty
    figures = {
        "cost_over_time": (plots.cost_over_time(usage), "noesis_nb.usage_df(RUNS_DIR)"),
        "tokens_by": (plots.tokens_by(usage), "noesis_nb.usage_df(RUNS_DIR)"),
        "tokens_over_time": (plots.tokens_over_time(usage), "noesis_nb.usage_df(RUNS_DIR)"),
        "success_by_adapter": (plots.success_by_adapter(runs), "noesis_nb.runs_df(RUNS_DIR)"),
        "duration_by_adapter": (plots.duration_by_adapter(runs), "noesis_nb.runs_df(RUNS_DIR)"),
        "approval_waits": (plots.approval_waits(tools), "no decided drafts"),
        "batch_summary_plot": (plots.batch_summary_plot(noesis_nb.batch_summary(runs)), "no adapters"),
    }
    for what, (fig, fix) in figures.items():
        said = _said(fig)
        assert said.count("no ") >= 1 and fix in said, f"{what} drew an empty figure saying {said!r}"
        assert fig.layout.xaxis.visible is False, f"{what}: an empty grid under the note"


def test_a_timeline_of_no_events_names_the_loader_and_the_runs_dir(empty: dict[str, Any]) -> None:
    with pytest.raises(InvalidOptionError) as info:
        plots.episode_timeline(empty["events_df"])
    assert "events has no rows" in str(info.value) and "noesis_nb.events_df(RUNS_DIR)" in str(info.value)


@pytest.mark.parametrize("given", [None, [1, 2], {"success_rate": 1.0, "diff": 0.1}, "runs"])
def test_a_batch_plot_given_something_else_names_the_frame_it_needs(given: Any, empty: dict[str, Any]) -> None:
    for plot, maker in (
        (plots.batch_summary_plot, "noesis_nb.batch_summary(runs)"),
        (plots.compare_batches_plot, "noesis_nb.compare_batches(a, b)"),
    ):
        for value in (given, empty["runs_df"]):  # a runs frame has none of the summary's columns
            with pytest.raises(InvalidOptionError) as info:
                plot(value)
            assert maker in str(info.value), str(info.value)
