"""Tool calls an adapter leaves running when it ends (``asyncio.gather`` keeps its other calls running when one
raises; a task never awaited runs on) end recorded before the episode pauses or seals: a pause, an error or a
result waits for them (their results recorded: ``resume_run`` never runs them again), a stop cancels them
(``tool.execution.outcome_unknown``). Every ``tool.execution.started`` is followed by its end."""

from __future__ import annotations

import asyncio
import json
import sys
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.runtime.api import create_episode
from noesis_nb.runtime.drain import draining
from noesis_nb.store import read_events
from tests.compat.checker import check_run

from .agents import write_argv

_ENDS = {"tool.execution.succeeded", "tool.execution.failed", "tool.execution.outcome_unknown", "tool.replayed"}


def _tool_steps(run: Path) -> dict[str, list[str]]:
    """Each tool request's events, by name, in the log's order."""
    steps: dict[str, list[str]] = {}
    for event in read_events(run / "events.jsonl"):
        payload = event.get("payload") or {}
        if event.get("phase") == "tool" and isinstance(payload.get("request_id"), str):
            steps.setdefault(payload["request_id"], []).append(payload.get("event_name"))
    return steps


def _unended(run: Path) -> list[str]:
    """Requests whose ``tool.execution.started`` no end follows."""
    out = []
    for request, names in _tool_steps(run).items():
        for i, name in enumerate(names):
            if name == "tool.execution.started" and not _ENDS & set(names[i + 1 :]):
                out.append(request)
    return out


def _read(count: Path, *, wait_s: float = 0.0, release: Path | None = None) -> dict:
    """A subprocess tool that notes each run of it in ``count``, then takes ``wait_s`` s (or waits for ``release``)."""
    code = (
        "import os, sys, time; open(sys.argv[1], 'a').write('read\\n'); end = time.time() + float(sys.argv[2]); "
        "gate = sys.argv[3]\n"
        "while (time.time() < end) if not gate else (not os.path.exists(gate) and time.time() < end + 30): time.sleep(0.01)\n"
        "print('READ')"
    )
    return {"argv": [sys.executable, "-c", code, str(count), str(wait_s), str(release or "")]}


def _lines(path: Path) -> int:
    return len(path.read_text().splitlines()) if path.exists() else 0


def _request_of(run: Path, tool: str) -> str:
    for event in read_events(run / "events.jsonl"):
        payload = event.get("payload") or {}
        if event.get("phase") == "action_candidate" and payload.get("kind") == f"tool.{tool}":
            return str((payload.get("provenance") or {}).get("request_id"))
    raise AssertionError(f"no request of {tool}")


def _approve_all(run: Path) -> None:
    for path in sorted((run / "tool_invocations" / "prepared").glob("*.json")):
        draft = json.loads(path.read_text())
        if draft["governance"]["requires_approval"]:
            noesis_nb.approve_draft(run, draft["draft_id"], approver_id="ana")


def _two_writes_and_a_read(out: Path):
    async def agent(task, ctx):
        results = await asyncio.gather(
            ctx.tool_async("fs.wa", {"argv": write_argv(out / "written.txt", "a")}, effect="write", risk="high"),
            ctx.tool_async("fs.wb", {"argv": write_argv(out / "written.txt", "b")}, effect="write", risk="high"),
            ctx.tool_async("fs.read", _read(out / "reads.txt", wait_s=0.3)),
        )
        return [r["returncode"] for r in results]

    return agent


def test_solve_unwinding_to_a_pause_records_the_read_it_left_running_and_resume_never_runs_it_again(runs_dir, tmp_path):
    episode_id = noesis_nb.solve("two writes and a read", using=_two_writes_and_a_read(tmp_path), runs_dir=runs_dir)
    run = runs_dir / episode_id
    read = _request_of(run, "fs.read")
    assert not (run / "final.json").exists()  # paused on disk
    assert _unended(run) == []
    assert _tool_steps(run)[read][-2:] == ["tool.execution.started", "tool.execution.succeeded"]
    records = [json.loads(p.read_text()) for p in (run / "tool_invocations" / "executions").glob("*.json")]
    assert [r["status"] for r in records if read in json.dumps(r)] == ["succeeded"]
    assert check_run(run) == []

    _approve_all(run)
    noesis_nb.resume_run(episode_id, runs_dir=runs_dir)

    assert json.loads((run / "final.json").read_text())["outcome"] == "success"
    assert _lines(tmp_path / "reads.txt") == 1  # the read ran once, before the pause: resume did not run it again
    assert _lines(tmp_path / "written.txt") == 2
    assert _tool_steps(run)[read].count("tool.execution.succeeded") == 1
    assert _unended(run) == []
    assert [v for v in check_run(run) if v.rule.startswith(("tool.", "records."))] == []


