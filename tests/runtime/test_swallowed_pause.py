"""An adapter that awaits its tool calls through ``asyncio.gather(..., return_exceptions=True)`` or ``asyncio.wait``
gets the pause of ``solve`` (``EpisodePaused``) back as a value and goes on: the episode still ends paused on disk,
as if the pause had unwound it, never sealed with the pause open. Its drafts stay decidable, and ``resume_run``
continues the run to a seal that passes tests/compat's checker (interrupt → checkpoint → resume → act → terminate)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb import ns
from noesis_nb.store import read_events
from tests.compat.checker import check_run

RAN: list[str] = []


def _note(text: str) -> str:
    RAN.append(text)
    return text


def _call(ctx: Any, name: str) -> Any:
    return ctx.tool_async(f"notes.{name}", {"args": [name]}, protocol="python", fn=_note, effect="write", risk="high")


async def gather_three(task: str, ctx: Any) -> str:
    got = await asyncio.gather(*(_call(ctx, n) for n in ("a", "b", "c")), return_exceptions=True)
    return f"saw {[type(x).__name__ for x in got]}"


async def gather_one(task: str, ctx: Any) -> str:
    got = await asyncio.gather(_call(ctx, "a"), return_exceptions=True)
    return f"saw {[type(x).__name__ for x in got]}"


async def wait_one(task: str, ctx: Any) -> str:
    call = asyncio.ensure_future(_call(ctx, "a"))
    await asyncio.wait([call])
    return f"saw {type(call.exception()).__name__}"


async def then_raises(task: str, ctx: Any) -> str:
    await asyncio.gather(_call(ctx, "a"), return_exceptions=True)
    raise ValueError("no result to give")


def sync_catches(task: str, ctx: Any) -> str:
    try:
        ctx.tool("notes.a", {"args": ["a"]}, protocol="python", fn=_note, effect="write", risk="high")
    except BaseException as exc:  # a sync adapter's catch-all takes the pause too
        return f"caught {type(exc).__name__}"
    return "ran"


def _solve(runs_dir: Path, using: Any) -> str:
    return noesis_nb.solve("notes", using=using, runs_dir=runs_dir, approver="ask")


def _solve_async(runs_dir: Path, using: Any) -> str:
    return asyncio.run(noesis_nb.solve_async("notes", using, runs_dir=runs_dir, approver="ask"))


def _ns_solve(runs_dir: Path, using: Any) -> str:
    return ns.solve("notes", using=using, runs_dir=str(runs_dir), approver="ask")


def _drafts(run: Path) -> dict[str, str]:
    return {
        doc["draft_id"]: doc["status"]
        for doc in (json.loads(p.read_text()) for p in run.glob("tool_invocations/**/prepared/*.json"))
    }


def _paused_whole(run: Path, drafts: int) -> None:
    """Paused on disk as when the pause unwinds the adapter: no seal, one draft pending, the others held."""
    assert not (run / "final.json").exists() and not (run / "summary.json").exists()
    phases = [e["phase"] for e in read_events(run / "events.jsonl")]
    assert "act" not in phases and "terminate" not in phases
    statuses = sorted(_drafts(run).values())
    assert len(statuses) == drafts and statuses.count("pending_approval") == 1
    assert check_run(run) == []


def _approve_and_resume(runs_dir: Path, episode: str) -> Path:
    run = runs_dir / episode
    for draft_id in _drafts(run):
        noesis_nb.approve_draft(run, draft_id, approver_id="ana")
    noesis_nb.resume_run(episode, runs_dir=runs_dir)
    assert (run / "final.json").exists()
    assert check_run(run) == []
    return run


@pytest.mark.parametrize(
    ("adapter", "drafts"),
    [(gather_three, 3), (gather_one, 1), (wait_one, 1), (then_raises, 1), (sync_catches, 1)],
    ids=lambda x: getattr(x, "__name__", str(x)),
)
def test_solve_ends_paused_when_the_adapter_swallows_its_pause(runs_dir: Path, adapter: Any, drafts: int) -> None:
    RAN.clear()
    episode = _solve(runs_dir, adapter)
    _paused_whole(runs_dir / episode, drafts)
    assert RAN == []  # nothing ran before its approval
    _approve_and_resume(runs_dir, episode)
    assert sorted(RAN) == ["a", "b", "c"][:drafts]


@pytest.mark.parametrize("entry", [_solve_async, _ns_solve], ids=["solve_async", "ns.solve"])
def test_every_solve_entry_ends_paused(runs_dir: Path, entry: Any) -> None:
    episode = entry(runs_dir, gather_one)
    _paused_whole(runs_dir / episode, 1)


def test_an_exit_raised_after_the_pause_reaches_the_caller_with_the_run_paused(runs_dir: Path) -> None:
    async def stops(task: str, ctx: Any) -> str:
        await asyncio.gather(_call(ctx, "a"), return_exceptions=True)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        _solve(runs_dir, stops)
    (run,) = runs_dir.iterdir()
    _paused_whole(run, 1)


def test_resume_run_continuing_the_adapter_ends_paused_too(runs_dir: Path) -> None:
    """A veto overridden on disk: resume_run runs the adapter again, which swallows its draft's pause."""
    episode = noesis_nb.solve("wipe the tmp logs", using=gather_one, runs_dir=runs_dir, governance="enforce", pause_on_veto=True)
    noesis_nb.approve_draft(episode, runs_dir=runs_dir, approver_id="lead")
    noesis_nb.resume_run(episode, runs_dir=runs_dir, using=gather_one)
    _paused_whole(runs_dir / episode, 1)
    _approve_and_resume(runs_dir, episode)


def test_a_live_episode_waits_for_its_decision_as_before(runs_dir: Path) -> None:
    async def main() -> Any:
        handle = noesis_nb.start("notes", gather_one, runs_dir=runs_dir, approver="ask")
        await asyncio.wait_for(handle, 30)
        assert handle.status == "paused"
        handle.approve(approver_id="ana")
        await asyncio.wait_for(handle.wait(), 30)
        return handle

    handle = asyncio.run(main())
    assert handle.status == "ok" and handle.result() == "saw ['dict']"
    assert check_run(handle.run_dir) == []
