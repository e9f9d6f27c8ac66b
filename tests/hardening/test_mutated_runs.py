"""Hundreds of mutated real runs: no non-strict load raises, every mutation is reported where it was made.

A few runs of varied shapes are written once by the engine (sealed with model calls, tools
approved, rejected, replayed, a paused run, a failure, an integration run). Each hypothesis
example copies them into ~100 run directories, mutates each copy once (``mutate.py``: wrong
types in event lines and documents, deleted required fields, lines cut short or garbled,
NaN/Infinity literals, values nested deep, truncated or emptied documents, directories, FIFOs
and symlinks out of the run in place of files) and loads all four frames over them with the
cache cleared. It asserts: no frame raises with ``strict=False`` (nor the store's ``list_runs``); each mutation has a report
naming its file (and its line, for an event line) with the expected reason; nothing read
through a symlink out of the run reaches a frame; and a strict load of the frame that reads
the file raises an error naming the file (and line). The figures (runs mutated, reports,
raises) are printed at the end of the session.
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from noesis_nb.errors import EventLogIntegrityError
from noesis_nb.frames import RunLoadError, clear_cache, events_df, runs_df, tools_df, usage_df
from noesis_nb.store import list_runs

from . import mutate
from .episodes import SHAPES
from .report import figures

FIGURES = {"runs mutated": 0, "reports": 0, "raises (strict=False)": 0, "strict loads checked": 0, "examples": 0}
BATCH = (90, 100)
FRAMES = {"runs_df": runs_df, "events_df": events_df, "tools_df": tools_df, "usage_df": usage_df}
STRICT_FRAME = {"events": events_df, "prepared": tools_df, "approvals": tools_df, "executions": tools_df}
OPS = ["any"] * 20 + list(mutate.FILE_OPS)  # one in six replaces a file by a directory, FIFO or symlink


@pytest.fixture(autouse=True)
def _fresh_cache():
    """Each test starts and ends with an empty frames cache (nothing leaks between tests)."""
    clear_cache()
    yield
    clear_cache()


@pytest.fixture(scope="module")
def bases(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Real runs of varied shapes, each with its own files (tool records, no summary, ...)."""
    root = tmp_path_factory.mktemp("bases") / "runs"
    for n, shape in enumerate(["llm", "tool", "command", "paused", "failing", "integration", "phases", "paused", "tagged"]):
        SHAPES[shape](root, n)
    SHAPES["resume"](root, 90)  # approve and resume the first paused run: approvals, executions, a resumed log
    for n in range(2):
        SHAPES["paused"](root, 100 + n)
    SHAPES["reject"](root, 99)
    runs = sorted(p for p in root.iterdir() if p.is_dir())
    errors = {name: frame(root, cache=False).attrs["errors"] for name, frame in FRAMES.items()}
    assert errors == dict.fromkeys(FRAMES, []), errors  # the pristine runs are clean: every report below is earned
    return runs


@pytest.fixture(scope="module")
def outside(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Files outside every run that symlinks point to; if a reader followed one, its marker would show in a frame."""
    place = tmp_path_factory.mktemp("outside")
    doc = {
        "episode_id": mutate.OUTSIDE_MARK,
        "task": mutate.OUTSIDE_MARK,
        "status": mutate.OUTSIDE_MARK,
        "files": [{"name": mutate.OUTSIDE_MARK}],
        "draft_id": mutate.OUTSIDE_MARK,
    }
    (place / "doc.json").write_text(json.dumps(doc))
    line = {
        "id": mutate.OUTSIDE_MARK,
        "timestamp": "2025-01-01T00:00:00+00:00",
        "phase": mutate.OUTSIDE_MARK,
        "payload": {"event_name": "model.call", "model": mutate.OUTSIDE_MARK, "input_tokens": 1, "output_tokens": 1},
    }
    (place / "events.jsonl").write_text(json.dumps(line) + "\n")
    return place


def _leaked(frames: dict[str, pd.DataFrame]) -> list[str]:
    return [
        name
        for name, df in frames.items()
        if len(df) and df.astype(str).apply(lambda col: col.str.contains(mutate.OUTSIDE_MARK, regex=False)).to_numpy().any()
    ]


@settings(
    max_examples=6,
    deadline=None,
    database=None,
    derandomize=True,
    phases=[Phase.generate],
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(seed=st.integers(0, 2**32), size=st.integers(*BATCH))
def test_every_mutation_is_reported_and_nothing_raises(tmp_path_factory, bases, outside, seed, size) -> None:
    rng = random.Random(seed)
    batch = [(rng.randrange(10**6), rng.randrange(10**6), rng.choice(OPS), rng.randrange(2**32)) for _ in range(size)]
    root = tmp_path_factory.mktemp("mutated")
    expected: list[tuple[Path, str, mutate.Expect]] = []
    for i, (base, target, op, seed) in enumerate(batch):
        run = root / f"{bases[base % len(bases)].name}-m{i:03d}"
        shutil.copytree(bases[base % len(bases)], run, symlinks=True)
        expect = mutate.mutate(run, (target, op), random.Random(seed), outside)
        expected.append((run, expect.kind, expect))
    clear_cache()
    loaded, raised = {}, []
    for name, frame in FRAMES.items():
        try:
            loaded[name] = frame(str(root), cache=False)
        except Exception as exc:
            raised.append(f"{name}: {type(exc).__name__}: {exc}")
    try:
        list_runs(None, runs_dir=root, strict_manifest=True)  # the store's own run listing reads the same files
    except Exception as exc:
        raised.append(f"list_runs: {type(exc).__name__}: {exc}")
    FIGURES["examples"] += 1
    FIGURES["runs mutated"] += len(batch)
    FIGURES["raises (strict=False)"] += len(raised)
    assert not raised, raised
    errors = [e for df in loaded.values() for e in df.attrs["errors"]]
    FIGURES["reports"] += len(errors)
    missed = [f"{e.what} ({e.path}, line {e.line}, wanted {e.words})" for _, _, e in expected if not e.met(errors)]
    assert not missed, missed[:10]
    assert not _leaked(loaded), "a frame shows data read through a symlink out of its run"
    for run, kind, expect in expected[::4]:  # strict loads: one in four, each run alone
        frame = STRICT_FRAME.get(kind, runs_df)
        with pytest.raises((RunLoadError, EventLogIntegrityError)) as err:
            frame(str(run), strict=True, cache=False)
        message = str(err.value)
        assert expect.path in message, (expect.what, message)
        if expect.line is not None:
            assert f"line {expect.line}" in message, (expect.what, message)
        FIGURES["strict loads checked"] += 1


def test_figures_cover_at_least_500_runs() -> None:
    """Runs after the property above (same module, file order): the Done-when figure."""
    if FIGURES["examples"] == 0:
        pytest.skip("the mutation property did not run in this session (deselected)")
    figures("mutated runs (frames)", FIGURES)
    assert FIGURES["runs mutated"] >= 500 and FIGURES["raises (strict=False)"] == 0, FIGURES