def test_an_adapter_error_seals_after_the_read_it_left_running_ended(runs_dir, tmp_path):
    def boom() -> None:
        raise ValueError("no such row")

    async def agent(task, ctx):
        await asyncio.gather(
            ctx.tool_async("fs.read", _read(tmp_path / "reads.txt", wait_s=0.3)),
            ctx.tool_async("db.lookup", {"args": [], "kwargs": {}}, fn=boom),
        )

    episode_id = noesis_nb.solve("a read beside a failing tool", using=agent, runs_dir=runs_dir)
    run = runs_dir / episode_id
    assert json.loads((run / "final.json").read_text())["outcome"] == "error"
    assert _unended(run) == []
    assert _tool_steps(run)[_request_of(run, "fs.read")][-1] == "tool.execution.succeeded"
    assert check_run(run) == []


def test_a_cancel_records_the_outcome_of_a_tool_task_the_adapter_never_awaited_as_unknown(runs_dir, tmp_path):
    release = tmp_path / "release"

    async def agent(task, ctx):
        asyncio.ensure_future(ctx.tool_async("fs.read", _read(tmp_path / "reads.txt", release=release)))
        await asyncio.Event().wait()

    async def main() -> Path:
        handle = noesis_nb.start("a forgotten read", using=agent, runs_dir=runs_dir)
        run = Path(handle.run_dir)
        while "tool.execution.started" not in sum(_tool_steps(run).values(), []):
            await asyncio.sleep(0.01)
        handle.cancel()
        await handle
        release.write_text("")  # the read's process ends now
        return run

    run = asyncio.run(main())
    assert json.loads((run / "final.json").read_text())["outcome"] == "cancelled"
    assert _tool_steps(run)[_request_of(run, "fs.read")][-1] == "tool.execution.outcome_unknown"
    assert _unended(run) == []
    assert check_run(run) == []


def test_a_stop_while_a_pause_waits_for_the_read_leaves_the_run_paused_and_the_read_unknown(runs_dir, tmp_path):
    release = tmp_path / "release"

    async def agent(task, ctx):
        await asyncio.gather(
            ctx.tool_async("fs.wa", {"argv": write_argv(tmp_path / "written.txt", "a")}, effect="write", risk="high"),
            ctx.tool_async("fs.read", _read(tmp_path / "reads.txt", release=release)),
        )

    async def main() -> Path:
        episode = create_episode("a write and a slow read", agent, runs_dir=runs_dir, wait_for_human=False)  # as solve
        solving = asyncio.ensure_future(episode.run())
        while not episode.left_running.adapter_ended:  # the adapter unwound to its pause; the read still runs
            await asyncio.sleep(0.01)
        solving.cancel()  # Ctrl-C while the episode waits for the read before leaving its pause
        with pytest.raises(asyncio.CancelledError):
            await solving
        assert episode.status == "paused"
        release.write_text("")
        return Path(episode.recorder.run_dir)

    run = asyncio.run(main())
    assert not (run / "final.json").exists()  # still paused on its draft
    assert _tool_steps(run)[_request_of(run, "fs.read")][-1] == "tool.execution.outcome_unknown"
    assert _unended(run) == []
    assert check_run(run) == []
    _approve_all(run)
    noesis_nb.resume_run(run)
    assert json.loads((run / "final.json").read_text())["outcome"] == "success"
    # the Ctrl-C cut the read off (its process killed before it wrote: an interrupt leaves no tool running), so its
    # outcome stays unknown and the resume does not run it again; the approved write runs once: nothing ran twice
    assert (_lines(tmp_path / "reads.txt"), _lines(tmp_path / "written.txt")) == (0, 1)
    assert check_run(run) == []


