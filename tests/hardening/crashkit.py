"""A fork server that runs one episode scenario per child and kills the child with SIGKILL at a chosen write.

Run as a script; it reads one JSON request per line on stdin and answers one JSON line per request:

    {"scenario": "live_ask", "root": "/tmp/…", "kill_at": 17}   →   {"killed": true, "points": 17}

``kill_at`` counts *write points*: every event line serialised, every atomic document write,
every rename/link (exclusive creates, decisions, claims), every unlink (lock and claim
removal), every folder made, and the tool's own subprocess — the
child kills itself just before write point ``kill_at`` (1-based), i.e. between write
``kill_at - 1`` and write ``kill_at``. ``kill_at: null`` runs to the end and reports how many
points the scenario has. The server preloads noesis_nb and never runs an episode itself, so
each fork starts from a single-threaded, clean process.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

import noesis_nb  # noqa: E402  (preloaded before any fork)
import noesis_nb.runtime.api  # noqa: E402
import noesis_nb.runtime.resume  # noqa: E402
import noesis_nb.runtime.resume_tool  # noqa: E402
import noesis_nb.tools  # noqa: E402
from noesis_nb import _jsonio, ns  # noqa: E402
from noesis_nb.store import eventlog  # noqa: E402
from noesis_nb.store.seal import seal_key  # noqa: E402
from noesis_nb.tools import repositories, tethered  # noqa: E402

TASKS = {"tool": "append the note", "veto": "destroy the staging copy"}


def append_argv(marker: str) -> list[str]:
    return [sys.executable, "-c", "import sys; open(sys.argv[1], 'a').write('ran\\n')", marker]


def tool_agent(marker: str):
    async def agent(task, ctx):
        ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=900, output_tokens=60, cached_input_tokens=512)
        out = await ctx.tool_async("fs.append", {"argv": append_argv(marker)}, effect="write", risk="high")
        ctx.emit("note", {"text": "tool done"})
        return out["returncode"]

    agent.__name__ = "tool_agent"
    return agent


def low_risk_agent(marker: str):
    def agent(task, ctx):  # sync, runs on its own thread
        out = ctx.tool("fs.append", {"argv": append_argv(marker)}, effect="write", risk="low")
        return out["returncode"]

    agent.__name__ = "low_risk_agent"
    return agent


def batch_agent(root: Path):
    """A batch's adapter whose tool marks ``marker-<episode id>.txt``: at most one line per episode."""

    async def agent(task, ctx):
        ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=700, output_tokens=40)
        out = await ctx.tool_async(
            "fs.append", {"argv": append_argv(str(root / f"marker-{ctx.episode_id}.txt"))}, effect="write", risk="high"
        )
        return out["returncode"]

    agent.__name__ = "batch_agent"
    return agent


BATCH_TASKS = ["append the note", "append another note"]


async def run_batch(
    root: Path, rerun_failed: bool = False, markers: Path | None = None
) -> list[tuple[str, str | None, str | None]]:
    """The batch of the ``batch`` scenario (its first call, and every call that recovers it): (status, episode id, error)s.
    Runs go under ``root / "runs"``, the tool's marks in ``markers`` (``root`` unless given)."""
    handle = noesis_nb.batch(
        BATCH_TASKS,
        using=batch_agent(markers or root),
        batch_id="b_kill",
        runs_dir=root / "runs",
        approver="auto",
        concurrency=2,
        rerun_failed=rerun_failed,
    )
    await handle
    return [(entry.status, entry.episode_id, entry.error) for entry in handle.entries]


def parallel_agent(marker: str):
    """Two tools that need approval, awaited together; each appends its own name to ``marker``."""
    code = "import sys; open(sys.argv[1], 'a').write(sys.argv[2] + '\\n')"

    async def agent(task, ctx):
        outs = await asyncio.gather(
            *(
                ctx.tool_async(f"fs.{name}", {"argv": [sys.executable, "-c", code, marker, name]}, effect="write", risk="high")
                for name in ("a", "b")
            )
        )
        return [out["returncode"] for out in outs]

    agent.__name__ = "parallel_agent"
    return agent


def agent_for(scenario: str, marker: str):
    if scenario == "live_parallel":
        return parallel_agent(marker)
    return low_risk_agent(marker) if scenario == "veto_then_resume" else tool_agent(marker)


async def _live_parallel(root: Path, marker: str) -> str:
    """Two drafts awaited together, waiting for a person: the second (held behind the first's pause) is decided
    first, then the first; both run."""
    handle = noesis_nb.start(TASKS["tool"], using=parallel_agent(marker), runs_dir=root, approver="ask")
    await handle
    drafts = [pending.draft_id for pending in handle.pending]
    for draft in reversed(drafts):
        handle.approve(draft, approver_id="ana")
    await asyncio.wait_for(handle.wait(), 30)
    return "ok" if handle.status == "ok" and len(drafts) == 2 else f"ended {handle.status} with {len(drafts)} drafts"


async def _live(root: Path, marker: str, approver: str) -> None:
    handle = noesis_nb.start(TASKS["tool"], using=tool_agent(marker), runs_dir=root, approver=approver)
    await handle
    if handle.status == "paused":
        handle.approve(approver_id="ana")
    await asyncio.wait_for(handle.wait(), 30)


