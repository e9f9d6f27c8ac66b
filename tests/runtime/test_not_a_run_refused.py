"""A folder holding only an empty ``state.json`` ({}: no episode, no events, no summary) is no run: approve_draft and
reject_draft say so instead of "running in the process that writes it", and show() does not draw it running."""

from __future__ import annotations

from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.errors import EpisodeStateError
from noesis_nb.runtime.diskrun import DiskRun


@pytest.fixture(params=["{}", "[]", None])
def no_run(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    folder = tmp_path / "not-a-run"
    folder.mkdir()
    if request.param is not None:
        (folder / "state.json").write_text(request.param)
    (folder / "events.jsonl").write_bytes(b"")
    return folder


@pytest.mark.parametrize("decide", [noesis_nb.approve_draft, noesis_nb.reject_draft])
def test_deciding_in_a_folder_that_is_no_run_says_not_a_run(no_run: Path, decide) -> None:
    with pytest.raises(EpisodeStateError) as caught:
        decide(no_run)
    said = str(caught.value)
    assert "is not a run" in said and "running" not in said, said
    assert "no summary.json" in said and "events.jsonl" in said


def test_a_folder_that_is_no_run_is_not_shown_running(no_run: Path) -> None:
    run = DiskRun(no_run)
    assert run.status not in ("running", "lost")
    assert any("is not a run" in p for p in run.problems), run.problems
