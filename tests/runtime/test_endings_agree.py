"""Every way an episode ends reads the same live (its handle) and from disk (DiskRun, the view's text line,
list_runs, runs_df, summary, state, final.json, terminate), and the same story ends the same whether the
episode is decided live or resumed from disk."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.errors import AgentCancelled, ToolRejected
from noesis_nb.runtime.diskrun import DiskRun
from noesis_nb.store import find_run_dir, read_events, read_json

from .agents import make_writer, write_argv

REPO = Path(__file__).resolve().parents[2]
FINAL = {"ok": "success", "error": "error", "vetoed": "vetoed", "cancelled": "cancelled"}
STATE = {"ok": "ok", "error": "error", "vetoed": "vetoed", "cancelled": "aborted"}


def read_back(run_dir: Path) -> dict[str, object]:
    """Each reader's word for how the run ended, put in the handle's vocabulary where Noēsis' own differs."""
    from noesis_nb.frames import runs_df
    from noesis_nb.widgets.display import handle_mimebundle

    disk = DiskRun(run_dir)
    (terminate,) = [e for e in read_events(run_dir / "events.jsonl") if e["phase"] == "terminate"]
    final = read_json(run_dir / "final.json")["outcome"]
    state = read_json(run_dir / "state.json")["outcomes"]["status"]
    (row,) = [r for r in noesis_nb.list_runs(None, runs_dir=run_dir.parent) if r["episode_id"] == run_dir.name]
    frame = runs_df(run_dir.parent).set_index("episode_id")
    return {
        "DiskRun": disk.status,
        "view": handle_mimebundle(disk)["text/plain"].split("'")[1],
        "list_runs": row["status"],
        "runs_df": frame.loc[run_dir.name, "status"],
        "summary": read_json(run_dir / "summary.json")["status"],
        "terminate": terminate["payload"]["status"],
        "final": {v: k for k, v in FINAL.items()}[final],
        "state": {v: k for k, v in STATE.items()}[state],
    }


def assert_agrees(live: str, run_dir: Path) -> None:
    read = read_back(run_dir)
    assert read == dict.fromkeys(read, live), f"live {live!r}, read back {read}"


async def returns(task, ctx):
    return {"answer": 42}


async def raises(task, ctx):
    raise ValueError("the model said nothing useful")


async def stops_itself(task, ctx):
    raise AgentCancelled("the agent's own stop")


async def sleeps(task, ctx):
    await asyncio.sleep(30)


def rejects_sync(path: Path):
    def agent(task, ctx):  # a sync agent: the rejection reaches its thread
        return ctx.tool("fs.append", {"argv": write_argv(path, task)}, effect="write", risk="high")

    return agent


async def _live(runs_dir: Path, tmp_path: Path, ending: str) -> tuple[str, Path]:
    out = tmp_path / "out.txt"
    task, opts, decide = "note", {}, None
    using = {
        "returned": returns,
        "raised": raises,
        "agent_cancelled": stops_itself,
        "cancelled": sleeps,
        "timed_out": sleeps,
        "rejected": make_writer(out),
        "rejected_sync": rejects_sync(out),
        "rejected_caught": make_writer(out, handle_rejection=True),
        "rejected_by_policy": make_writer(out),
        "approved": make_writer(out),
        "vetoed": returns,
        "veto_upheld": returns,
        "veto_overridden": returns,
    }[ending]
    if ending in ("rejected", "rejected_sync", "rejected_caught", "veto_upheld"):
        decide = "reject"
    if ending in ("approved", "veto_overridden"):
        decide = "approve"
    if ending == "rejected_by_policy":
        opts["approver"] = "deny"
    if ending == "timed_out":
        opts["idle_timeout_s"] = 0.3
    if ending.startswith("veto"):
        task, opts["governance"] = "wipe the staging cache", "enforce"
        opts["pause_on_veto"] = ending != "vetoed"
    handle = noesis_nb.start(task, using=using, runs_dir=runs_dir, **opts)
    if decide is not None:
        await handle  # returns at the pause
        assert handle.status == "paused"
        getattr(handle, decide)(reason="decided in the test")
    if ending == "cancelled":
        await asyncio.sleep(0.2)
        handle.cancel()
    try:
        await handle.wait()
    except (Exception, asyncio.CancelledError):
        pass
    return handle.status, handle.run_dir


