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
import json
import os
import sys
import time
import warnings
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

from crashkit import TASKS, WritePoints, batch_agent, run_scenario, tool_agent  # noqa: E402

import noesis_nb  # noqa: E402  (preloaded before any fork)
import noesis_nb.frames  # noqa: E402  (pandas too: a reader's child reads at once, not imports)
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
            noesis_nb.resume_run(run, using=tool_agent(request["marker"]) if request.get("marker") else None)
        elif action == "batch":
            out["entries"] = asyncio.run(run_batch(request))
        elif action in MORE:
            out.update(MORE[action](request))
        else:
            raise ValueError(f"unknown action {action!r}")
    out["warnings"] = [f"{w.category.__name__}: {w.message}" for w in caught]
    return out


def solve_one(request: dict[str, Any]) -> dict[str, Any]:
    """``solve`` of the tool episode under ``episode_id`` (approved by policy, so its tool runs in the call)."""
    episode = noesis_nb.solve(
        TASKS["tool"],
        using=tool_agent(request["marker"]),
        runs_dir=request["runs_dir"],
        episode_id=request.get("episode_id"),
        approver=request.get("approver", "auto"),
    )
    return {"episode_id": episode}


def quick_agent(task: str, ctx: Any) -> str:
    ctx.emit("note", {"text": task})
    return "done"


def solve_many(request: dict[str, Any]) -> dict[str, Any]:
    """``count`` quick episodes with generated ids into ``runs_dir`` (a root that may not exist yet)."""
    ids = [noesis_nb.solve(f"quick {i}", using=quick_agent, runs_dir=request["runs_dir"]) for i in range(request["count"])]
    return {"episode_ids": ids}


def read_loop(request: dict[str, Any]) -> dict[str, Any]:
    """Every frame of ``runs_dir`` (and ``show`` of each run) until ``stop`` exists: what raised, what was reported.

    One pass first warms the readers up (pandas and the views imported), then ``warm`` is written and the loop
    waits on ``barrier``, so it reads while the other racer writes, not while it imports."""
    from noesis_nb.frames import events_df, runs_df, tools_df, usage_df

    root, stop = Path(request["runs_dir"]), Path(request["stop"])
    quiet = os.open(os.devnull, os.O_WRONLY)
    os.dup2(quiet, 1)  # what a view prints outside a notebook must not reach the server's answers
    raised: list[str] = []
    reported: list[str] = []

    def one_pass(cache: bool) -> None:
        for name, frame in (("runs_df", runs_df), ("events_df", events_df), ("tools_df", tools_df), ("usage_df", usage_df)):
            try:
                df = frame(root, cache=cache)
                reported.extend(f"{name}: {p}" for p in df.attrs.get("errors", []))
            except Exception as exc:
                raised.append(f"{name}: {type(exc).__name__}: {exc}")
        for run in sorted(root.glob("ep_*")) if root.is_dir() else []:
            try:
                view = noesis_nb.show(run)
                reported.extend(f"show: {p}" for p in view.source.problems)
            except Exception as exc:
                raised.append(f"show({run.name}): {type(exc).__name__}: {exc}")

    one_pass(cache=True)
    Path(request["warm"]).write_text("warm")
    _wait_for(request["barrier"])
    passes = 0
    deadline = time.monotonic() + 30
    while not stop.exists() and time.monotonic() < deadline:
        one_pass(cache=passes % 2 == 0)
        passes += 1
    one_pass(cache=False)  # what the writer left
    return {"passes": passes, "raised": raised[:10], "reported": sorted(set(reported))[:10]}


async def _live(request: dict[str, Any]) -> dict[str, Any]:
    """A kernel's episode paused on its draft: says so in ``flag``, waits on ``barrier``, then (``decide``) its own
    handle approves, rejects or cancels it while the other racer acts on disk; the handle's end, and what its decision said."""
    handle = noesis_nb.start(TASKS["tool"], using=tool_agent(request["marker"]), runs_dir=request["runs_dir"], approver="ask")
    await asyncio.wait_for(handle, 30)
    Path(request["flag"]).write_text(str(handle.run_dir))
    _wait_for(request["barrier"])
    if request.get("delay"):
        await asyncio.sleep(request["delay"])
    out: dict[str, Any] = {}
    if request.get("decide") == "cancel":
        out["cancelled"] = handle.cancel()
    elif request.get("decide"):
        decide = handle.approve if request["decide"] == "approve" else handle.reject
        try:
            decision = decide(approver_id="kernel")
            out.update(status=decision.status, created=decision.created, approver_id=decision.approver_id)
        except noesis_nb.errors.NoesisNbError as exc:
            out["decide_error"] = f"{type(exc).__name__}: {exc}"
    await asyncio.wait_for(handle.wait(), 30)
    out["handle"] = handle.status
    return out


def scenario(request: dict[str, Any]) -> dict[str, Any]:
    """One of ``crashkit``'s episode scenarios under ``root``, this process killed (SIGKILL) just before write point
    ``kill_at`` (None: run to the end); how many write points it passed."""
    killer = WritePoints(request.get("kill_at"))
    killer.install()
    root = Path(request["root"])
    outcome = run_scenario(request["scenario"], root / "runs", str(root / "marker.txt"))
    return {"points": killer.points, "outcome": outcome}


async def _batch_live(request: dict[str, Any]) -> dict[str, Any]:
    """A kernel's batch whose episodes all pause on their drafts: their run dirs in ``flag``, then it waits (on
    ``barrier``, then for every entry to end) while the other racer decides and resumes them on disk."""
    root = Path(request["root"])
    handle = noesis_nb.batch(
        request["tasks"], using=batch_agent(root), batch_id="b_live", runs_dir=root / "runs", approver="ask", concurrency=4
    )
    await asyncio.wait_for(handle, 30)  # every entry finished or paused
    Path(request["flag"]).write_text(json.dumps([str(root / "runs" / e.episode_id) for e in handle.entries]))
    _wait_for(request["barrier"])
    await asyncio.wait_for(handle.wait(), 30)
    return {"entries": [{"status": e.status, "episode_id": e.episode_id, "error": e.error} for e in handle.entries]}


def decide_all(request: dict[str, Any]) -> dict[str, Any]:
    """Approve each run of ``runs`` on disk, resuming each right after: what each call was told."""
    told = []
    for run in request["runs"]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            decision = noesis_nb.approve_draft(run, approver_id="B")
            noesis_nb.resume_run(run)
        told.append({"created": decision.created, "warnings": [f"{w.category.__name__}: {w.message}" for w in caught]})
    return {"told": told}


MORE = {
    "solve": solve_one,
    "many": solve_many,
    "read": read_loop,
    "live": lambda r: asyncio.run(_live(r)),
    "scenario": scenario,
    "batch_live": lambda r: asyncio.run(_batch_live(r)),
    "decide_all": decide_all,
}


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
    try:
        reply = {"ok": True, **act(request)}
    except Exception as exc:  # reported: the parent judges what the racer was told, and whether it is the package's
        return {"ok": False, "error": f"{type(exc).__name__}: {exc}", "ours": isinstance(exc, noesis_nb.errors.NoesisNbError)}
    reply["seconds"] = time.monotonic() - started
    return reply


if __name__ == "__main__":
    from forkserver import serve  # the script's own folder is on the path

    serve(child)
