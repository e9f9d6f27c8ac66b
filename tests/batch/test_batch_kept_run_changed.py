"""A batch called again reads each kept sealed run; one whose files were changed since its seal (a log cut, an edit
keeping the size) is not the run it sealed: its entry ends ``error`` naming the run, what changed and the fix, is not
counted ok, and only ``rerun_failed=True`` runs its task anew (the changed run is left as it is). The check is the
frames' quick one: sizes, and a hash only of a file modified after the seal."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.store import artifacts

from ..compat.checker import check_run


def _cut_last_line(run_dir: Path) -> None:
    log = run_dir / "events.jsonl"
    lines = log.read_bytes().splitlines(keepends=True)
    log.write_bytes(b"".join(lines[:-1]))


def _same_size_edit(run_dir: Path) -> None:
    log = run_dir / "events.jsonl"
    text = log.read_bytes()
    at = text.index(b'"answer-')  # the agent's answer in the log, one character changed
    log.write_bytes(text[: at + 8] + (b"X" if text[at + 8 : at + 9] != b"X" else b"Y") + text[at + 9 :])


@pytest.mark.parametrize("damage", [_cut_last_line, _same_size_edit], ids=["log-cut", "same-size-edit"])
def test_a_kept_run_changed_since_its_seal_is_said_and_run_anew_only_when_asked(tmp_path: Path, damage) -> None:
    root, calls = tmp_path / "root", []

    def agent(task: str) -> str:
        calls.append(task)
        return f"answer-{task}"

    tasks = [{"task": "a"}, {"task": "b"}]

    def call(**opts: Any) -> noesis_nb.BatchHandle:
        async def go() -> noesis_nb.BatchHandle:
            handle = noesis_nb.batch(tasks, using={"agent": agent}, root=root, batch_id="kept", **opts)
            await handle
            return handle

        return asyncio.run(go())

    first = call()
    assert [e.status for e in first.entries] == ["ok", "ok"] and sorted(calls) == ["a", "b"]
    changed, kept = (Path(e.run_dir) for e in first.entries)
    damage(changed)
    assert check_run(changed) != [] and check_run(kept) == []  # the checker finds it changed, the other whole

    again = call()
    entry, other = again.entries
    said = str(entry.error)
    assert entry.status == "error", (entry.status, said)  # before: read ok
    assert changed.name in said and "events.jsonl" in said and "rerun_failed=True" in said, said
    assert (other.status, other.error) == ("ok", None)
    assert again.counts().get("ok") == 1
    assert sorted(calls) == ["a", "b"]  # nothing ran anew without being asked

    anew = call(rerun_failed=True)
    entry, other = anew.entries
    assert (entry.status, other.status) == ("ok", "ok"), (entry.status, entry.error)
    assert entry.episode_id != changed.name and sorted(calls) == ["a", "a", "b"]
    assert changed.is_dir() and check_run(Path(entry.run_dir)) == []  # the changed run is left; the new one whole


def test_the_continuation_hashes_no_file_unchanged_since_the_seal(tmp_path: Path, monkeypatch) -> None:
    """A large batch called again does not re-hash each kept run's log: only a file newer than its manifest is."""
    root = tmp_path / "root"

    def agent(task: str) -> str:
        return f"answer-{task}"

    tasks = [{"task": str(i)} for i in range(6)]

    def call() -> noesis_nb.BatchHandle:
        async def go() -> noesis_nb.BatchHandle:
            handle = noesis_nb.batch(tasks, using={"agent": agent}, root=root, batch_id="many")
            await handle
            return handle

        return asyncio.run(go())

    runs = [Path(e.run_dir) for e in call().entries]
    touched = runs[2] / "summary.json"  # a newer time, the same bytes (a copy that does not keep times): hashed, found whole
    stat = os.stat(runs[2] / "manifest.json")
    os.utime(touched, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10_000_000_000))
    hashed: list[str] = []
    real = artifacts.sha256_file
    monkeypatch.setattr(artifacts, "sha256_file", lambda path: hashed.append(str(path)) or real(path))
    again = call()
    assert [e.status for e in again.entries] == ["ok"] * 6, [e.error for e in again.entries]
    assert hashed == [str(touched)]
