"""A fork server whose children act on one run at the same moment as another server's children.

Run as a script; it reads one JSON request per line on stdin and answers one JSON line per request:

    {"action": "resume", "run": "/tmp/…/ep_…", "go": "/tmp/…/go", "delay": 0.02}
      →   {"ok": true, "warnings": ["NothingToResume: run ep_… is being written by …"]}

The child waits until the file ``go`` exists (the barrier every racer waits on), sleeps ``delay``
seconds, then acts through the public API and reports what it was told: the warnings it got, or
the one-line error it raised. The server preloads noesis_nb and only forks, so each child starts
from a single-threaded, clean process in a few milliseconds; two servers are two racers.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
import warnings
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

import noesis_nb  # noqa: E402  (preloaded before any fork)
import noesis_nb.runtime.api  # noqa: E402
import noesis_nb.runtime.resume  # noqa: E402
import noesis_nb.runtime.resume_tool  # noqa: E402
import noesis_nb.tools  # noqa: E402


def marking_agent(task: str, ctx: Any) -> str:
    """A batch's adapter: one line per run in ``marks.txt`` beside the runs dir.

    The task fails while ``fail-<task>`` is there, and its process dies while ``die-<task>`` is."""
    root = Path(ctx.run_dir).parent.parent
    with open(root / "marks.txt", "a") as marks:
        marks.write(f"{task} {ctx.episode_id}\n")
    time.sleep(0.05)
    if (root / f"die-{task}").exists():  # the process dies while the adapter runs: its run is lost
        os._exit(1)
    if (root / f"fail-{task}").exists():
        raise RuntimeError(f"{task} failed")
    return "done"


async def run_batch(request: dict[str, Any]) -> list[dict[str, Any]]:
    handle = noesis_nb.batch(
        request["tasks"],
        using=marking_agent,
        batch_id=request["batch_id"],
        runs_dir=request["runs_dir"],
        rerun_failed=request.get("rerun_failed", False),
        concurrency=request.get("concurrency", 8),
    )
    if request.get("cancel"):
        handle.cancel()
    await handle
    return [{"index": e.index, "status": e.status, "episode_id": e.episode_id, "error": e.error} for e in handle.entries]


def act(request: dict[str, Any]) -> dict[str, Any]:
    action, run = request["action"], request.get("run")
    out: dict[str, Any] = {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if action in ("approve", "reject"):
            decide = noesis_nb.approve_draft if action == "approve" else noesis_nb.reject_draft
            decision = decide(run, approver_id=request.get("who", action))
            out.update(status=decision.status, created=decision.created, approver_id=decision.approver_id)
        elif action == "resume":
            noesis_nb.resume_run(run)
        elif action == "batch":
            out["entries"] = asyncio.run(run_batch(request))
        else:
            raise ValueError(f"unknown action {action!r}")
    out["warnings"] = [f"{w.category.__name__}: {w.message}" for w in caught]
    return out


def _wait_for(go: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not os.path.exists(go):
        if time.monotonic() > deadline:
            raise TimeoutError(f"{go} never appeared")
        time.sleep(0.0002)


def child(request: dict[str, Any]) -> dict[str, Any]:
    _wait_for(request["go"])
    if request.get("delay"):
        time.sleep(request["delay"])
    started = time.monotonic()
    reply = {"ok": True, **act(request)}
    reply["seconds"] = time.monotonic() - started
    return reply


if __name__ == "__main__":
    from forkserver import serve  # the script's own folder is on the path

    serve(child)
