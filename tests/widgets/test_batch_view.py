"""The batch's progress grid against the real batch runtime, without a kernel: clicks are ``Button.click()``."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import noesis_nb
from noesis_nb.scripted import ScriptedModel
from noesis_nb.widgets import BatchView, EpisodeView, batch_view
from noesis_nb.widgets.meter import CostMeter
from noesis_nb.widgets.money import money


def agent(marker_dir: Path) -> Any:
    async def run(task: str, ctx: Any) -> Any:
        ScriptedModel(["Plan.", "Done."], latency_ms=0).complete(task, ctx)
        if "deploy" in task:  # these ask for a write tool: a person decides
            name = task.split()[-1]
            argv = [sys.executable, "-c", f"open({str(marker_dir / name)!r}, 'a').write('x')"]
            await ctx.tool_async("fs.append", {"argv": argv}, effect="write", risk="high")
        return {"answer": task}

    return run


def decided(root: Path) -> list[str]:
    return [json.loads(p.read_text())["status"] for p in sorted(root.glob("*/tool_invocations/approvals/*.json"))]


def test_grid_counts_rows_and_the_inbox_decides_the_batchs_drafts(
    runs_dir: Path, tmp_path: Path, nnb: Any, comm_log: list
) -> None:
    tasks = [f"check <i>{i}</i>" for i in range(5)] + ["deploy d1", "deploy d2"]

    async def main() -> None:
        outsider = noesis_nb.start("deploy outsider", using=agent(tmp_path), runs_dir=runs_dir)  # same root, not in the batch
        b = noesis_nb.batch(tasks, using={"a": agent(tmp_path), "b": agent(tmp_path)}, concurrency=4, root=runs_dir)
        view = batch_view(b, rows=5)
        assert batch_view(b) is view  # one grid per batch
        await b
        await outsider
        view.flush()
        view.inbox.refresh()
        assert b.counts() == {"ok": 10, "paused": 4}
        assert "paused 4" in view.header.value and "ok 10" in view.header.value and "14 episodes" in view.header.value
        assert "tokens" in view.header.value and "throughput" in view.header.value
        shown = [s for s in view._slots if s.entry is not None]
        assert len(shown) == 5 and [s.entry.status for s in shown[:4]] == ["paused"] * 4  # who needs a person first
        assert "9 more episodes not shown" in view.more.value
        assert all("&lt;i&gt;" in s.line.value for s in shown[4:])  # task text escaped
        # the embedded inbox holds the batch's four drafts, not the outsider's
        assert {i.episode_id for i in view.inbox.pending} == {e.episode_id for e in b.entries if e.status == "paused"}
        assert outsider.episode_id not in {i.episode_id for i in view.inbox.pending}
        for row in list(view.inbox.rows.values())[:2]:
            row.check.value = True
        view.inbox.approve_selected.click()
        assert view.inbox.question.value.startswith("<b>Approve 2 drafts?</b>") and decided(runs_dir) == []
        view.inbox.confirm_button.click()
        assert decided(runs_dir) == ["approved", "approved"]  # on disk before anything continues
        view.inbox.reject("all", reason="not today")
        await b.wait()  # the decisions continued the live episodes: nothing to resume by hand
        await nnb.until(lambda: "ok 12" in view.header.value, timeout=5)
        assert b.counts() == {"ok": 12, "vetoed": 2}  # the adapter lets ToolRejected end the rejected ones: vetoed
        assert sorted(decided(runs_dir)) == ["approved", "approved", "rejected", "rejected"]
        assert not view.inbox.resume_box.children
        CostMeter.wait()
        view.flush()
        tokens = sum(e.usage["input_tokens"] for e in b.entries)  # both adapters' episodes of a task counted apart
        assert f"tokens {tokens:,} in" in view.header.value and len(view.figures.costs) == 14
        costs = [CostMeter.price_of(call) for e in b.entries for call in e.handle.usage_calls]
        cost = sum(c for c in costs if c is not None and c == c)  # NaN: unpriced
        assert f"cost {money(cost)}" in view.header.value  # priced like the episode view's header
        html = view.mimebundle()["text/html"]  # the static snapshot (a cell that displayed the grid repeats only its text line)
        assert "noesis-nb-batch" in html and "rejected</b> by human" in html and "<i>" not in html
        outsider.cancel()
        view.close()

    asyncio.run(main())


def test_a_row_opens_that_episodes_own_view(runs_dir: Path, tmp_path: Path, comm_log: list) -> None:
    async def main() -> None:
        b = noesis_nb.batch(["one", "two"], using=agent(tmp_path), concurrency=2, root=runs_dir)
        view = BatchView(b, rows=3)
        view.open_episode(None)
        assert "not started" in view.message.value
        await b.wait()
        view.flush()
        slot = next(s for s in view._slots if s.entry is not None and s.entry.task == "two")
        assert slot.entry.episode_id in slot.button.tooltip
        opened = view.open_episode(slot.entry)
        assert isinstance(opened, EpisodeView) and opened.source.episode_id == slot.entry.episode_id
        view.close()

    asyncio.run(main())


def test_an_opener_is_named_after_its_episode_once_it_starts(runs_dir: Path, comm_log: list) -> None:
    """The ▸'s tooltip is its only name: a slot drawn while its episode was queued is renamed when it starts."""

    async def main() -> None:
        gate = asyncio.Event()

        async def slow(task: str, ctx: Any) -> str:
            await gate.wait()
            return "ok"

        b = noesis_nb.batch(["one", "two", "three"], using=slow, concurrency=1, root=runs_dir)
        await asyncio.sleep(0.2)
        view = BatchView(b, rows=3)
        assert any("not started" in s.button.tooltip for s in view._slots if s.entry is not None)
        gate.set()
        await b.wait()
        view.flush()
        shown = [s for s in view._slots if s.entry is not None]
        assert len(shown) == 3 and all(s.entry.episode_id and s.entry.episode_id in s.button.tooltip for s in shown)
        renamed: list[Any] = []
        for s in shown:
            s.button.observe(renamed.append, "tooltip")
        view.flush()
        assert renamed == []  # an unchanged name is not sent again
        view.close()

    asyncio.run(main())


