"""Runs one scenario on a private tmpfs that is (or becomes) read-only, and prints what the caller saw as JSON.

Started by ``test_write_refused.py`` under ``unshare -Urm`` with the tmpfs mounted at ``argv[1]``:
every refusal here is the kernel's own ``EROFS``, as a remounted or read-only disk gives it.

    create   the runs_dir (and a runs_dir still to be made in it) on a file system remounted read-only
    seal     the run's folder becomes read-only while its episode runs (a read-only bind mount over it):
             the log already open still takes lines, the seal's documents are refused; then it is
             made writable again and ``resume_run`` in the same process seals the run
    decide   a human decides a paused run's draft while its disk is read-only, then again once it is writable
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

import noesis_nb  # noqa: E402
from noesis_nb.store import read_events  # noqa: E402


def _raised(call) -> list[str] | None:
    try:
        call()
    except BaseException as exc:
        return [type(exc).__name__, str(exc), getattr(exc, "errno", None)]
    return None


def create(mount: Path) -> dict:
    runs = mount / "runs"
    runs.mkdir()
    subprocess.run(["mount", "-o", "remount,ro", str(mount)], check=True)
    there = _raised(lambda: noesis_nb.solve("x", using=lambda task: task, runs_dir=runs))
    unmade = _raised(lambda: noesis_nb.solve("x", using=lambda task: task, runs_dir=runs / "new"))
    return {"there": there, "unmade": unmade, "left": sorted(os.listdir(runs))}


def seal(mount: Path) -> dict:
    runs = mount / "runs"
    made_ro: list[str] = []

    def agent(task, ctx):
        ctx.emit("note", {"text": "before"})
        subprocess.run(["mount", "--bind", "-o", "ro", str(ctx.run_dir), str(ctx.run_dir)], check=True)
        made_ro.append(str(ctx.run_dir))
        ctx.emit("note", {"text": "after"})  # the open log still takes it
        return "done"

    error = _raised(lambda: noesis_nb.solve("x", using=agent, runs_dir=runs))
    run = next(runs.glob("ep_*"))
    at_refusal = {
        "sealed": (run / "final.json").exists() or (run / "manifest.json").exists(),
        "temp_files": sorted(p.name for p in run.rglob("*.tmp")),
        "strict_read": _raised(lambda: read_events(run / "events.jsonl", strict=True)),
    }
    still_read_only = _raised(lambda: noesis_nb.resume_run(run.name, runs_dir=runs))  # before it is writable again
    if made_ro:
        subprocess.run(["umount", made_ro[0]], check=True)
    resumed = _raised(lambda: noesis_nb.resume_run(run.name, runs_dir=runs))
    return {
        "error": error,
        "made_ro": bool(made_ro),
        "at_refusal": at_refusal,
        "still_read_only": still_read_only,
        "resumed": resumed,
        "final": json.loads((run / "final.json").read_text()) if (run / "final.json").exists() else None,
        "manifest": (run / "manifest.json").exists(),
    }


def decide(mount: Path) -> dict:
    """A run paused on its tool draft; the disk is remounted read-only; a human decides; it is made writable again."""
    from tests.runtime.agents import make_writer

    runs = mount / "runs"
    episode = noesis_nb.solve("x", using=make_writer(mount / "out.txt"), runs_dir=runs)
    run = runs / episode
    subprocess.run(["mount", "-o", "remount,ro", str(mount)], check=True)
    refused = _raised(lambda: noesis_nb.approve_draft(run, approver_id="ana"))
    subprocess.run(["mount", "-o", "remount,rw", str(mount)], check=True)
    decided = _raised(lambda: noesis_nb.approve_draft(run, approver_id="ana"))
    resumed = _raised(lambda: noesis_nb.resume_run(episode, runs_dir=runs))
    return {
        "refused": refused,
        "decided": decided,
        "resumed": resumed,
        "final": json.loads((run / "final.json").read_text()) if (run / "final.json").exists() else None,
        "tool_ran": (mount / "out.txt").read_text().count("x") if (mount / "out.txt").exists() else 0,
    }


if __name__ == "__main__":
    scenario, mount = sys.argv[2], Path(sys.argv[1])
    print(json.dumps({"create": create, "seal": seal, "decide": decide}[scenario](mount)))
