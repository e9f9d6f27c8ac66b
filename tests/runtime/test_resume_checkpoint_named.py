"""A ``checkpoint_id`` the run does not have is refused in one line whatever the run is: paused, or sealed (where
``resume_run`` has nothing to do and used to pass the id over)."""

from __future__ import annotations

import os
import warnings
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.errors import CheckpointNotFoundError
from noesis_nb.runtime.resume import NothingToResume, paused_on
from noesis_nb.store import read_events

from .agents import make_writer


def _snapshot(run_dir: Path) -> dict[str, Any]:
    """Every entry under ``run_dir`` (never through a link): kind, mtime and the bytes of regular files."""
    shot: dict[str, Any] = {}
    for folder, dirs, files in os.walk(run_dir):
        for name in [".", *dirs, *files]:
            path = Path(folder, name)
            st = os.lstat(path)
            body = path.read_bytes() if os.path.isfile(path) and not os.path.islink(path) else None
            shot[str(path.relative_to(run_dir))] = (st.st_mode, st.st_mtime_ns, body)
    return shot


def _paused_and_approved(runs_dir: Path, marker: Path) -> Path:
    episode = noesis_nb.solve("note", using=make_writer(marker), runs_dir=runs_dir, approver="ask")
    assert paused_on(runs_dir / episode) is not None
    noesis_nb.approve_draft(episode, approver_id="ana", runs_dir=runs_dir)
    return runs_dir / episode


def _checkpoints(run: Path) -> list[str]:
    return [e["payload"]["checkpoint_id"] for e in read_events(run / "events.jsonl") if e.get("event_type") == "run.checkpoint"]


def test_a_checkpoint_id_the_run_does_not_have_is_refused_on_a_sealed_run(runs_dir: Path, tmp_path: Path):
    run = _paused_and_approved(runs_dir, tmp_path / "ran.txt")
    (real,) = _checkpoints(run)
    assert noesis_nb.resume_run(run.name, runs_dir=runs_dir) == run.name
    before = _snapshot(run)
    with pytest.raises(CheckpointNotFoundError) as info:
        noesis_nb.resume_run(run.name, runs_dir=runs_dir, checkpoint_id="chk_doesnotexist")
    assert "'chk_doesnotexist'" in str(info.value) and real in str(info.value)
    with warnings.catch_warnings(record=True) as told:  # the run's own checkpoint: sealed, nothing to do
        warnings.simplefilter("always")
        assert noesis_nb.resume_run(run.name, runs_dir=runs_dir, checkpoint_id=real) == run.name
    assert any(issubclass(w.category, NothingToResume) for w in told)
    assert _snapshot(run) == before


def test_a_checkpoint_id_the_run_does_not_have_is_refused_on_a_run_sealed_without_pausing(runs_dir: Path):
    episode = noesis_nb.solve("done", using=lambda task: "ok", runs_dir=runs_dir)
    with pytest.raises(CheckpointNotFoundError, match=r"known: \[\]"):
        noesis_nb.resume_run(episode, runs_dir=runs_dir, checkpoint_id="chk_000000000000")
