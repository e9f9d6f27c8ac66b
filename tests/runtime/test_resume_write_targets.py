"""``resume_run`` looks at every path it and the seal will write before anything runs.

A link, a folder or a FIFO planted where the resume writes (``summary.json``, the tool's records…) stops the
resume before the tool runs: no effect, no byte written, and the error says to move it out of the run (a link: remove
it) and resume again.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.runtime.resume import paused_on
from noesis_nb.store import verify_manifest
from noesis_nb.store.paths import UnsafeRunPathError

from ..run_snapshot import snapshot
from .agents import write_argv


def _tool_agent(marker: Path, idempotency_key: str | None = None):
    async def agent(task, ctx):
        out = await ctx.tool_async(
            "fs.append", {"argv": write_argv(marker, task)}, effect="write", risk="high", idempotency_key=idempotency_key
        )
        return out["returncode"]

    return agent


def _paused_and_approved(runs_dir: Path, marker: Path, idempotency_key: str | None = None) -> tuple[Path, str]:
    episode = noesis_nb.solve("note", using=_tool_agent(marker, idempotency_key), runs_dir=runs_dir, approver="ask")
    run = runs_dir / episode
    waiting = paused_on(run)
    assert waiting is not None and waiting[0] == "draft"
    noesis_nb.approve_draft(episode, approver_id="ana", runs_dir=runs_dir)
    return run, waiting[1]


def _principal(run: Path) -> str:
    (draft,) = (run / "tool_invocations" / "prepared").iterdir()
    principal: str = json.loads(draft.read_text())["security"]["principal_id"]
    return principal


def _plant(path: Path, kind: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "link":
        os.symlink(path.parent / "elsewhere-not-there", path)
    elif kind == "folder":
        path.mkdir()
        (path / "inside.txt").write_text("x")
    else:
        os.mkfifo(path)


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        for child in path.iterdir():
            child.unlink()
        path.rmdir()
    else:
        path.unlink()


_TARGETS = [
    "summary.json",
    "tool_invocations/executions/{draft}.json",
    "tool_invocations/executions/{draft}.claim",
    "tool_invocations/x-python/prepared/{draft}.json",
    "tool_invocations/idempotency/{idempotency}",
]
_CASES = [(target, kind) for target in _TARGETS for kind in ("link", "folder", "fifo")]
_CASES += [("tool_invocations/executions", "link"), ("tool_invocations/executions", "fifo")]


@pytest.mark.parametrize("target, kind", _CASES)
def test_a_planted_path_stops_the_resume_before_the_tool_runs(runs_dir: Path, tmp_path: Path, target: str, kind: str):
    marker = tmp_path / "ran.txt"
    run, draft = _paused_and_approved(runs_dir, marker, idempotency_key="k1")
    idem = f"{_principal(run)}__subprocess.fs.append__k1.json"
    planted = run / target.format(draft=draft, idempotency=idem)
    _plant(planted, kind)
    before = snapshot(run)
    with pytest.raises(UnsafeRunPathError) as info:
        noesis_nb.resume_run(run.name, runs_dir=runs_dir)
    said = str(info.value)
    assert str(planted) in said and f"then resume_run('{run.name}')" in said
    fix = {"link": "remove the link, then", "folder": "move that folder out of the run", "fifo": "move it out of the run"}
    assert fix[kind] in said
    assert "Replace the link with the real file" not in said
    assert not marker.exists()  # the tool never ran
    assert snapshot(run) == before  # nothing written
    _remove(planted)
    assert noesis_nb.resume_run(run.name, runs_dir=runs_dir) == run.name
    assert marker.read_text() == "note\n" and verify_manifest(run).ok


def test_the_idempotency_path_checked_is_the_one_written(runs_dir: Path, tmp_path: Path):
    """The file name the test above plants is where the resume writes the record (so the case is real)."""
    run, _ = _paused_and_approved(runs_dir, tmp_path / "ran.txt", idempotency_key="k1")
    noesis_nb.resume_run(run.name, runs_dir=runs_dir)
    principal = _principal(run)
    assert (run / "tool_invocations" / "idempotency" / f"{principal}__subprocess.fs.append__k1.json").is_file()


def test_a_planted_summary_stops_a_veto_override_before_the_adapter_runs_again(runs_dir: Path, tmp_path: Path):
    marker = tmp_path / "ran.txt"

    def agent(task):
        subprocess.run(write_argv(marker, task), check=True)
        return "done"

    episode = noesis_nb.solve("destroy the staging db", using=agent, runs_dir=runs_dir, governance="enforce", pause_on_veto=True)
    run = runs_dir / episode
    assert paused_on(run) is not None and not marker.exists()
    _plant(run / "summary.json", "link")
    before = snapshot(run)
    with pytest.raises(UnsafeRunPathError, match="remove the link, then resume_run"):
        noesis_nb.resume_run(episode, runs_dir=runs_dir, using=agent)
    assert not marker.exists() and snapshot(run) == before
    (run / "summary.json").unlink()
    assert noesis_nb.resume_run(episode, runs_dir=runs_dir, using=agent) == episode
    assert marker.read_text() == "destroy the staging db\n" and verify_manifest(run).ok
