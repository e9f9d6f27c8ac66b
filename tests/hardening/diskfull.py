"""A fork server whose children run an episode scenario on a real file system that fills up at a chosen write.

Started under ``unshare -Urm`` with a small tmpfs mounted at the request's ``mount``: a private,
real file system whose ``write`` calls fail with ``ENOSPC`` (or take only part of a line) exactly
as a full disk does. Each child runs the scenario and, just before write point ``fill_at`` (the
kill harness's points: every event line, document, rename, link, unlink, folder and the tool's
subprocess), fills the disk with a ballast file: that write and the rest find no room (a small
one may still fit in the last page, as on a real disk). The child notes how the scenario ended
and what the disk holds at that moment (every event line whole? temp files left?), then makes
room (deletes the ballast) and recovers *in the same process*, as a person would in the kernel
that saw the error, and copies the result to ``out`` on the real disk for the test to check.

    {"scenario": "live_auto", "mount": "/…/mnt", "out": "/…/p3", "fill_at": 3}
    → {"outcome": "…", "error": ["RunWriteError", "could not write …"] | null, "torn": [], "leftovers": [], …}

``fill_at: null`` runs with all the room there is and reports how many write points the scenario has.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
import warnings
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

import noesis_nb  # noqa: E402  (preloaded before any fork)
from noesis_nb.store import read_events  # noqa: E402
from noesis_nb.store.seal import seal_key  # noqa: E402
from tests.hardening.crashkit import BATCH_TASKS, WritePoints, run_batch, run_scenario, tool_agent  # noqa: E402
from tests.hardening.recovery import recover  # noqa: E402


def _fill(mount: Path) -> int:
    """Fill the file system with a ballast file until no page is free; returns the bytes written."""
    page = os.statvfs(mount).f_frsize
    written = 0
    fd = os.open(mount / "ballast", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        while True:  # unbuffered: nothing is left to flush (and fail) on close
            try:
                done = os.write(fd, b"\0" * page * max(1, os.statvfs(mount).f_bavail))
            except OSError:
                break
            if not done:
                break
            written += done
    finally:
        os.close(fd)
    return written


async def _live(runs: Path, marker: str, approver: str) -> str:
    """``start`` in the kernel's loop, approve a pause, wait: how the handle ended (its error raised, as a cell shows it)."""
    handle = noesis_nb.start("append the note", using=tool_agent(marker), runs_dir=runs, approver=approver)
    await handle
    if handle.status == "paused":
        handle.approve(approver_id="ana")
    await asyncio.wait_for(handle.wait(), 30)
    handle.result()  # raises the episode's error, if it ended with one
    return handle.status


def _scenario(scenario: str, root: Path, marks: Path) -> str:
    runs = root / "runs"
    if scenario == "batch":
        entries = asyncio.run(run_batch(root, markers=marks))
        if [status for status, _, _ in entries] == ["ok"] * len(BATCH_TASKS):
            return "ok"
        return "batch ended " + json.dumps([[status, error] for status, _, error in entries])
    if scenario in ("live_auto", "live_ask"):
        return asyncio.run(_live(runs, str(marks / "marker.txt"), scenario.removeprefix("live_")))
    return run_scenario(scenario, runs, str(marks / "marker.txt"))


def _on_disk_now(root: Path) -> tuple[list[str], list[str]]:
    """What the full disk holds: event logs that do not read strictly (a part-line anywhere), and temp files left."""
    torn = []
    for log in root.rglob("events.jsonl"):
        try:
            read_events(log, strict=True)
        except Exception as exc:
            torn.append(f"{log.relative_to(root)}: {exc}")
    leftovers = [str(p.relative_to(root)) for p in root.rglob("*.tmp")]
    return torn, leftovers


def _recover_batch(root: Path, marks: Path, tally: Counter) -> list[str]:
    statuses: list[str] = []
    for rerun_failed in (False, True, True):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            entries = asyncio.run(run_batch(root, rerun_failed, markers=marks))
        statuses = [status for status, _, _ in entries]
        if statuses == ["ok"] * len(BATCH_TASKS):
            break
        for status, episode, _ in entries:
            if status == "paused":
                noesis_nb.approve_draft(root / "runs" / str(episode), approver_id="recovery")
                tally["decided after the disk filled"] += 1
    return statuses


def child(request: dict[str, Any]) -> dict[str, Any]:
    mount, out = Path(request["mount"]), Path(request["out"])
    scenario = request["scenario"]
    root, marks = mount / "t", out / "marks"
    marks.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(root, ignore_errors=True)
    (mount / "ballast").unlink(missing_ok=True)
    root.mkdir()
    filled: list[int] = []
    points = WritePoints(request.get("fill_at"), lambda: filled.append(_fill(mount)))
    points.install()
    error = None
    try:
        outcome = _scenario(scenario, root, marks)
    except BaseException as exc:
        outcome, error = "raised", [type(exc).__name__, str(exc)]
    points.uninstall()
    torn, leftovers = _on_disk_now(root)
    (mount / "ballast").unlink(missing_ok=True)  # room again
    tally: Counter = Counter()
    recovery_error = None
    try:
        if scenario == "batch":
            tally["batch after recovery: " + ",".join(_recover_batch(root, marks, tally))] += 1
        else:
            for run in sorted((root / "runs").glob("ep_*")):
                recover(run, scenario, marks / "marker.txt", tally)
    except BaseException as exc:
        recovery_error = f"{type(exc).__name__}: {exc}"
    shutil.copytree(root, out / "root", symlinks=True)
    shutil.rmtree(root, ignore_errors=True)
    return {
        "outcome": outcome,
        "error": error,
        "points": points.points,
        "filled": bool(filled),
        "torn": torn,
        "leftovers": leftovers,
        "recovery_error": recovery_error,
        "tally": dict(tally),
    }


if __name__ == "__main__":
    from forkserver import serve  # the script's own folder is on the path

    # the seal key, made once before any fork (as the kill harness does): making it is no write of an episode, and
    # made in the first child (a fresh config folder) it added 5 write points to that run alone
    seal_key()
    serve(child)
