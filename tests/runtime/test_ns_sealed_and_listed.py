"""The ``ns`` facade answers as Noēsis does where code written for Noēsis relies on it.

``ns.resume_run`` on a sealed run raises ``RunSealedError`` (Noēsis checks the seal before the checkpoint), whatever
the checkpoint id given; ``ns.list_runs`` and ``ns.last`` list only runs holding ``summary.json`` (a paused run has
none: a loop reading ``row["success"]`` never meets one), where ``noesis_nb.list_runs`` lists every run.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import noesis_nb
from noesis_nb import ns
from noesis_nb.errors import RunSealedError

from .agents import make_writer


def _sealed_after_a_pause(runs_dir: Path, out: Path) -> tuple[str, str]:
    ep = noesis_nb.solve("write a note", using=make_writer(out), approver="ask", runs_dir=runs_dir)
    checkpoint = next((runs_dir / ep / "checkpoints").iterdir()).name
    noesis_nb.approve_draft(ep, approver_id="ana", runs_dir=runs_dir)
    noesis_nb.resume_run(ep, runs_dir=runs_dir)
    return ep, checkpoint


@pytest.mark.parametrize("which", ["its own checkpoint", "no such checkpoint", "none given"])
def test_resume_run_on_a_sealed_run_raises_run_sealed_and_writes_nothing(runs_dir: Path, tmp_path: Path, which: str) -> None:
    ns.set(runs_dir=str(runs_dir))
    ep, checkpoint = _sealed_after_a_pause(runs_dir, tmp_path / "o.txt")
    given = {"its own checkpoint": checkpoint, "no such checkpoint": "chk_000000000000", "none given": None}[which]
    files = {p: p.read_bytes() for p in (runs_dir / ep).rglob("*") if p.is_file()}
    with pytest.raises(RunSealedError, match=f"run {ep} is sealed"):
        ns.resume_run(ep, checkpoint_id=given)
    assert {p: p.read_bytes() for p in (runs_dir / ep).rglob("*") if p.is_file()} == files


def test_list_runs_and_last_leave_out_paused_runs_as_noesis_does(runs_dir: Path, tmp_path: Path) -> None:
    ns.set(runs_dir=str(runs_dir))
    sealed, _ = _sealed_after_a_pause(runs_dir, tmp_path / "a.txt")
    paused = noesis_nb.solve("write a note", using=make_writer(tmp_path / "b.txt"), approver="ask", runs_dir=runs_dir)
    assert {r["episode_id"] for r in noesis_nb.list_runs(runs_dir=runs_dir)} == {sealed, paused}
    rows = ns.list_runs()
    assert [r["episode_id"] for r in rows] == [sealed]
    assert all(r["success"] is not None and r["duration_sec"] is not None for r in rows)
    assert ns.last() == sealed  # the paused run is newer
    assert ns.list_runs(limit=0) == []
    with pytest.raises(noesis_nb.errors.InvalidOptionError, match="limit=-1 is not a count of runs"):
        ns.list_runs(limit=-1)


def test_list_runs_keeps_its_problems(runs_dir: Path, tmp_path: Path) -> None:
    """What is named like a run but is none (an ``ep_….zip``) is said in ``.problems``, as ``noesis_nb.list_runs`` says it."""
    ns.set(runs_dir=str(runs_dir))
    sealed, _ = _sealed_after_a_pause(runs_dir, tmp_path / "a.txt")
    (runs_dir / "ep_01K9ZIPPEDRUNXXXXXXXXXXXXX.zip").write_bytes(b"PK")
    rows = ns.list_runs()
    assert [r["episode_id"] for r in rows] == [sealed]
    assert [p["path"] for p in rows.problems] == [p["path"] for p in noesis_nb.list_runs(runs_dir=runs_dir).problems]
    assert len(rows.problems) == 1 and "ep_01K9ZIPPEDRUNXXXXXXXXXXXXX.zip" in rows.problems[0]["path"]
