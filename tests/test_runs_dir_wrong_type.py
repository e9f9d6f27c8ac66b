"""``runs_dir=`` of a wrong type (a number, a list) given with a run directory: ``resume_run(run_dir, runs_dir=5)``
was taken without a word (the folder was not needed, so it was never looked at), while ``list_runs(runs_dir=5)``
refused it. Every public function taking ``runs_dir`` now refuses it the same way, whatever else it is given,
and the run is left as it was."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.batch import batch
from noesis_nb.errors import InvalidOptionError
from noesis_nb.store import find_run_dir


def _calls(run: Path, out: Path) -> dict[str, Callable[[Any], Any]]:
    return {
        "resume_run": lambda bad: noesis_nb.resume_run(run, runs_dir=bad),
        "resume_run_async": lambda bad: asyncio.run(noesis_nb.resume_run_async(run, runs_dir=bad)),
        "approve_draft": lambda bad: noesis_nb.approve_draft(run, "draft_abcdef", approver_id="ana", runs_dir=bad),
        "reject_draft": lambda bad: noesis_nb.reject_draft(run, "draft_abcdef", approver_id="ana", runs_dir=bad),
        "DiskRun": lambda bad: noesis_nb.DiskRun(run, runs_dir=bad),
        "export_otel": lambda bad: noesis_nb.export_otel(run, path=out / "spans.json", runs_dir=bad),
        "show": lambda bad: noesis_nb.show(run, runs_dir=bad),
        "replay": lambda bad: noesis_nb.replay(run, runs_dir=bad),
        "replay_compare": lambda bad: noesis_nb.replay(run, compare=run, runs_dir=bad),
        "find_run_dir": lambda bad: find_run_dir(run, bad),
        "list_runs": lambda bad: noesis_nb.list_runs(runs_dir=bad),
        "solve": lambda bad: noesis_nb.solve("again", using=lambda task: "b", runs_dir=bad),
        "batch": lambda bad: batch(["again"], using=lambda task: "b", runs_dir=bad),
        "batch_with_root": lambda bad: batch(["again"], using=lambda task: "b", root=out / "runs", runs_dir=bad),
    }


def _state(run: Path) -> dict[str, str]:
    return {str(p.relative_to(run)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(run.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("wrong_type") / "runs"
    return root / noesis_nb.solve("first", using=lambda task: "a", runs_dir=root)


@pytest.mark.parametrize("name", list(_calls(Path("."), Path("."))))
@pytest.mark.parametrize("bad", [5, 2.5, ["a", "b"], b"runs"], ids=repr)
def test_a_runs_dir_of_a_wrong_type_is_refused(run: Path, tmp_path: Path, name: str, bad: Any) -> None:
    before = _state(run)
    with pytest.raises(InvalidOptionError) as refused:
        _calls(run, tmp_path)[name](bad)
    assert str(refused.value).startswith(f"runs_dir={bad!r} is no path: pass a folder as a str or pathlib.Path")
    assert _state(run) == before
    assert not (tmp_path / "runs").exists() and not (tmp_path / "spans.json").exists()


def test_a_run_directory_with_a_real_runs_dir_still_opens(run: Path) -> None:
    assert noesis_nb.DiskRun(run, runs_dir=run.parent).episode_id == run.name
    assert find_run_dir(run.name, run.parent) == run
