"""A batch's grid once its kernel is gone says what became of each kind of episode it last counted (running ones
lost, queued ones never started, paused ones kept on disk) and names the call that continues the batch and the
command that lists its paused runs, with its own batch id and root. It once said nothing: its Cancel button was
struck through and the header still read ``running``."""

from __future__ import annotations

import asyncio
import concurrent.futures
import re
from pathlib import Path
from typing import Any

import noesis_nb
from noesis_nb.widgets import batch_view
from tests.widgets.staletext import with_kernel, without_kernel


def _adapter(release: asyncio.Event | None) -> Any:
    async def run(task: str, ctx: Any) -> Any:
        if task.startswith("ask"):
            await ctx.tool_async("fs.touch", {"argv": ["true"]}, effect="write", risk="high")
        if task.startswith("slow") and release is not None:
            await release.wait()
        if task.startswith("fail"):
            raise RuntimeError("it failed")
        return task

    return run


async def _until(check: Any, what: str, timeout: float = 30.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not check():
        assert asyncio.get_running_loop().time() < deadline, what
        await asyncio.sleep(0.02)


def test_notice_counts_each_fate_and_names_the_call_that_continues_it(runs_dir: Path, comm_log: list) -> None:
    async def main() -> str:
        release = asyncio.Event()
        tasks = ["quick", "ask first", "slow a", "slow b", "slow c"]
        b = noesis_nb.batch(tasks, using=_adapter(release), concurrency=2, root=runs_dir, batch_id="nightly-7")
        view = batch_view(b)
        try:
            await _until(lambda: b.counts() == {"ok": 1, "paused": 1, "running": 2, "queued": 1}, f"{b.counts()}")
            view.flush()
            assert with_kernel(view.stale.value) == ""  # with its kernel the grid says nothing of the sort
            return without_kernel(view.stale.value)
        finally:
            b.cancel()
            release.set()
            await b
            view.close()

    said = asyncio.run(main())
    assert "This grid has lost its kernel" in said, said
    assert "2 running in this kernel are lost" in said and "1 queued never start" in said, said
    assert "1 paused stay paused on disk" in said and "runs the lost ones again" in said, said
    # the root as a new kernel started in this folder finds it (relative when under it)
    root = re.search(r"batch_id='nightly-7', root='([^']+)'\)", said)
    assert root and (Path.cwd() / root.group(1)).resolve() == runs_dir.resolve(), said
    listed = re.search(r"%noesis inbox --runs-dir (\S+?)\.?$", said)
    assert listed and (Path.cwd() / listed.group(1)).resolve() == runs_dir.resolve(), said


def test_an_ended_batch_has_nothing_left_and_names_rerun_for_its_failures(runs_dir: Path, comm_log: list) -> None:
    async def main() -> tuple[str, str]:
        b = noesis_nb.batch(["done", "fail now"], using=_adapter(None), root=runs_dir, batch_id="b-ended")
        await b
        view = batch_view(b)
        view.flush()
        ended = without_kernel(view.stale.value)
        view.close()
        clean = noesis_nb.batch(["done"], using=_adapter(None), root=runs_dir, batch_id="b-clean")
        await clean
        view = batch_view(clean)
        view.flush()
        try:
            return ended, without_kernel(view.stale.value)
        finally:
            view.close()

    ended, clean = asyncio.run(main())
    assert "nothing is left to run or decide" in ended and "rerun_failed=True" in ended and "1 failed or cancelled" in ended
    assert "are lost" not in ended and "queued" not in ended, ended
    assert "nothing is left to run or decide" in clean and "rerun_failed" not in clean, clean


def test_on_an_executor_it_says_which_workers_go_on(runs_dir: Path, comm_log: list) -> None:
    import threading

    gate = threading.Event()

    def held(task: str, ctx: Any) -> Any:  # runs in the pool's thread, on its own loop
        gate.wait(30)
        return task

    async def main() -> str:
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            b = noesis_nb.batch(["one", "two"], using=held, root=runs_dir, executor=pool, batch_id="on-pool")
            view = batch_view(b)
            try:
                await _until(lambda: b.counts().get("running") == 2, f"{b.counts()}")
                view.flush()
                return without_kernel(view.stale.value)
            finally:
                gate.set()
                await b
                view.close()

    said = asyncio.run(main())
    assert "2 running on its executor (ThreadPoolExecutor)" in said, said
    assert "lost where they ran in the kernel's own threads or processes" in said, said


def test_the_notice_is_rebuilt_and_sent_only_when_a_count_it_shows_changes(
    runs_dir: Path, comm_log: list, nnb: Any, monkeypatch: Any
) -> None:
    """Every redraw rebuilt the notice (its calls resolve folders on disk) though it reads the same while its counts do."""
    import noesis_nb.widgets.batchview as batchview

    builds: list[str] = []
    real = batchview.stale_batch_html

    def counted(handle: Any, counts: Any) -> str:  # the real notice, counted
        builds.append(real(handle, counts))
        return builds[-1]

    monkeypatch.setattr(batchview, "stale_batch_html", counted)

    async def main() -> list[str]:
        gates = {"a": asyncio.Event(), "b": asyncio.Event()}

        async def held(task: str, ctx: Any) -> str:
            await gates[task].wait()
            return task

        b = noesis_nb.batch(["a", "b"], using=held, concurrency=1, root=runs_dir, batch_id="held")
        view = batch_view(b)
        notice = {view.stale.comm.comm_id}
        said = []
        try:
            await _until(lambda: b.counts() == {"running": 1, "queued": 1}, f"{b.counts()}")
            view.flush()
            built, sent, redraws = len(builds), nnb.value_updates(comm_log, notice), view.redraws
            for _ in range(5):  # nothing the notice shows changes: not rebuilt, not sent
                view.flush()
            assert view.redraws == redraws + 5
            assert (len(builds), nnb.value_updates(comm_log, notice)) == (built, sent)
            said.append(without_kernel(view.stale.value))
            for task, counts in (("a", {"ok": 1, "running": 1}), ("b", {"ok": 2})):  # a count it shows changes: sent
                gates[task].set()
                await _until(lambda c=counts: b.counts() == c, f"{b.counts()}")
                view.flush()
                assert nnb.value_updates(comm_log, notice) > sent
                sent = nnb.value_updates(comm_log, notice)
                said.append(without_kernel(view.stale.value))
            await b
            view.flush()
            # every build was sent (each reads differently), none repeated what the notice already said
            assert len(builds) == len(set(builds)) == nnb.value_updates(comm_log, notice), (len(builds), sent)
            return said
        finally:
            for gate in gates.values():
                gate.set()
            await b
            view.close()

    waiting, one_left, ended = asyncio.run(main())
    assert "1 running in this kernel are lost" in waiting and "1 queued never start" in waiting, waiting
    assert "1 running in this kernel are lost" in one_left and "queued" not in one_left, one_left
    assert "nothing is left to run or decide" in ended and "are lost" not in ended, ended
