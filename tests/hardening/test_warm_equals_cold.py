"""A warm reload after runs changed on disk equals a cold load: the caches never serve what the disk no longer says.

Real runs of varied shapes are loaded once by every frame (filling the caches and the frame
memo), then some of them are mutated on disk the way ``test_mutated_runs`` does (edits in place
of sealed documents, records deleted or turned into folders, lines garbled, symlinks), and some
a paused run is approved, resumed and sealed, and new runs appear. Each frame loaded again with the cache on must equal the same
frame loaded cold, errors included, with every ``runs_df`` verification level.
"""

from __future__ import annotations

import os
import random
import shutil
import time

import pandas as pd
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import noesis_nb
from noesis_nb.frames import clear_cache, events_df, runs_df, tools_df, usage_df
from noesis_nb.frames.fs import RACY_NS

from . import mutate
from .episodes import SHAPES, tool_records
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


def _swap(path, find: bytes, change) -> None:
    """Edit ``path`` in place, keeping its size, then set its mtime back as ``touch -r`` / ``cp -p`` / ``rsync -t`` do."""
    st = path.stat()
    data = path.read_bytes()
    at = data.index(find)
    edited = data[:at] + change(find) + data[at + len(find) :]
    assert len(edited) == len(data) and edited != data
    with path.open("r+b") as fh:
        fh.write(edited)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert path.stat().st_mtime_ns == st.st_mtime_ns and path.stat().st_size == st.st_size


def _next_digit(found: bytes) -> bytes:
    return found[:-1] + str((int(found[-1:]) + 1) % 10).encode()


# file -> (a key whose number gets another last digit, or a text and its same-length replacement; the frames showing it)
_EDITS = {
    "summary.json": (b'"duration_sec"', None, ("runs_df quick",)),
    "events.jsonl": (b'"output_tokens"', None, ("events_df", "usage_df")),
    "prepared": (b'"high"', lambda b: b'"HIGH"', ("tools_df",)),
}


@pytest.mark.parametrize("name", list(_EDITS))
def test_an_edit_in_place_with_its_mtime_set_back_is_read_again(tmp_path, name) -> None:
    """Size and mtime can both be kept by an edit (``touch -r``): the ctime cannot, and the caches compare it too."""
    root = tmp_path / "runs"
    runs = [root / SHAPES["llm"](root, 1), root / SHAPES["tool"](root, 2)]
    time.sleep(RACY_NS / 1e9 * 2)  # old enough to be cached
    find, change, frames = _EDITS[name]
    before = {key: LOADS[key](str(root), True) for key in frames}
    if name == "prepared":
        (path,) = tool_records(runs[1], "prepared")
    else:
        path = runs[0] / name
    if change is None:  # the key's number, its last digit changed
        data = path.read_bytes()
        at = data.index(find)
        end = at + len(find) + len(data[at + len(find) :]) - len(data[at + len(find) :].lstrip(b": "))
        while data[end : end + 1].isdigit() or data[end : end + 1] == b".":
            end += 1
        find, change = data[at:end], _next_digit
    _swap(path, find, change)
    time.sleep(RACY_NS / 1e9 * 2)
    for key in frames:
        warm, cold = LOADS[key](str(root), True), LOADS[key](str(root), False)
        _same(key, warm, cold)
        with pytest.raises(AssertionError):  # the edit shows: the test can fail
            _same(key, warm, before[key])
