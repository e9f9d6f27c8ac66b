"""``list_runs`` looks at a sealed run's seal documents once, and still says what ``run_info`` says of every run.

A listing took ``seal_state`` three times a run (the unreadable check, the status, the ``sealed`` column): six
``lstat`` calls where two tell. A complete seal stays once written, so the first answer serves; any other
answer is looked at again where it decides (a run may be sealed meanwhile). Real runs written by ``solve``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.store import list_runs, run_info
from noesis_nb.store.sealing import SEAL_FILES, SealState
from noesis_nb.store.status import status_now


def _agent(task, ctx):
    ctx.emit("reason", {"text": "working"})
    return "fine"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """Three sealed runs, one whose manifest was lost (a seal cut short, its writer gone) and one with only a log."""
    for ep in ("ep_a", "ep_b", "ep_c", "ep_cut"):
        noesis_nb.solve("seal me", using=_agent, runs_dir=tmp_path, episode_id=ep)
    (tmp_path / "ep_cut" / "manifest.json").unlink()
    (tmp_path / "ep_log").mkdir()
    (tmp_path / "ep_log" / "events.jsonl").write_bytes((tmp_path / "ep_a" / "events.jsonl").read_bytes())
    return tmp_path


def test_a_sealed_runs_seal_is_looked_at_once(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lstat, seen = os.lstat, []

    def counted(path, *args, **kwargs):  # the real lstat, counted
        seen.append(os.fspath(path))
        return lstat(path, *args, **kwargs)

    monkeypatch.setattr(os, "lstat", counted)
    rows = list_runs(runs_dir=root)
    monkeypatch.undo()
    assert {r["episode_id"]: r["sealed"] for r in rows} == {
        "ep_a": True,
        "ep_b": True,
        "ep_c": True,
        "ep_cut": False,
        "ep_log": False,
    }
    for ep in ("ep_a", "ep_b", "ep_c"):
        for name in SEAL_FILES:
            assert seen.count(str(root / ep / name)) == 1, (ep, name, seen)


def test_each_row_is_what_run_info_says(root: Path) -> None:
    rows = {r["episode_id"]: r for r in list_runs(runs_dir=root)}
    assert rows["ep_cut"]["status"] == "lost"
    assert rows["ep_a"]["status"] == "ok"
    for ep, row in rows.items():
        assert row == run_info(root / ep), ep


def test_an_unsealed_answer_is_looked_at_again(root: Path) -> None:
    """A caller's look that found no seal may be old: the run sealed since, its writer gone, is not lost."""
    stale = SealState(final=False, manifest=False)
    assert status_now(root / "ep_a", "ok", stale) == "ok"
    assert status_now(root / "ep_cut", "ok", stale) == "lost"
