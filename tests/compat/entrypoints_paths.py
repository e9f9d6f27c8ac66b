"""Entry points the other lists leave out: ``solve_async`` and ``resume_run_async``, a live pause decided (and the
run continued) by another process while the kernel still waits, batches run again with ``rerun_failed``, on an
executor and cancelled, and a replayed recording.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import time
from pathlib import Path
from typing import Any

import noesis_nb
from noesis_nb.integrations.replay import RecordedReplay
from tests.runtime.agents import make_writer

from .entrypoints import _runs, _second_process


def solve_async_then_resume_async(root: Path) -> list[Path]:
    """``await solve_async`` pauses on disk; ``approve_draft`` and ``await resume_run_async`` continue it."""
    runs = root / "runs"

    async def main() -> None:
        episode = await noesis_nb.solve_async("Write a note", using=make_writer(root / "out.txt"), runs_dir=runs, approver="ask")
        noesis_nb.approve_draft(episode, approver_id="ana", runs_dir=runs)
        await noesis_nb.resume_run_async(episode, runs_dir=runs)

    asyncio.run(main())
    return _runs(runs)


def _live_decided_elsewhere(root: Path, code: str) -> list[Path]:
    """A live kernel paused for approval; another process runs ``code`` (``{run}`` is the run dir) meanwhile."""
    runs = root / "runs"

    async def main() -> None:
        handle = noesis_nb.start("Write a note", using=make_writer(root / "out.txt"), runs_dir=runs, approver="ask")
        await handle
        assert handle.status == "paused", handle.status
        await asyncio.to_thread(_second_process, code.format(run=str(handle.run_dir)))
        await asyncio.wait_for(handle.wait(), 30)
        assert handle.status == "ok", handle.status

    asyncio.run(main())
    return _runs(runs)


def live_approved_by_another_process(root: Path) -> list[Path]:
    return _live_decided_elsewhere(root, "noesis_nb.approve_draft({run!r}, approver_id='ops')")


def live_resumed_by_another_process(root: Path) -> list[Path]:
    """Decided and resumed from another process while the kernel that owns the run is alive: it follows that one."""
    return _live_decided_elsewhere(root, "noesis_nb.approve_draft({run!r}, approver_id='ops')\nnoesis_nb.resume_run({run!r})")


def _flaky(task: str) -> str:
    if task.startswith("fail") and not (Path(task.split()[1]) / "fixed").exists():
        raise RuntimeError(f"{task} failed")
    return task.upper()


def batch_rerun_failed(root: Path) -> list[Path]:
    """A batch with a failing task, run again under its batch_id with ``rerun_failed=True`` (it passes then)."""
    runs = root / "runs"
    tasks = ["a", f"fail {root}"]

    async def main() -> None:
        first = await noesis_nb.batch(tasks, using=_flaky, root=runs, batch_id="nightly")
        assert first.counts() == {"ok": 1, "error": 1}, first.counts()
        (root / "fixed").touch()
        again = await noesis_nb.batch(tasks, using=_flaky, root=runs, batch_id="nightly", rerun_failed=True)
        assert again.counts() == {"ok": 2}, again.counts()

    asyncio.run(main())
    return _runs(runs)


def batch_on_executor(root: Path) -> list[Path]:
    """Episodes run on a ``concurrent.futures`` executor, one paused and approved through the API."""
    runs = root / "runs"

    async def main() -> None:
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            handle = noesis_nb.batch(
                ["note", "fail b"],
                using={"writer": make_writer(root / "out.txt"), "flaky": _flaky},
                root=runs,
                executor=pool,
                approver="ask",
            )
            deadline = time.monotonic() + 30
            while not handle.pending() and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            for entry, _ in handle.pending():
                noesis_nb.approve_draft(entry.run_dir, approver_id="ana")
            await asyncio.wait_for(handle.wait(), 30)

    asyncio.run(main())
    return _runs(runs)


def batch_cancelled(root: Path) -> list[Path]:
    """A batch cancelled while two episodes run (one in its adapter, one paused for approval), the rest queued."""
    runs = root / "runs"

    async def main() -> None:
        handle = noesis_nb.batch(
            ["slow", "note", "c", "d"],
            using={"sleeper": _sleeps, "writer": make_writer(root / "out.txt")},
            root=runs,
            concurrency=2,
            approver="ask",
        )
        deadline = time.monotonic() + 30
        while handle.counts().get("running", 0) + handle.counts().get("paused", 0) < 2 and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        assert handle.cancel() is True
        await asyncio.wait_for(handle.wait(), 30)

    asyncio.run(main())
    return _runs(runs)


async def _sleeps(task: str) -> str:
    await asyncio.sleep(30)
    return task


def replayed_recording(root: Path) -> list[Path]:
    """A recorded trace replayed as an episode, verb-phase rows (with their minima) among its rows."""
    rows: list[tuple[str, dict[str, Any]]] = [
        ("integration", {"kind": "run_started", "task": "summarise"}),
        ("plan", {"steps": ["act:search the report"]}),
        ("act", {"tool": "search", "input_excerpt": "report", "outcome": "found"}),
        ("reflect", {"success": True}),
        ("integration", {"kind": "run_finished", "answer": "done"}),
    ]
    noesis_nb.solve("summarise", using=RecordedReplay(rows, source="recorded"), runs_dir=root / "runs")
    return _runs(root / "runs")


ENTRY_POINTS = {
    "solve-async-resume-async": solve_async_then_resume_async,
    "live-approved-by-another-process": live_approved_by_another_process,
    "live-resumed-by-another-process": live_resumed_by_another_process,
    "batch-rerun-failed": batch_rerun_failed,
    "batch-on-executor": batch_on_executor,
    "batch-cancelled": batch_cancelled,
    "replayed-recording": replayed_recording,
}