async def _live_waiting_for_another_process(root: Path, marker: str, flag: Path) -> str:
    """A kernel that started an episode and waits, alive, while another process decides and resumes it."""
    handle = noesis_nb.start(TASKS["tool"], using=tool_agent(marker), runs_dir=root, approver="ask")
    await handle
    flag.write_text(str(handle.run_dir))
    await asyncio.wait_for(handle.wait(), 30)
    return handle.status


async def _live_steer_drain(root: Path, marker: str) -> str:
    """A steer taken by the adapter, its tool run, then a graceful stop (drain) while it works on: sealed cancelled."""
    tool_done = asyncio.Event()

    async def agent(task, ctx):
        told = await ctx.next_steer_async(10)
        out = await ctx.tool_async("fs.append", {"argv": append_argv(marker)}, effect="write", risk="low")
        ctx.emit("note", {"text": f"heard {told}"})
        tool_done.set()
        await asyncio.sleep(30)  # stopped here by the drain
        return out["returncode"]

    handle = noesis_nb.start(TASKS["tool"], using=agent, runs_dir=root, approver="auto")
    handle.steer("keep the note short")
    await asyncio.wait_for(tool_done.wait(), 30)
    await asyncio.wait_for(handle.stop(drain_s=5), 30)
    return "ok" if handle.status == "cancelled" and handle.drain_report is not None else f"ended {handle.status}"


def run_scenario(scenario: str, root: Path, marker: str, flag: str | None = None) -> str:
    """One episode, from start to seal, as the scenario says; returns how it ended."""
    if scenario == "batch":
        statuses = [status for status, _, _ in asyncio.run(run_batch(root.parent))]
        return "ok" if statuses == ["ok", "ok"] else f"batch ended {statuses}"
    if scenario == "live_steer_drain":
        return asyncio.run(_live_steer_drain(root, marker))
    if scenario == "live_parallel":
        return asyncio.run(_live_parallel(root, marker))
    if scenario == "live_waiting":
        return asyncio.run(_live_waiting_for_another_process(root, marker, Path(flag or "")))
    if scenario == "live_auto":
        asyncio.run(_live(root, marker, "auto"))
    elif scenario == "live_ask":
        asyncio.run(_live(root, marker, "ask"))
    elif scenario == "solve_then_resume":
        ep = noesis_nb.solve(TASKS["tool"], using=tool_agent(marker), runs_dir=root, approver="ask")
        noesis_nb.approve_draft(ep, approver_id="ana", runs_dir=root)
        noesis_nb.resume_run(ep, runs_dir=root)
    elif scenario == "veto_then_resume":
        ns.set(governance_pause_on_veto=True)
        ep = noesis_nb.solve(TASKS["veto"], using=low_risk_agent(marker), runs_dir=root, governance="enforce")
        noesis_nb.approve_draft(ep, approver_id="ana", runs_dir=root)
        noesis_nb.resume_run(ep, runs_dir=root, using=low_risk_agent(marker))
    else:
        raise ValueError(f"unknown scenario {scenario!r}")
    return "ok"


class WritePoints:
    """Counts write points; just before point ``at`` it does ``action`` (by default: SIGKILL this process)."""

    def __init__(self, at: int | None, action=None):
        self.at, self.points, self.done = at, 0, False
        self.action = action or (lambda: os.kill(os.getpid(), signal.SIGKILL))
        self._saved: list[tuple[object, str, object]] = []
        self._lock = threading.Lock()  # a batch writes from several threads: each point counted once, the action done once

    def point(self) -> None:
        with self._lock:
            self.points += 1
            due = self.at is not None and self.points >= self.at and not self.done
            self.done = self.done or due
            if due:
                self.action()

    def wrap(self, fn):
        def wrapped(*args, **kwargs):
            self.point()
            result = fn(*args, **kwargs)
            return result

        return wrapped

    def install(self) -> None:
        targets = [(eventlog, "_line_of"), (_jsonio, "atomic_write_bytes"), (repositories, "claim_file")]
        targets += [(os, name) for name in ("link", "rename", "replace", "unlink", "mkdir")] + [
            (subprocess, "run"),
            (tethered, "run_tethered"),
        ]
        for owner, name in targets:
            original = getattr(owner, name)
            self._saved.append((owner, name, original))
            setattr(owner, name, self.wrap(original))

    def uninstall(self) -> None:
        for owner, name, original in reversed(self._saved):
            setattr(owner, name, original)
        self._saved.clear()


def child(request: dict) -> dict:
    killer = WritePoints(request.get("kill_at"))
    killer.install()
    root = Path(request["root"])
    try:
        outcome = run_scenario(request["scenario"], root / "runs", str(root / "marker.txt"), request.get("flag"))
    except BaseException as exc:  # reported, so a broken scenario is visible in the parent's failure
        outcome = f"{type(exc).__name__}: {exc}"
    return {"points": killer.points, "outcome": outcome}


if __name__ == "__main__":
    from forkserver import serve  # the script's own folder is on the path

    seal_key()  # the seal key, made once before any fork: making it is no write of an episode
    serve(child)
