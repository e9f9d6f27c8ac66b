"""The view's Send box and Stop-after-in-flight button, the steps they leave in the tree, and the two magics."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from IPython.core.error import UsageError

import noesis_nb
from noesis_nb import DiskRun
from noesis_nb.store import read_events
from noesis_nb.widgets import EpisodeView


def _steps_html(view: EpisodeView) -> str:
    view.flush()
    return view.snapshot_html()


def test_send_steers_the_agent_and_the_step_tree_shows_sent_then_heard(listening: Any, comm_log: list) -> None:
    async def main() -> None:
        run = await listening()
        view = run.view
        assert view.steering.box.layout.display is None  # shown while running
        view.steering.text.value = "use <b>staging</b>"
        view.steering.send_button.click()
        assert view.steering.text.value == ""
        html = _steps_html(view)
        assert "use &lt;b&gt;staging&lt;/b&gt;" in html and "<b>staging</b>" not in html  # escaped
        assert "not heard yet" in html and "from ana" in html
        assert await run.finish() == "use <b>staging</b>"
        html = _steps_html(view)
        assert "heard after" in html and "not heard yet" not in html
        assert view.steering.box.layout.display == "none"  # hidden once it ended
        view.steering.text.value = "too late"
        view.steering.send_button.click()
        assert "is ok, not running" in view.message.value

    asyncio.run(main())


def test_stop_after_in_flight_drains_then_cancels_and_the_tree_shows_the_report(runs_dir: Path, nnb: Any, comm_log: list) -> None:
    async def agent(task: str, ctx: Any) -> str:
        ctx.emit("reason", {"text": "working"})
        await asyncio.sleep(30)
        return "never"

    async def main() -> None:
        handle = noesis_nb.start("drain", using=agent, runs_dir=runs_dir)
        view = EpisodeView(handle)
        await nnb.until(lambda: any(e["phase"] == "reason" for e in handle.events))
        view.flush()
        assert view.drain_button.layout.display is None and view.stop_button.description == "Stop"
        view.drain_button.click()
        await handle.wait()
        assert handle.status == "cancelled" and handle.drain_report.reason == "settled"  # nothing was in flight
        html = _steps_html(view)
        assert "stopped (settled)" in html and "0 cut off" in html
        assert view.drain_button.layout.display == "none" and view.stop_button.layout.display == "none"

    asyncio.run(main())


def test_a_run_from_disk_has_no_steer_box_nor_drain_button(runs_dir: Path, comm_log: list) -> None:
    async def agent(task: str, ctx: Any) -> str:
        return "ok"

    async def main() -> Path:
        handle = noesis_nb.start("done", using=agent, runs_dir=runs_dir)
        await handle.wait()
        return handle.run_dir

    view = EpisodeView(DiskRun(asyncio.run(main())))
    assert view.steering.box.layout.display == "none" and view.drain_button.layout.display == "none"


def test_steer_and_stop_magics_reach_a_running_episode(ip: Any, runs_dir: Path, comm_log: list) -> None:
    async def agent(task: str, ctx: Any) -> str:
        got = await ctx.next_steer_async(timeout=10)
        ctx.emit("reason", {"text": f"heard {got}"})
        await asyncio.sleep(30)
        return "never"

    async def main() -> Any:
        handle = noesis_nb.start("magic", using=agent, runs_dir=runs_dir)
        await asyncio.sleep(0.02)
        ip.run_line_magic("noesis", f'steer {handle.episode_id} "use staging" --sender user:ana')
        await asyncio.sleep(0.05)
        ip.run_line_magic("noesis", f"stop {handle.episode_id} --drain 2")
        await handle.wait()
        return handle

    handle = asyncio.run(main())
    assert handle.status == "cancelled" and handle.drain_report is not None
    events = read_events(handle.run_dir / "events.jsonl")
    assert any(e["phase"] == "reason" and e["payload"]["text"] == "heard use staging" for e in events)
    sent = next(e for e in events if e["phase"] == "steer")
    assert sent["payload"]["sender"] == "user:ana"
    with pytest.raises(UsageError, match="no episode 'ep_NOPE' is running"):
        ip.run_line_magic("noesis", 'steer ep_NOPE "hello"')
