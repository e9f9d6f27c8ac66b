"""Second loads equal a cold load: every frame, after new runs of any shape, with the cache on and off.

A hypothesis-drawn script interleaves real episodes (``episodes.SHAPES``: model calls of new
models, tools, new tags and phases, paused and resumed runs, integration-like runs, failures)
with loads of single frames, so the cache holds parts built before a run brought new
categories. At every check, each frame loaded through that cache, and loaded with
``cache=False``, must equal a cold load (``clear_cache()`` first): values, dtypes, categories
and their order, and the reported problems. The in-process run uses whatever this environment
has; where pyarrow is installed, the same script also runs in a subprocess with pyarrow blocked.
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from noesis_nb.frames import Column, _arrays, clear_cache, eventblocks, events_df, runs_df, tools_df, usage_df

from .episodes import SHAPES

_STATUS = [Column("payload_status", path="payload.status", type="category")]
FRAMES = {
    "runs": runs_df,
    "events": events_df,
    "events+column": lambda root, **kw: events_df(root, columns=_STATUS, **kw),
    "tools": tools_df,
    "usage": usage_df,
}
step = st.one_of(
    st.tuples(st.just("run"), st.sampled_from(sorted(SHAPES))),
    st.tuples(st.just("load"), st.sampled_from(sorted(FRAMES))),
    st.just(("check", "")),
)


@pytest.fixture(autouse=True)
def _fresh_cache():
    """Each test starts and ends with an empty frames cache (nothing leaks between tests)."""
    clear_cache()
    yield
    clear_cache()


def assert_same(got: pd.DataFrame, cold: pd.DataFrame, what: str) -> None:
    pd.testing.assert_frame_equal(got, cold, check_dtype=True, check_categorical=True, obj=what)
    assert got.attrs.get("errors") == cold.attrs.get("errors"), what


def check_all(root: Path) -> None:
    """Each frame through the current cache, and without it, against a cold load."""
    warm = {name: frame(root) for name, frame in FRAMES.items()}
    uncached = {name: frame(root, cache=False) for name, frame in FRAMES.items()}
    clear_cache()
    for name, frame in FRAMES.items():
        cold = frame(root)
        assert_same(warm[name], cold, f"{name}: cached load vs cold load")
        assert_same(uncached[name], cold, f"{name}: cache=False vs cold load")
        assert_same(frame(root), cold, f"{name}: second load of unchanged runs")


@settings(
    max_examples=int(os.environ.get("NOESIS_NB_RELOAD_EXAMPLES", "12")),
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(script=st.lists(step, min_size=2, max_size=9), batch_rows=st.sampled_from([1024, 5, 40]))
def test_second_loads_equal_a_cold_load(tmp_path_factory: pytest.TempPathFactory, script, batch_rows: int) -> None:
    root = tmp_path_factory.mktemp("reload") / "runs"
    clear_cache()
    saved, eventblocks._BATCH_ROWS = eventblocks._BATCH_ROWS, batch_rows  # small batches: a run's parts span several
    try:
        SHAPES["llm"](root, 0)
        FRAMES["events"](root)
        FRAMES["tools"](root)
        for n, (kind, name) in enumerate(script, start=1):
            if kind == "run":
                SHAPES[name](root, n)
            elif kind == "load":
                FRAMES[name](root)
            else:
                check_all(root)
        check_all(root)
    finally:
        eventblocks._BATCH_ROWS = saved


def test_a_tool_run_after_a_load_does_not_break_the_next_load(tmp_path: Path) -> None:
    """The reported case: events_df, then a new episode that calls a tool, then events_df and tools_df again."""
    root = tmp_path / "runs"
    SHAPES["llm"](root, 0)
    events_df(root), tools_df(root), usage_df(root)
    SHAPES["tool"](root, 1)
    for name in ("events", "tools", "usage"):
        warm = FRAMES[name](root)
        clear_cache()
        assert_same(warm, FRAMES[name](root), name)


def test_this_process_mode_is_what_it_claims() -> None:
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        importable = False
    else:
        importable = True
    assert _arrays.HAVE_ARROW == importable
