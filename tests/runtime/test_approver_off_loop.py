"""A sync approver may block (a review service asked over blocking HTTP): it is asked on a thread of its own, so the
episode's loop runs on meanwhile. Asked on the loop, the task below that answers it could never run."""

from __future__ import annotations

import asyncio
import contextvars
import sqlite3
import sys
import threading
from pathlib import Path
from typing import Any

import orjson

import noesis_nb

WHO = contextvars.ContextVar("who", default="nobody")


def test_a_blocking_sync_approver_leaves_the_loop_free_and_sees_the_callers_context(tmp_path: Path) -> None:
    asked, answer = threading.Event(), threading.Event()
    seen: list[str] = []

    def reviewer(pending: Any) -> bool:
        seen.append(WHO.get())
        asked.set()
        return answer.wait(5)  # approved only if a task on the loop answered meanwhile

    async def agent(task: str, ctx: Any) -> Any:
        argv = [sys.executable, "-c", "print('written')"]
        return await ctx.tool_async("fs.write", {"argv": argv}, effect="write", risk="high")

    async def main() -> Any:
        async def answering() -> None:
            while not asked.is_set():
                await asyncio.sleep(0.01)
            answer.set()

        WHO.set("the caller")
        handle = noesis_nb.start("review", using=agent, approver=reviewer, runs_dir=tmp_path / "runs")
        helper = asyncio.ensure_future(answering())
        await asyncio.wait_for(handle, 20)
        helper.cancel()
        return handle

    handle = asyncio.run(main())
    assert handle.status == "ok", handle.error
    assert "written" in handle.result()["stdout"]
    assert seen == ["the caller"]


def _add(x: int) -> int:
    return x + 1


def test_calls_of_one_sync_policy_never_overlap_so_its_budget_holds(tmp_path: Path) -> None:
    """Six writes asked at once share a plain policy that approves two: its calls run one at a time (as they did on
    the loop), so exactly two are approved, however the threads are scheduled."""
    inside, most, approved = [0], [0], [0]
    entered = threading.Condition()

    def budget(pending: Any) -> bool:
        with entered:
            inside[0] += 1
            most[0] = max(most[0], inside[0])
            entered.notify_all()
            entered.wait_for(lambda: inside[0] > 1, timeout=0.05)  # gives an overlapping call time to come in
        ok = approved[0] < 2
        if ok:
            approved[0] += 1
        with entered:
            inside[0] -= 1
        return ok

    async def agent(task: str, ctx: Any) -> Any:
        async def write() -> str:
            try:
                await ctx.tool_async("fs.write", {"kwargs": {"x": 1}}, protocol="python", fn=_add, effect="write", risk="high")
            except Exception as exc:
                return type(exc).__name__
            return "ran"

        return await asyncio.gather(*(write() for _ in range(6)))

    async def main() -> Any:
        handle = noesis_nb.start("budget", using=agent, approver=budget, runs_dir=tmp_path / "runs")
        await asyncio.wait_for(handle, 20)
        return handle

    handle = asyncio.run(main())
    assert handle.status == "ok", handle.error
    assert most[0] == 1
    assert sorted(handle.result()).count("ran") == 2
    assert (noesis_nb.tools_df(tmp_path / "runs").status == "succeeded").sum() == 2


def test_a_sync_policy_using_the_notebooks_sqlite_connection_is_told_to_be_async(tmp_path: Path) -> None:
    """A connection made on the notebook's thread refuses a worker thread: the error names the fix, `async def`,
    and the same policy written `async def` runs on the loop and reads it."""
    db = sqlite3.connect(":memory:")
    db.execute("create table allow(tool text)")
    db.execute("insert into allow values ('fs.write')")

    def listed(pending: Any) -> bool:
        return db.execute("select 1 from allow where tool=?", (pending.tool.split("@")[0],)).fetchone() is not None

    async def listed_async(pending: Any) -> bool:
        return listed(pending)

    def agent(task: str, ctx: Any) -> Any:
        return ctx.tool("fs.write", {"kwargs": {"x": 1}}, protocol="python", fn=_add, effect="write", risk="high")

    async def main(policy: Any, runs: Path) -> Any:
        handle = noesis_nb.start("listed", using=agent, approver=policy, runs_dir=runs)
        await asyncio.wait_for(handle, 20)
        return handle

    plain = asyncio.run(main(listed, tmp_path / "plain"))
    assert plain.status == "error"
    assert "same thread" in str(plain.error) and "async def" in str(plain.error)
    written = asyncio.run(main(listed_async, tmp_path / "async"))
    assert written.status == "ok" and written.result() == {"result": 2}


def test_an_input_mapper_using_the_notebooks_sqlite_connection_is_told_to_be_async(tmp_path: Path) -> None:
    db = sqlite3.connect(":memory:")
    db.execute("create table prompt(text text)")
    db.execute("insert into prompt values ('ask: ')")

    def agent(task: str) -> str:
        return task

    agent.__noesis_input_mapper__ = lambda task: db.execute("select text from prompt").fetchone()[0] + task  # type: ignore[attr-defined]

    async def main() -> Any:
        handle = noesis_nb.start("t", using=agent, runs_dir=tmp_path / "runs")
        await asyncio.wait_for(handle, 20)
        return handle

    handle = asyncio.run(main())
    assert handle.status == "error"
    assert "same thread" in str(handle.error) and "async def" in str(handle.error)
    agent.__noesis_input_mapper__ = _async_prompt(db)  # type: ignore[attr-defined]
    handle = asyncio.run(main())
    assert handle.status == "ok" and handle.result() == "ask: t"


