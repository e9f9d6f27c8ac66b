"""A paused run whose checkpoint folder (``checkpoints/<id>``) is a file, emptied or gone: resume_run says what is
wrong with that folder and to restore it, never "not found … known: [<that same id>]. Pass one of them" (a fix that
cannot work). approve_draft, which reads the log to find the pause, refuses to record a decision the run could never
be resumed with; once the folder is restored, both work."""

from __future__ import annotations

import shutil
import warnings
from collections.abc import Callable
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.errors import CheckpointNotFoundError
from noesis_nb.store import verify_manifest

from .agents import paused_on_disk

_DAMAGE: dict[str, Callable[[Path], None]] = {
    "a_file": lambda folder: folder.write_text("x"),
    "emptied": lambda folder: folder.mkdir(),
    "gone": lambda folder: None,
}


@pytest.mark.parametrize("damage", sorted(_DAMAGE))
def test_a_damaged_checkpoint_folder_is_said_and_no_decision_recorded(tmp_path: Path, damage: str) -> None:
    out = tmp_path / "out.txt"
    run, draft = paused_on_disk(tmp_path / "runs", out)
    (folder,) = (run / "checkpoints").iterdir()
    checkpoint_id = folder.name
    kept = tmp_path / "kept"
    shutil.move(str(folder), str(kept))
    _DAMAGE[damage](folder)

    with pytest.raises(CheckpointNotFoundError) as decided:
        noesis_nb.approve_draft(run, approver_id="ana")
    assert str(folder) in str(decided.value) and "No decision was recorded" in str(decided.value)
    assert not (run / "tool_invocations" / "approvals" / f"{draft}.json").exists()

    for named in (None, checkpoint_id):
        with pytest.raises(CheckpointNotFoundError) as resumed:
            noesis_nb.resume_run(run, checkpoint_id=named)
        said = str(resumed.value)
        assert str(folder) in said and "restore that folder from a copy of the run" in said
        assert "Pass one of them" not in said and "known:" not in said

    if folder.is_dir():
        folder.rmdir()
    elif folder.exists():
        folder.unlink()
    shutil.move(str(kept), str(folder))  # the fix it names
    noesis_nb.approve_draft(run, approver_id="ana")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        noesis_nb.resume_run(run)
    assert out.read_text() == "one\n" and verify_manifest(run).ok


def test_an_id_the_run_never_had_is_still_not_found_with_the_known_ones(tmp_path: Path) -> None:
    run, _ = paused_on_disk(tmp_path / "runs", tmp_path / "out.txt")
    (folder,) = (run / "checkpoints").iterdir()
    noesis_nb.approve_draft(run, approver_id="ana")
    with pytest.raises(CheckpointNotFoundError, match=rf"not found .*known: \['{folder.name}'\]\. Pass one of them"):
        noesis_nb.resume_run(run, checkpoint_id="chk_000000000000")
