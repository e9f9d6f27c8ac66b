"""Comparing a run whose events cannot be read (its log a link out of the run, or empty) is one error naming the
file or the run, never only the side's letter (``episode 'A' is not in events``)."""

from __future__ import annotations

from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.errors import NoesisNbError


def _two_runs(root: Path) -> tuple[Path, Path]:
    a = noesis_nb.solve("first", using=lambda task: "a", runs_dir=root)
    b = noesis_nb.solve("second", using=lambda task: "b", runs_dir=root)
    return root / a, root / b


def test_a_log_linked_out_of_the_run_is_named(tmp_path: Path, comm_log: list) -> None:
    run_a, run_b = _two_runs(tmp_path / "runs")
    outside = tmp_path / "outside.jsonl"
    outside.write_bytes((run_a / "events.jsonl").read_bytes())
    (run_a / "events.jsonl").unlink()
    (run_a / "events.jsonl").symlink_to(outside)
    with pytest.raises(NoesisNbError) as caught:
        noesis_nb.replay(run_a, compare=run_b)
    said = str(caught.value)
    assert "events.jsonl" in said and run_a.name in said, said
    assert "'A'" not in said


def test_an_empty_log_names_the_run(tmp_path: Path, comm_log: list) -> None:
    run_a, run_b = _two_runs(tmp_path / "runs")
    (run_b / "events.jsonl").write_bytes(b"")
    with pytest.raises(NoesisNbError) as caught:
        noesis_nb.replay(run_a, compare=run_b)
    assert run_b.name in str(caught.value), str(caught.value)
