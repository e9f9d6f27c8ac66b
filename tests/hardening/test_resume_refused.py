"""A ``resume_run`` that refuses (no decision yet, a wrong checkpoint, a broken state, sealed, held elsewhere) leaves
the run directory exactly as it found it: every file's bytes and every mtime, the owner note included."""

from __future__ import annotations

import os
import warnings
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.errors import CheckpointNotFoundError, EpisodeStateError
from noesis_nb.runtime.recorder import Recorder
from noesis_nb.runtime.resume import NothingToResume, paused_on
from noesis_nb.store.ownership import OWNER_FILE, acquire
from noesis_nb.tools import ApprovalDecisionRequiredError

from ..run_snapshot import snapshot
from ..runtime.agents import make_writer


def _paused(runs_dir: Path, tmp_path: Path) -> Path:
    episode = noesis_nb.solve("note", using=make_writer(tmp_path / "out.txt"), runs_dir=runs_dir)
    assert paused_on(runs_dir / episode) is not None
    return runs_dir / episode


def _with_a_note(run: Path) -> None:
    """The note a process that paused the run and then died left (what today's resume rewrote)."""
    (run / OWNER_FILE).write_text("pid 1 on elsewhere since 2026-01-01T00:00:00")
    os.utime(run / OWNER_FILE, ns=(1, 1))


@pytest.mark.parametrize("note", [True, False], ids=["old-note", "no-note"])
@pytest.mark.parametrize("refusal", ["undecided", "wrong checkpoint", "broken state"])
def test_a_refused_resume_changes_no_byte_and_no_mtime(runs_dir: Path, tmp_path: Path, refusal: str, note: bool) -> None:
    run = _paused(runs_dir, tmp_path)
    kwargs: dict[str, Any] = {}
    expected: type[Exception] = ApprovalDecisionRequiredError
    if refusal == "wrong checkpoint":
        kwargs["checkpoint_id"] = "ckpt_nope"
        expected = CheckpointNotFoundError
    elif refusal == "broken state":
        (run / "state.json").write_text("[]")
        expected = EpisodeStateError
    if note:
        _with_a_note(run)
    else:
        (run / OWNER_FILE).unlink(missing_ok=True)
    before = snapshot(run)
    with pytest.raises(expected):
        noesis_nb.resume_run(run.name, runs_dir=runs_dir, **kwargs)
    assert snapshot(run) == before


def test_a_resume_refused_because_the_run_is_sealed_or_held_changes_nothing(runs_dir: Path, tmp_path: Path) -> None:
    run = _paused(runs_dir, tmp_path)
    held = acquire(run)  # another live writer (its note says who)
    try:
        before = snapshot(run)
        with warnings.catch_warnings(record=True) as told:
            warnings.simplefilter("always")
            noesis_nb.resume_run(run.name, runs_dir=runs_dir)
        assert any(issubclass(w.category, NothingToResume) and "being written by" in str(w.message) for w in told)
        assert snapshot(run) == before
    finally:
        held.release()
    sealed = runs_dir / noesis_nb.solve("done", using=lambda task: "ok", runs_dir=runs_dir)
    before = snapshot(sealed)
    with pytest.warns(NothingToResume, match="already sealed"):
        noesis_nb.resume_run(sealed.name, runs_dir=runs_dir)
    assert snapshot(sealed) == before


def test_the_resume_that_goes_on_still_says_who_holds_the_run(runs_dir: Path, tmp_path: Path) -> None:
    """The note is written with the resume's first write, not dropped: a second resume meanwhile names the holder."""
    run = _paused(runs_dir, tmp_path)
    waiting = paused_on(run)
    assert waiting is not None
    noesis_nb.approve_draft(run.name, waiting[1], approver_id="ana", runs_dir=runs_dir)
    _with_a_note(run)
    rec = Recorder.reopen(run)
    try:
        assert (run / OWNER_FILE).read_text().startswith("pid 1 ")  # nothing written yet
        rec.emit("reason", {"text": "resuming"})
        assert (run / OWNER_FILE).read_text().startswith(f"pid {os.getpid()} ")
    finally:
        rec.close_without_sealing()