def test_batch_episodes_seal_after_the_reads_their_adapters_left_running(runs_dir, tmp_path):
    def boom() -> None:
        raise ValueError("no such row")

    async def beside_a_failure(task, ctx):
        await asyncio.gather(
            ctx.tool_async("fs.read", _read(tmp_path / f"{task}.txt", wait_s=0.3)),
            ctx.tool_async("db.lookup", {"args": [], "kwargs": {}}, fn=boom),
        )

    async def forgotten(task, ctx):  # returns while the read it started runs on
        asyncio.ensure_future(ctx.tool_async("fs.read", _read(tmp_path / f"{task}-f.txt", wait_s=0.3)))
        await asyncio.sleep(0)  # the read starts
        return "done"

    async def main():
        return await noesis_nb.batch(["t1", "t2"], using={"fail": beside_a_failure, "forgot": forgotten}, root=runs_dir)

    handle = asyncio.run(main())
    assert handle.counts() == {"error": 2, "ok": 2}
    for entry in handle.entries:
        assert _unended(entry.run_dir) == [], entry.adapter
        assert _tool_steps(entry.run_dir)[_request_of(entry.run_dir, "fs.read")][-1] == "tool.execution.succeeded"
        assert check_run(entry.run_dir) == []


def test_an_adapter_that_returns_while_draining_leaves_its_read_the_drain_s_time_to_finish(runs_dir, tmp_path):
    async def agent(task, ctx):
        asyncio.ensure_future(ctx.tool_async("fs.read", _read(tmp_path / "reads.txt", wait_s=0.3)))
        while not draining(ctx):  # a graceful stop: it finishes up at once, its read still running
            await asyncio.sleep(0.01)
        return "stopped early"

    async def main():
        handle = noesis_nb.start("a read and a graceful stop", using=agent, runs_dir=runs_dir)
        while "tool.execution.started" not in sum(_tool_steps(Path(handle.run_dir)).values(), []):
            await asyncio.sleep(0.01)
        handle.cancel(drain_s=30)
        await handle
        return handle

    handle = asyncio.run(main())
    run = Path(handle.run_dir)
    assert handle.status == "cancelled"
    assert _tool_steps(run)[_request_of(run, "fs.read")][-1] == "tool.execution.succeeded"
    assert [(c["name"], c["status"]) for c in handle.drain_report.finished] == [("fs.read", "ok")]
    assert _unended(run) == []
    assert check_run(run) == []


def test_a_write_a_policy_approved_left_running_at_a_pause_is_recorded_and_never_run_again(runs_dir, tmp_path):
    def approver(pending):  # the first write is approved by policy, the second asks a person
        return True if pending.tool == "fs.w1" else None

    async def agent(task, ctx):
        await asyncio.gather(
            ctx.tool_async("fs.w1", _read(tmp_path / "w1.txt", wait_s=0.3), effect="write", risk="high"),
            ctx.tool_async("fs.w2", _read(tmp_path / "w2.txt"), effect="write", risk="high"),
        )

    episode_id = noesis_nb.solve("two writes", using=agent, runs_dir=runs_dir, approver=approver)
    run = runs_dir / episode_id
    assert not (run / "final.json").exists()  # paused on the second write
    assert _tool_steps(run)[_request_of(run, "fs.w1")][-1] == "tool.execution.succeeded"
    assert _unended(run) == []
    assert check_run(run) == []
    _approve_all(run)  # the one still waiting
    noesis_nb.resume_run(run)
    assert json.loads((run / "final.json").read_text())["outcome"] == "success"
    assert (_lines(tmp_path / "w1.txt"), _lines(tmp_path / "w2.txt")) == (1, 1)
    assert _unended(run) == []
    assert check_run(run) == []


def test_a_sync_adapter_s_read_on_another_thread_at_a_pause_is_waited_for_not_cut_off(runs_dir, tmp_path):
    def agent(task, ctx):  # its threads' tool calls run on the episode's loop; one pauses, the other still runs
        pool = ThreadPoolExecutor(2)
        calls = [
            pool.submit(ctx.tool, "fs.write", _read(tmp_path / "w.txt"), effect="write", risk="high"),
            pool.submit(ctx.tool, "fs.read", _read(tmp_path / "reads.txt", wait_s=0.3)),
        ]
        done, _ = wait(calls, return_when=FIRST_EXCEPTION)
        pool.shutdown(wait=False)
        for call in done:
            call.result()

    episode_id = noesis_nb.solve("a write and a read on threads", using=agent, runs_dir=runs_dir, approver="ask")
    run = runs_dir / episode_id
    assert not (run / "final.json").exists()
    assert _tool_steps(run)[_request_of(run, "fs.read")][-1] == "tool.execution.succeeded"  # waited for, not cut off
    assert _unended(run) == []
    assert check_run(run) == []