LIVE_ENDINGS = {
    "returned": "ok",
    "raised": "error",
    "agent_cancelled": "cancelled",
    "cancelled": "cancelled",
    "timed_out": "error",
    "rejected": "vetoed",
    "rejected_sync": "vetoed",
    "rejected_caught": "ok",
    "rejected_by_policy": "vetoed",
    "approved": "ok",
    "vetoed": "vetoed",
    "veto_upheld": "vetoed",
    "veto_overridden": "ok",
}


@pytest.mark.parametrize("ending", list(LIVE_ENDINGS))
def test_a_live_ending_reads_the_same_from_disk(runs_dir, tmp_path, ending):
    live, run_dir = asyncio.run(_live(runs_dir, tmp_path, ending))
    assert live == LIVE_ENDINGS[ending]
    assert_agrees(live, run_dir)


@pytest.mark.parametrize("decision", ["approve", "reject"])
def test_a_decision_ends_the_run_the_same_live_and_resumed_from_disk(runs_dir, tmp_path, decision):
    """The agent does not catch a rejection: whether the run is decided while its episode waits or after its
    process left the pause on disk (``solve``, then ``resume_run``), it ends the same."""
    live, live_dir = asyncio.run(_live(runs_dir, tmp_path, {"approve": "approved", "reject": "rejected"}[decision]))
    episode_id = noesis_nb.solve("note", using=make_writer(tmp_path / "disk.txt"), runs_dir=runs_dir)
    run_dir = find_run_dir(episode_id, runs_dir)
    assert DiskRun(run_dir).status == "paused"
    (pending,) = DiskRun(run_dir).pending
    getattr(noesis_nb, f"{decision}_draft")(run_dir, pending.draft_id, reason="decided in the test")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a resume that changed nothing would warn
        noesis_nb.resume_run(run_dir)
    assert_agrees(live, live_dir)
    assert_agrees(live, run_dir)


def test_an_unhandled_rejection_still_reaches_the_caller(runs_dir, tmp_path):
    """Sealed vetoed, the handle still says why: ``result()`` raises the rejection the agent let through."""

    async def main():
        handle = noesis_nb.start("note", using=make_writer(tmp_path / "o.txt"), runs_dir=runs_dir)
        await handle
        handle.reject(reason="not this week")
        await handle.wait()
        return handle

    handle = asyncio.run(main())
    assert handle.status == "vetoed"
    with pytest.raises(ToolRejected, match="not this week"):
        handle.result()
    (terminate,) = [e for e in read_events(handle.run_dir / "events.jsonl") if e["phase"] == "terminate"]
    assert "not this week" in terminate["payload"]["message"]


INTERRUPTED = textwrap.dedent(
    """
    import asyncio, sys
    import noesis_nb
    from noesis_nb.errors import EpisodeInterrupted

    async def sleeps(task, ctx):
        print("running", flush=True)
        await asyncio.sleep(60)

    try:
        noesis_nb.solve("note", using=sleeps, runs_dir=sys.argv[1])
    except EpisodeInterrupted as exc:
        print("live", exc.status, flush=True)
    """
)


def test_an_interrupted_episode_reads_the_same_from_disk(runs_dir):
    """A real process interrupted (SIGINT, the kernel's ■) while its agent runs: what it is told is what its run says."""
    proc = subprocess.Popen(
        [sys.executable, "-c", INTERRUPTED, str(runs_dir)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "running"
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0, out
    live = out.split()[-1]
    (run_dir,) = [p for p in runs_dir.iterdir() if p.is_dir()]
    assert live == "cancelled"
    assert_agrees(live, run_dir)