def _async_prompt(db: sqlite3.Connection) -> Any:
    async def prompt(task: str) -> str:  # runs on the loop: the notebook's connection reads
        return str(db.execute("select text from prompt").fetchone()[0]) + task

    return prompt


def test_a_sync_policy_running_an_episode_it_is_asked_in_again_re_enters_its_own_call(tmp_path: Path) -> None:
    """A sync approver that, to decide, runs an episode asking the same approver: the nested call is made inside
    the one holding the policy's lock, as an ``RLock`` is re-entered. Before, it waited for that lock forever."""
    asked: list[str] = []

    def inner(task: str, ctx: Any) -> Any:
        return ctx.tool("fs.write", {"kwargs": {"x": 2}}, protocol="python", fn=_add, effect="write", risk="high")

    def reviewer(pending: Any) -> bool:
        asked.append("outer" if not asked else "inner")
        if len(asked) > 1:
            return True
        episode = noesis_nb.solve("second opinion", using=inner, approver=reviewer, runs_dir=tmp_path / "inner")
        return orjson.loads((tmp_path / "inner" / episode / "summary.json").read_bytes())["status"] == "ok"

    def outer(task: str, ctx: Any) -> Any:
        return ctx.tool("fs.write", {"kwargs": {"x": 1}}, protocol="python", fn=_add, effect="write", risk="high")

    outcome: list[Any] = []
    finished = threading.Event()

    def run() -> None:  # on a thread of its own: before the fix it never returned
        try:
            outcome.append(noesis_nb.solve("review", using=outer, approver=reviewer, runs_dir=tmp_path / "outer"))
        finally:
            finished.set()

    threading.Thread(target=run, daemon=True).start()
    assert finished.wait(20), f"the nested approval waited for the policy's own lock (asked: {asked})"
    [episode] = outcome
    assert asked == ["outer", "inner"]
    summary = orjson.loads((tmp_path / "outer" / episode / "summary.json").read_bytes())
    assert summary["status"] == "ok"
    assert (noesis_nb.tools_df(tmp_path / "outer").status == "succeeded").tolist() == [True]
    assert (noesis_nb.tools_df(tmp_path / "inner").status == "succeeded").tolist() == [True]


def test_the_calls_nested_in_one_policy_call_never_overlap_each_other(tmp_path: Path) -> None:
    """A sync approver that runs an episode asking it two drafts at once, and, for one of those, an episode asking it
    again: the two nested calls are made one at a time (before, each skipped the lock, as the one they are nested
    in held it: both ran at once), and the call nested in one of them is made inside it, deeper, as the first was."""
    asked: list[str] = []
    active: set[str] = set()
    overlapped: list[set[str]] = []
    turn = threading.Condition()

    def write(ctx: Any, x: int, name: str = "fs.write") -> Any:
        return ctx.tool_async(name, {"kwargs": {"x": x}}, protocol="python", fn=_add, effect="write", risk="high")

    async def siblings(task: str, ctx: Any) -> str:
        await asyncio.gather(write(ctx, 1, "fs.first"), write(ctx, 2, "fs.second"))
        return "ok"

    async def deep(task: str, ctx: Any) -> str:
        await write(ctx, 3, "fs.deep")
        return "ok"

    def reviewer(pending: Any) -> bool:
        name = str(pending.tool).rsplit(".", 1)[-1].split("@")[0]
        asked.append(name)
        if name == "outer":
            noesis_nb.solve("two at once", using=siblings, approver=reviewer, runs_dir=tmp_path / "siblings")
        elif name in ("first", "second"):
            with turn:
                active.add(name)
                # gives the other one time to come in, were they to overlap
                if turn.wait_for(lambda: len(active) > 1, timeout=0.2):
                    overlapped.append(set(active))
                turn.notify_all()
            try:
                if name == "first":
                    noesis_nb.solve("deeper", using=deep, approver=reviewer, runs_dir=tmp_path / "deep")
            finally:
                with turn:
                    active.discard(name)
        return True

    async def outer(task: str, ctx: Any) -> str:
        await write(ctx, 0, "fs.outer")
        return "ok"

    outcome: list[Any] = []
    finished = threading.Event()

    def run() -> None:
        try:
            outcome.append(noesis_nb.solve("review", using=outer, approver=reviewer, runs_dir=tmp_path / "outer"))
        finally:
            finished.set()

    threading.Thread(target=run, daemon=True).start()
    assert finished.wait(30), f"a nested approval waited forever (asked: {asked})"
    assert overlapped == [], f"calls nested in one call overlapped: {overlapped}"
    assert sorted(asked) == ["deep", "first", "outer", "second"], asked
    assert outcome, "the outer episode raised"
    for root in ("outer", "siblings", "deep"):
        assert set(noesis_nb.tools_df(tmp_path / root).status) == {"succeeded"}, root
