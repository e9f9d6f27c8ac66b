"""A new process's runs_df (its kept frame and runs index) after a run was sealed or decided since the last load:
the frame it returns is the one a process that never saw the runs builds."""

from __future__ import annotations

import json
from pathlib import Path

import noesis_nb

from .newprocess import load_counted, same, settle
from .runkit import llm_adapter, writer_adapter


def _full(root: Path, env: dict[str, str], tmp_path: Path, name: str):
    df, _, built = load_counted(root, {**env, "NOESIS_NB_CACHE_DIR": str(tmp_path / f"other-{name}")}, tmp_path / f"{name}.pkl")
    assert built == 1
    return df


def test_a_run_sealed_or_decided_since_the_kept_frame_is_read_again(tmp_path: Path, env: dict[str, str]) -> None:
    root = tmp_path / "runs"
    noesis_nb.solve("answer", using=llm_adapter, runs_dir=root)
    sealed = root / noesis_nb.solve("write a file", using=writer_adapter, runs_dir=root, approver="ask")
    decided = root / noesis_nb.solve("write a file", using=writer_adapter, runs_dir=root, approver="ask")
    settle()
    first, _, built = load_counted(root, env, tmp_path / "a.pkl")
    assert built == 1 and first["pending_approvals"].sum() == 2

    (sealed / "final.json").write_text(json.dumps({"episode_id": sealed.name, "outcome": "cancelled"}))
    (sealed / "manifest.json").write_text(json.dumps({"schema_version": "manifest/1.0", "episode_id": sealed.name, "files": []}))
    noesis_nb.approve_draft(decided, next(p.stem for p in decided.rglob("prepared/*.json")), approver_id="ops")
    settle()
    got, reads, _ = load_counted(root, env, tmp_path / "b.pkl")
    assert sorted(reads) == sorted([sealed.name, decided.name])
    same(got, _full(root, env, tmp_path, "full"))
    assert got["pending_approvals"].sum() == 0
