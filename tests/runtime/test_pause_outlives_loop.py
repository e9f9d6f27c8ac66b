"""A script whose ``asyncio.run`` ends while an episode it started waits for a decision leaves that pause on
disk, as ``solve`` does and as a process that ends does: the draft is still pending, and deciding it then
``resume_run`` runs the tool once and seals the run. (It was sealed ``cancelled``, the decision lost.) A stop
someone asked for (``handle.cancel()``) still seals it ``cancelled``."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import noesis_nb

from ..compat.checker import check_run

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = """
import asyncio, sys
import noesis_nb

def sync_agent(task, ctx):
    ctx.tool("fs.append", {"argv": ["sh", "-c", "echo ran >> " + sys.argv[2]]}, effect="write", risk="high")
    return "done"

async def async_agent(task, ctx):
    await ctx.tool_async("fs.append", {"argv": ["sh", "-c", "echo ran >> " + sys.argv[2]]}, effect="write", risk="high")
    return "done"

async def main():
    agent = sync_agent if sys.argv[3] == "sync" else async_agent
    handle = noesis_nb.start("append", using=agent, runs_dir=sys.argv[1], approver="ask")
    while handle.status != "paused":
        await asyncio.sleep(0.02)
    if sys.argv[4] == "cancel":
        handle.cancel()
        await handle.wait()
    print(handle.episode_id, flush=True)

asyncio.run(main())
"""


def _script(runs: Path, marker: Path, kind: str, end: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(runs), str(marker), kind, end], env=env, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    return out.stdout.split()[-1]


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_a_pause_outlives_the_loop_that_ran_it_and_is_resumed_later(tmp_path: Path, kind: str) -> None:
    runs, marker = tmp_path / "runs", tmp_path / "marker.txt"
    ep = _script(runs, marker, kind, "return")
    row = noesis_nb.runs_df(runs).iloc[0]
    assert (row["status"], row["pending_approvals"], row["sealed"]) == ("paused", 1, False)
    assert not marker.exists()
    noesis_nb.approve_draft(ep, approver_id="ana", runs_dir=runs)
    noesis_nb.resume_run(ep, runs_dir=runs)
    assert marker.read_text() == "ran\n"
    assert noesis_nb.runs_df(runs)["status"].astype(str).tolist() == ["ok"]
    assert not check_run(runs / ep)


def test_a_paused_episode_stopped_on_request_is_still_sealed_cancelled(tmp_path: Path) -> None:
    runs, marker = tmp_path / "runs", tmp_path / "marker.txt"
    ep = _script(runs, marker, "sync", "cancel")
    assert noesis_nb.runs_df(runs)["status"].astype(str).tolist() == ["cancelled"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # NothingToResume: sealed
        noesis_nb.resume_run(ep, runs_dir=runs)
    assert not marker.exists() and not check_run(runs / ep)


VETO_SCRIPT = """
import asyncio, sys
import noesis_nb
from tests.runtime.test_pause_outlives_loop import wiper

async def main():
    handle = noesis_nb.start("wipe logs", using=wiper, runs_dir=sys.argv[1], governance="enforce", pause_on_veto=True)
    await handle
    assert handle.paused_on_veto, handle.status
    return handle

handle = asyncio.run(main())  # the loop ends with the veto waiting
handle.approve(approver_id="lead", reason="checked")  # decided afterwards, from the same handle
print(handle.episode_id, flush=True)
"""


def wiper(task: str) -> str:
    return f"wiped: {task}"


def test_a_veto_pause_outlives_its_loop_and_its_handle_still_decides_it(tmp_path: Path) -> None:
    """The decision of a veto whose loop has ended is written for ``resume_run`` (it raised ``RuntimeError``,
    the closed loop refusing to be told), and the run continues with its adapter."""
    runs = tmp_path / "runs"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", VETO_SCRIPT, str(runs)], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    ep = out.stdout.split()[-1]
    assert noesis_nb.runs_df(runs)["status"].astype(str).tolist() == ["paused"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        noesis_nb.resume_run(ep, runs_dir=runs, using=wiper)
    assert noesis_nb.runs_df(runs)["status"].astype(str).tolist() == ["ok"]
    assert not check_run(runs / ep)
