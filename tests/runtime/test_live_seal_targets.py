"""A live run paused for a human gets something planted where its seal writes: it is found before the tool runs.

While an episode waits for approval, someone puts a symbolic link (or a folder) at the run's ``summary.json`` or
``learn.jsonl``. The decision (``handle.approve()``, or ``approve_draft`` from another process) is refused, or the
tool is stopped, before the tool's effect: one error names the path, what stopped and how to go on. Nothing is ever
written through the link, and the run is sealed honestly once the thing is removed.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.store import read_events
from noesis_nb.store.paths import UnsafeRunPathError

from ..compat.checker import check_run
from .agents import make_writer


def _plant(path: Path, outside: Path, shape: str) -> None:
    """Put ``shape`` where the run's own file was (the file moved aside, as an attacker would)."""
    if os.path.lexists(path):
        os.replace(path, outside.with_name(f"aside-{path.name}"))
    if shape == "link":
        os.symlink(outside, path)
    else:
        path.mkdir()


def _remove(path: Path) -> None:
    path.rmdir() if path.is_dir() and not path.is_symlink() else path.unlink()


def _names(run_dir: Path) -> list[str]:
    return [str(e["payload"].get("event_name")) for e in read_events(run_dir / "events.jsonl") if e["phase"] == "tool"]


async def _paused(runs_dir: Path, marker: Path):
    handle = noesis_nb.start("note", using=make_writer(marker), runs_dir=runs_dir, approver="ask")
    await handle  # returns at the pause
    assert handle.status == "paused" and len(handle.pending) == 1
    return handle


@pytest.mark.parametrize("shape", ["link", "folder"])
@pytest.mark.parametrize("name", ["summary.json", "learn.jsonl"])
@pytest.mark.parametrize("verb", ["approve", "reject"])
def test_a_decision_is_refused_before_the_tool_when_a_seal_target_was_planted(runs_dir, tmp_path, name, shape, verb):
    marker, outside = tmp_path / "marker.txt", tmp_path / "outside.txt"
    outside.write_text("precious\n")

    async def main():
        handle = await _paused(runs_dir, marker)
        planted = handle.run_dir / name
        _plant(planted, outside, shape)
        with pytest.raises(UnsafeRunPathError) as refused:
            getattr(handle, verb)(approver_id="ana")
        message = str(refused.value)
        assert str(planted) in message and f"handle.{verb}()" in message and "resume_run" not in message
        assert handle.status == "paused" and not marker.exists()
        assert not (handle.run_dir / "tool_invocations" / "approvals").exists()  # no decision was written
        _remove(planted)
        aside = outside.with_name(f"aside-{name}")
        if aside.exists():  # learn.jsonl is made at the start; summary.json only by the seal
            os.replace(aside, planted)
        getattr(handle, verb)(approver_id="ana")  # decided again once the thing is gone
        await handle.wait()
        return handle

    handle = asyncio.run(main())
    assert outside.read_text() == "precious\n"
    assert marker.exists() == (verb == "approve")
    assert handle.status == ("ok" if verb == "approve" else "vetoed")  # the agent lets the rejection end its run
    assert (handle.run_dir / "manifest.json").is_file() and check_run(handle.run_dir) == []


def test_a_decision_from_another_process_does_not_run_the_tool_through_a_planted_link(runs_dir, tmp_path):
    marker, outside = tmp_path / "marker.txt", tmp_path / "outside.txt"
    outside.write_text("precious\n")

    async def main():
        handle = await _paused(runs_dir, marker)
        planted = handle.run_dir / "summary.json"
        _plant(planted, outside, "link")
        code = f"import noesis_nb; noesis_nb.approve_draft({str(handle.run_dir)!r}, approver_id='bob')"
        subprocess.run([sys.executable, "-c", code], check=True, cwd=tmp_path)
        while not handle.done():  # the episode notices the decision file and goes on
            await asyncio.sleep(0.02)
        return handle, planted

    handle, planted = asyncio.run(main())
    assert not marker.exists() and outside.read_text() == "precious\n"
    assert "tool.execution.started" not in _names(handle.run_dir)
    assert handle.status == "error" and str(planted) in str(handle.error) and "resume_run" in str(handle.error)
    assert not (handle.run_dir / "final.json").exists()  # given up, nothing written: sealed once the link is gone
    planted.unlink()
    noesis_nb.resume_run(str(handle.run_dir))
    assert not marker.exists() and outside.read_text() == "precious\n"
    row = noesis_nb.runs_df(runs_dir).set_index("episode_id").loc[handle.episode_id]
    assert row["status"] == "error"
    assert check_run(handle.run_dir) == []
