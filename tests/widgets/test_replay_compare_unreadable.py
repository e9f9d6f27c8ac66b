"""Comparing a run whose events cannot be read (its log a FIFO, a folder, or a link out of the run) opens as
``replay`` of that run alone does: its side has no steps and its view names the file and why, while the other run
is replayed whole. A log that is only empty is one error naming the run, never only the side's letter."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.errors import NoesisNbError


def _two_runs(root: Path) -> tuple[Path, Path]:
    a = noesis_nb.solve("first", using=lambda task: "a", runs_dir=root)
    b = noesis_nb.solve("second", using=lambda task: "b", runs_dir=root)
    return root / a, root / b


def _fifo(log: Path, outside: Path) -> None:
    log.unlink()
    os.mkfifo(log)


def _folder(log: Path, outside: Path) -> None:
    log.unlink()
    log.mkdir()


def _link_out(log: Path, outside: Path) -> None:
    outside.write_bytes(log.read_bytes())
    log.unlink()
    log.symlink_to(outside)


@pytest.mark.parametrize("spoil", [_fifo, _folder, _link_out], ids=["fifo", "folder", "link-out"])
@pytest.mark.parametrize("spoiled", ["a", "b"])
def test_an_unreadable_log_is_named_in_its_side(
    tmp_path: Path, comm_log: list, spoil: Callable[[Path, Path], None], spoiled: str
) -> None:
    run_a, run_b = _two_runs(tmp_path / "runs")
    whole = noesis_nb.replay(run_b if spoiled == "a" else run_a)
    bad = run_a if spoiled == "a" else run_b
    spoil(bad / "events.jsonl", tmp_path / "outside.jsonl")
    alone = noesis_nb.replay(bad).state()["problems"]
    assert alone and "events.jsonl" in alone[-1], alone
    pair = noesis_nb.replay(run_a, compare=run_b)
    bad_view, good_view = (pair.left, pair.right) if spoiled == "a" else (pair.right, pair.left)
    assert bad_view.state()["problems"] == alone
    assert bad_view.total == 0 and good_view.total == whole.total > 0
    assert len(pair.table) > 0 and not pair.table["in_" + spoiled].any()
    assert pair.differing == list(pair.table["step"])
    pair.seek_step(1)
    assert good_view.k > 0 and bad_view.k == 0
    assert bad.name in pair._repr_mimebundle_()["text/html"]


def test_an_empty_log_names_the_run(tmp_path: Path, comm_log: list) -> None:
    run_a, run_b = _two_runs(tmp_path / "runs")
    (run_b / "events.jsonl").write_bytes(b"")
    with pytest.raises(NoesisNbError) as caught:
        noesis_nb.replay(run_a, compare=run_b)
    assert run_b.name in str(caught.value), str(caught.value)
