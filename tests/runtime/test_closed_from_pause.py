"""A run closed from its pause leaves the pause first, as Noēsis' lifecycle goes (interrupt → checkpoint → resume →
act → terminate): a paused episode cancelled, and a run whose process was killed mid-adapter, checkpointed with
``ns.checkpoint`` and continued with ``ns.resume_run(checkpoint_id=…)``, each get a ``run.resume`` (its checkpoint
named, caused by the checkpoint) before anything acts or ends; tests/compat's checker passes both."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb import ns
from noesis_nb.errors import CheckpointNotFoundError
from noesis_nb.store import read_events, read_json
from tests.compat.checker import check_run
from tests.compat.entrypoints import REPO


def _note(text: str) -> str:
    return text


async def writer(task: str, ctx: Any) -> Any:
    return await ctx.tool_async("notes.w", {"args": [task]}, protocol="python", fn=_note, effect="write", risk="high")


def _kinds(run: Path) -> list[str]:
    return [e.get("event_type") or e["phase"] for e in read_events(run / "events.jsonl")]


def test_a_paused_episode_cancelled_is_resumed_before_it_is_sealed(runs_dir: Path) -> None:
    async def main() -> Any:
        handle = noesis_nb.start("note", writer, runs_dir=runs_dir, approver="ask")
        await asyncio.wait_for(handle, 30)
        assert handle.status == "paused"
        handle.cancel()
        await asyncio.wait_for(handle.wait(), 30)
        assert handle.status == "cancelled"
        return handle

    handle = asyncio.run(main())
    run = handle.run_dir
    kinds = _kinds(run)
    at = kinds.index("terminate")
    assert kinds[at - 3 : at] == ["run.interrupt", "run.checkpoint", "run.resume"]
    assert read_json(run / "final.json")["outcome"] == "cancelled"
    assert check_run(run) == []


CHILD = textwrap.dedent(
    """
    import sys, time
    import noesis_nb

    def slow(task, ctx):
        ctx.emit("reason", {"text": "working"})
        print("working", flush=True)
        time.sleep(60)

    noesis_nb.solve("slow task", using=slow, runs_dir=sys.argv[1])
    """
)


def _killed_mid_adapter(runs_dir: Path) -> Path:
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(runs_dir)], cwd=REPO, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "working"
    finally:
        child.kill()
        child.wait()
    (run,) = [p for p in runs_dir.iterdir() if p.name.startswith("ep_")]
    return run


def _done(task: str, ctx: Any) -> str:
    return "fine"


def test_resume_run_of_a_checkpoint_alone_writes_its_resume(runs_dir: Path) -> None:
    run = _killed_mid_adapter(runs_dir)
    ns.set(runs_dir=str(runs_dir))
    checkpoint = ns.checkpoint(run.name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ns.resume_run(run.name, checkpoint_id=checkpoint["checkpoint_id"], using=_done)
    events = read_events(run / "events.jsonl")
    kinds = [e.get("event_type") or e["phase"] for e in events]
    at = kinds.index("run.resume")
    assert kinds[at - 1] == "run.checkpoint" and kinds[at + 1] == "act"
    resume = events[at]
    assert resume["payload"]["checkpoint_id"] == checkpoint["checkpoint_id"]
    assert resume["caused_by"] == events[at - 1]["id"]
    assert read_json(run / "final.json")["outcome"] == "error"
    assert check_run(run) == []


def test_resume_run_refuses_a_checkpoint_the_run_does_not_have(runs_dir: Path) -> None:
    run = _killed_mid_adapter(runs_dir)
    ns.set(runs_dir=str(runs_dir))
    ns.checkpoint(run.name)
    with pytest.raises(CheckpointNotFoundError, match="chk_000000000000"):
        ns.resume_run(run.name, checkpoint_id="chk_000000000000", using=_done)
    assert not (run / "final.json").exists() and "run.resume" not in _kinds(run)
    assert os.path.isdir(run)
