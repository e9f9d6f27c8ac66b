"""A warm reload after runs changed on disk equals a cold load: the caches never serve what the disk no longer says.

Real runs of varied shapes are loaded once by every frame (filling the caches and the frame
memo), then some of them are mutated on disk the way ``test_mutated_runs`` does (edits in place
of sealed documents, records deleted or turned into folders, lines garbled, symlinks), and some
a paused run is approved, resumed and sealed, and new runs appear. Each frame loaded again with the cache on must equal the same
frame loaded cold, errors included, with every ``runs_df`` verification level.
"""

from __future__ import annotations

import random
import shutil

import pandas as pd
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import noesis_nb
from noesis_nb.frames import clear_cache, events_df, runs_df, tools_df, usage_df

from . import mutate
from .episodes import SHAPES
from .test_mutated_runs import OPS, bases, outside  # noqa: F401 - fixtures shared with the mutation suite

LOADS = {
    "runs_df quick": lambda root, cache: runs_df(root, cache=cache),
    "runs_df size": lambda root, cache: runs_df(root, cache=cache, verify="size"),
    "runs_df hash": lambda root, cache: runs_df(root, cache=cache, verify="hash"),
    "events_df": lambda root, cache: events_df(root, cache=cache),
    "tools_df": lambda root, cache: tools_df(root, cache=cache),
    "usage_df": lambda root, cache: usage_df(root, cache=cache),
}


def _same(name: str, warm: pd.DataFrame, cold: pd.DataFrame) -> None:
    sort = ["episode_id", "seq"] if "seq" in cold else ["episode_id"]
    key = [c for c in sort if c in cold]
    pd.testing.assert_frame_equal(
        warm.drop(columns=["payload"], errors="ignore").sort_values(key, kind="stable").reset_index(drop=True),
        cold.drop(columns=["payload"], errors="ignore").sort_values(key, kind="stable").reset_index(drop=True),
        obj=name,
    )
    if "payload" in cold:
        assert warm["payload"].tolist() == cold["payload"].tolist(), name
    order = lambda errors: sorted((e["path"], e["line"] or 0, e["reason"]) for e in errors)  # noqa: E731
    assert order(warm.attrs["errors"]) == order(cold.attrs["errors"]), name


@pytest.fixture(autouse=True)
def _fresh_cache():
    clear_cache()
    yield
    clear_cache()


@settings(
    max_examples=8,
    deadline=None,
    database=None,
    derandomize=True,
    phases=[Phase.generate],
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(seed=st.integers(0, 2**32))
def test_a_warm_reload_after_changes_equals_a_cold_load(tmp_path_factory, bases, outside, seed) -> None:  # noqa: F811
    rng = random.Random(seed)
    root = tmp_path_factory.mktemp("warm")
    runs = []
    for i in range(24):
        base = bases[i % len(bases)]
        run = root / f"{base.name}-w{i:02d}"
        shutil.copytree(base, run, symlinks=True)
        runs.append(run)
    paused = SHAPES["paused"](root, 400)  # resumed and sealed after the warm load: lines appended to a cached run
    for load in LOADS.values():
        load(str(root), True)  # the caches now hold every run
    for run in rng.sample(runs, 10):
        mutate.mutate(run, (rng.randrange(10**6), rng.choice(OPS)), random.Random(rng.randrange(2**32)), outside)
    for n in range(2):  # new runs of other shapes appear beside them
        SHAPES[rng.choice(["llm", "tool", "paused", "failing"])](root, 500 + n)
    noesis_nb.approve_draft(paused, approver_id="ops", reason="warm", runs_dir=root)
    noesis_nb.resume_run(paused, runs_dir=root)
    for name, load in LOADS.items():
        _same(name, load(str(root), True), load(str(root), False))
