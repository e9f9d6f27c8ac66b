"""A batch's root that is no folder for runs — a file, a FIFO, a link leading nowhere, a path under a file, a run's
own folder — is one error naming it, from ``batch()`` and ``%noesis batch``, before the batch record is written."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from IPython.core.error import UsageError

import noesis_nb
from noesis_nb.errors import RunsDirError

from .agents import echo


def _file(tmp: Path) -> tuple[Path, str]:
    (tmp / "notes.txt").write_text("not a folder")
    return tmp / "notes.txt", "is a file, not a folder"


def _fifo(tmp: Path) -> tuple[Path, str]:
    os.mkfifo(tmp / "pipe")
    return tmp / "pipe", "is a FIFO, not a folder"


def _dangling_link(tmp: Path) -> tuple[Path, str]:
    (tmp / "gone").symlink_to(tmp / "nowhere")
    return tmp / "gone", "symbolic link that leads nowhere"


def _under_a_file(tmp: Path) -> tuple[Path, str]:
    (tmp / "notes.txt").write_text("not a folder")
    return tmp / "notes.txt" / "runs", "cannot be made: .*notes.txt' is a file"


PLANTED: dict[str, Callable[[Path], tuple[Path, str]]] = {
    "file": _file,
    "fifo": _fifo,
    "dangling link": _dangling_link,
    "under a file": _under_a_file,
}


def _tree(top: Path) -> list[str]:
    return sorted(str(p.relative_to(top)) for p in top.rglob("*"))


def _batch(**kw: Any) -> Any:
    async def main() -> Any:
        return await noesis_nb.batch(["a"], using=echo, **kw)

    return asyncio.run(main())


@pytest.mark.parametrize("kind", sorted(PLANTED))
def test_a_root_that_is_no_folder_is_one_error_naming_it_and_nothing_is_written(tmp_path: Path, kind: str) -> None:
    root, said = PLANTED[kind](tmp_path)
    before = _tree(tmp_path)
    with pytest.raises(RunsDirError, match=said) as caught:
        _batch(root=root)
    assert str(root) in str(caught.value)
    assert _tree(tmp_path) == before


def test_a_runs_own_folder_as_root_is_refused_and_the_run_gets_no_batch_record(runs_dir: Path) -> None:
    first = _batch(root=runs_dir)
    run_dir = first.entries[0].run_dir
    inside = _tree(run_dir)
    with pytest.raises(RunsDirError, match=f"pass its parent, runs_dir={str(runs_dir)!r}"):
        _batch(root=run_dir)
    assert _tree(run_dir) == inside  # no batches/ folder, no record or lock inside a sealed run


def _under_run(run_dir: Path, tmp: Path, how: str) -> Path:
    if how == "link":  # a path through a link that leads into the run
        (tmp / "elsewhere").symlink_to(run_dir, target_is_directory=True)
        return tmp / "elsewhere" / "sub"
    return run_dir / Path(*how.split("/"))


@pytest.mark.parametrize("how", ["sub", "sub/deeper", "link"])
def test_a_root_inside_a_sealed_run_is_refused_and_the_run_is_left_as_sealed(runs_dir: Path, tmp_path: Path, how: str) -> None:
    from tests.compat.checker import check_run

    run_dir = _batch(root=runs_dir).entries[0].run_dir
    inside = _tree(run_dir)
    root = _under_run(run_dir, tmp_path, how)
    with pytest.raises(RunsDirError, match=f"lies inside the run directory {str(run_dir)!r}") as caught:
        _batch(root=root)
    assert str(root) in str(caught.value) and f"runs_dir={str(runs_dir)!r}" in str(caught.value)
    assert _tree(run_dir) == inside and check_run(run_dir) == []


def test_a_root_below_a_folder_that_merely_holds_a_state_json_is_still_taken(tmp_path: Path) -> None:
    """Only a sure run above the root counts: a project folder's own state.json names no episode."""
    (tmp_path / "state.json").write_text('{"level": 3}')
    handle = _batch(root=tmp_path / "runs")
    assert handle.counts() == {"ok": 1} and (tmp_path / "runs" / "batches").is_dir()


@pytest.mark.parametrize("kind", sorted(PLANTED))
def test_the_magic_says_the_same_in_one_line(ip: Any, tmp_path: Path, kind: str) -> None:
    root, said = PLANTED[kind](tmp_path)
    ip.user_ns.update(two=["a", "b"], fast=echo)

    async def main() -> None:
        with pytest.raises(UsageError, match=f"%noesis batch: runs_dir .*{said}"):
            ip.run_line_magic("noesis", f"batch two fast --runs-dir {root}")

    asyncio.run(main())
    assert not (tmp_path / "batches").exists()
