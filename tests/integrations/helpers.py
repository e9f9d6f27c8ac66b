"""Driving an integration episode in tests: start, optionally decide the pending approval, finish."""

from __future__ import annotations

import asyncio
from typing import Any

from noesis_nb.integrations import start
from noesis_nb.store import read_events, read_json


async def drive(
    task: str,
    using: Any,
    runs_dir: Any,
    *,
    decide: str | None = None,
    reason: str | None = None,
    timeout: float = 30,
    **opts: Any,
) -> tuple[Any, list[Any]]:
    """Run to the end; when ``decide`` is given, approve/reject each pending draft. Returns (handle, pendings seen)."""
    handle = start(task, using=using, runs_dir=runs_dir, **opts)
    seen: list[Any] = []
    await asyncio.wait_for(_settled(handle), timeout)
    while decide and handle.status == "paused":
        seen.extend(handle.pending)
        if decide == "approve":
            handle.approve(approver_id="tester")
        else:
            handle.reject(reason=reason, approver_id="tester")
        await asyncio.sleep(0.05)
        await asyncio.wait_for(_settled(handle), timeout)
    await asyncio.wait_for(handle.wait(), timeout)
    return handle, seen


def run(task: str, using: Any, runs_dir: Any, **kw: Any) -> tuple[Any, list[Any]]:
    return asyncio.run(drive(task, using, runs_dir, **kw))


def disk_events(handle: Any) -> list[dict[str, Any]]:
    return read_events(handle.run_dir / "events.jsonl")


def names(events: list[dict[str, Any]]) -> list[str]:
    return [e.get("event_type") or (e.get("payload") or {}).get("event_name") or e["phase"] for e in events]


def from_source(events: list[dict[str, Any]], source: str) -> list[dict[str, Any]]:
    return [e for e in events if (e.get("payload") or {}).get("source") == source]


def run_tags(handle: Any) -> dict[str, Any]:
    return read_json(handle.run_dir / "state.json")["episode"]["tags"]


async def _settled(handle):
    """``await handle``: returns when the episode ends or waits for a human."""
    return await handle
