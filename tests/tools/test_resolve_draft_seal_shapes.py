"""Finding the draft to decide counts a run's seal as every writer does (``lstat``, never through a link).

With no draft pending, ``resolve_draft_id`` (and ``decide``, which asks it first) tells a sealed run from one still
open. A link or folder planted at ``final.json`` / ``manifest.json`` is neither: it is named, with the fix, instead
of being followed (a link to a copy of a seal called the run sealed; a dangling one said "pass a draft id").
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.store.sealing import SealDocumentError
from noesis_nb.tools import decide, resolve_draft_id
from noesis_nb.tools.errors import PreparedToolInvocationNotFoundError


def _open_run(runs_dir: Path, tmp_path: Path) -> Path:
    """A finished run with no drafts whose seal documents are moved out of it (copies kept beside it)."""
    episode = noesis_nb.solve("t", using=lambda task, ctx: "ok", runs_dir=runs_dir)
    run = runs_dir / episode
    for name in ("final.json", "manifest.json"):
        os.replace(run / name, tmp_path / f"copy-of-{name}")
    return run


def _plant(run: Path, tmp_path: Path, name: str, shape: str) -> Path:
    path = run / name
    if shape == "link to a copy":
        os.symlink(tmp_path / f"copy-of-{name}", path)
    elif shape == "dangling link":
        os.symlink(tmp_path / "nowhere.json", path)
    else:
        path.mkdir()
    return path


@pytest.mark.parametrize("shape", ["link to a copy", "dangling link", "folder"])
@pytest.mark.parametrize("name", ["final.json", "manifest.json"])
@pytest.mark.parametrize("ask", ["resolve_draft_id", "decide"])
def test_an_odd_seal_document_is_named_not_followed(runs_dir, tmp_path, name, shape, ask):
    run = _open_run(runs_dir, tmp_path)
    planted = _plant(run, tmp_path, name, shape)
    with pytest.raises(SealDocumentError) as refused:
        if ask == "decide":
            decide(run, None, approve=True, approver_id="ana")
        else:
            resolve_draft_id(run)
    assert str(planted) in str(refused.value) and "Remove" in str(refused.value)
    assert not (run / "tool_invocations" / "approvals").exists()  # nothing was written


def test_a_sealed_run_and_an_open_one_are_still_told_apart(runs_dir, tmp_path):
    run = _open_run(runs_dir, tmp_path)
    with pytest.raises(PreparedToolInvocationNotFoundError, match="no draft is pending"):
        resolve_draft_id(run)
    os.replace(tmp_path / "copy-of-final.json", run / "final.json")
    with pytest.raises(PreparedToolInvocationNotFoundError, match="is sealed"):
        resolve_draft_id(run)
