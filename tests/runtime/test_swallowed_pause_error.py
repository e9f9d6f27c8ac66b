"""An adapter that takes its run's pause (``asyncio.gather(..., return_exceptions=True)``) and then raises its own
error: the run still ends paused (its drafts are a person's to decide, as the README says), but the error does not
vanish: it is said (a warning under ``solve``, ``handle.problems`` live), written in the run (an ``error`` event), and
``resume_run`` seals the run ``error`` (``adapter_error``) once the decided draft has run."""

from __future__ import annotations

import asyncio
import json
import warnings
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.runtime.episode import AdapterFailedWhilePaused
from noesis_nb.store import read_events
from tests.compat.checker import check_run

ran: list[str] = []


def _note(text: str) -> str:
    ran.append(text)
    return text


async def _takes_the_pause_then_fails(task: str, ctx: Any) -> Any:
    call = ctx.tool_async("notes.a", {"args": ["a"]}, protocol="python", fn=_note, effect="write", risk="high")
    (got,) = await asyncio.gather(call, return_exceptions=True)
    raise ValueError(f"the adapter's own failure after {type(got).__name__}")


async def _walks_away_then_fails(task: str, ctx: Any) -> Any:
    call = ctx.tool_async("notes.a", {"args": ["a"]}, protocol="python", fn=_note, effect="write", risk="high")
    await asyncio.wait([asyncio.ensure_future(call)], timeout=0.2)  # live, the call waits: the adapter goes on
    raise ValueError("the adapter's own failure after walking away")


def _check_paused_with_the_error(run: Path) -> None:
    events = read_events(run / "events.jsonl")
    (error,) = [e for e in events if e.get("phase") == "error"]
    assert "the adapter's own failure" in error["payload"]["error"]["message"]
    assert not (run / "final.json").exists()
    assert check_run(run) == []  # paused on its draft, the error beside it


def _resume_and_check(run: Path, runs_dir: Path) -> None:
    noesis_nb.approve_draft(run, approver_id="ana")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        noesis_nb.resume_run(run.name, runs_dir=runs_dir)
    assert ran == ["a"]  # the decided draft ran, once
    summary = json.loads((run / "summary.json").read_text())
    assert summary["status"] == "error" and "adapter_error" in json.dumps(summary)
    (terminate,) = [e for e in read_events(run / "events.jsonl") if e.get("phase") == "terminate"]
    assert "the adapter's own failure" in json.dumps(terminate["payload"])
    assert check_run(run) == []


def test_solve_says_the_adapters_error_and_resume_run_seals_it_error(runs_dir: Path) -> None:
    ran.clear()
    with pytest.warns(AdapterFailedWhilePaused, match=r"raised ValueError after its run paused .*own failure"):
        noesis_nb.solve("one note", _takes_the_pause_then_fails, runs_dir=runs_dir)
    (run,) = runs_dir.iterdir()
    _check_paused_with_the_error(run)
    _resume_and_check(run, runs_dir)


def test_a_live_episode_keeps_the_adapters_error_on_its_handle(runs_dir: Path) -> None:
    ran.clear()

    async def main() -> None:
        handle = noesis_nb.start("one note", _walks_away_then_fails, runs_dir=runs_dir, approver="ask")
        for _ in range(500):
            if any("raised ValueError" in p for p in handle.problems):
                break
            await asyncio.sleep(0.01)
        assert any("raised ValueError after its run paused" in p for p in handle.problems)
        await asyncio.wait_for(handle.wait(), 10)
        assert handle.status == "paused"

    asyncio.run(main())
    (run,) = runs_dir.iterdir()
    _check_paused_with_the_error(run)
    _resume_and_check(run, runs_dir)