def test_a_large_batch_redraws_a_bounded_grid_and_sends_only_changes(runs_dir: Path, comm_log: list, nnb: Any) -> None:
    async def quick(task: str, ctx: Any) -> Any:
        ScriptedModel(["ok"], latency_ms=0).complete(task, ctx)
        return task

    async def main() -> None:
        loop = asyncio.get_running_loop()
        b = noesis_nb.batch([f"t{i}" for i in range(300)], using=quick, concurrency=32, root=runs_dir)
        view = BatchView(b, rows=20)
        started = loop.time()
        await b.wait()
        took = loop.time() - started
        await asyncio.sleep(0.25)
        view.flush()
        assert b.counts() == {"ok": 300} and "ok 300" in view.header.value
        assert view.redraws <= took * 10 + 5  # coalesced: at most 10 a second
        assert len(view._slots) == 20 and "280 more" in view.more.value  # bounded DOM
        before = len(comm_log)
        view.flush()  # nothing changed: nothing sent
        assert nnb.value_updates(comm_log[before:]) == 0
        view.close()

    asyncio.run(main())


def test_cancel_in_the_grid_stops_the_batch(runs_dir: Path, nnb: Any, comm_log: list) -> None:
    async def slow(task: str, ctx: Any) -> Any:
        await asyncio.sleep(30)
        return task

    async def main() -> None:
        b = noesis_nb.batch([f"t{i}" for i in range(4)], using=slow, concurrency=2, root=runs_dir)
        view = BatchView(b)
        await nnb.until(lambda: b.counts().get("running") == 2)
        view.stop_button.click()
        await asyncio.wait_for(b.wait(), 10)
        assert b.counts() == {"cancelled": 2, "not_started": 2}  # running ones ended cancelled, queued never started
        await nnb.until(lambda: "cancelled 2" in view.header.value, timeout=3)
        assert view.stop_button.layout.display == "none"
        await asyncio.sleep(0)
        assert view.inbox._task is not None and view.inbox._task.done()  # an ended batch's inbox stops looking
        view.close()

    asyncio.run(main())
