"""A ``checkpoint_id`` the run does not have is refused in one line whatever the run is: paused, or sealed (where
``resume_run`` has nothing to do and used to pass the id over)."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.errors import CheckpointNotFoundError
from noesis_nb.runtime.resume import NothingToResume, paused_on
from noesis_nb.store import read_events

from ..run_snapshot import snapshot
from .agents import make_writer


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
    before = snapshot(run)
    with pytest.raises(CheckpointNotFoundError) as info:
        noesis_nb.resume_run(run.name, runs_dir=runs_dir, checkpoint_id="chk_doesnotexist")
    assert "'chk_doesnotexist'" in str(info.value) and real in str(info.value)
    with warnings.catch_warnings(record=True) as told:  # the run's own checkpoint: sealed, nothing to do
        warnings.simplefilter("always")
        assert noesis_nb.resume_run(run.name, runs_dir=runs_dir, checkpoint_id=real) == run.name
    assert any(issubclass(w.category, NothingToResume) for w in told)
    assert snapshot(run) == before


def test_a_checkpoint_id_the_run_does_not_have_is_refused_on_a_run_sealed_without_pausing(runs_dir: Path):
    episode = noesis_nb.solve("done", using=lambda task: "ok", runs_dir=runs_dir)
    with pytest.raises(CheckpointNotFoundError, match=r"known: \[\]"):
        noesis_nb.resume_run(episode, runs_dir=runs_dir, checkpoint_id="chk_000000000000")
