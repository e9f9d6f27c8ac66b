"""EpisodeView against the real engine, without a kernel: clicks are ``Button.click()``."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import noesis_nb
from noesis_nb.store import is_sealed, read_events, verify_manifest
from noesis_nb.widgets import EpisodeView

SCRIPT = "<script>alert(1)</script>"
IMG = '"><img src=x onerror=alert(1)>'


def names(run_dir: Path) -> list[str]:
    return [str((e.get("payload") or {}).get("event_name")) for e in read_events(run_dir / "events.jsonl")]


def decision_files(run_dir: Path) -> list[dict[str, Any]]:
    return [json.loads(p.read_text()) for p in sorted((run_dir / "tool_invocations" / "approvals").glob("*.json"))]


def test_approve_click_persists_disables_and_the_episode_continues(
    runs_dir: Path, tmp_path: Path, nnb: Any, comm_log: list
) -> None:
    marker = tmp_path / "side_effect.txt"

    async def main() -> None:
        handle = noesis_nb.start("append to a file", using=nnb.make_tool_adapter(nnb.side_effect_argv(marker)), runs_dir=runs_dir)
        view = EpisodeView(handle, approver_id="ana")
        await handle
        assert handle.status == "paused"
        view.flush()
        card = view.approvals.card()
        assert "fs.append" in card.body.value and "write" in card.body.value and "high" in card.body.value
        assert "<dt>argv</dt>" in card.body.value and "<li>-c</li>" in card.body.value  # quotes inside: one argument a line
        assert f">fingerprint</dt><dd>{handle.pending[0].fingerprint}<br>" in card.body.value  # a label by its value
        card.reason.value = "looks fine"
        card.approve_button.click()
        assert card.approve_button.disabled and card.reject_button.disabled
        [decision] = decision_files(handle.run_dir)  # persisted before the episode continued
        assert decision["status"] == "approved" and decision["approver_id"] == "ana" and decision["reason"] == "looks fine"
        assert "approved</b> by ana" in card.body.value and "looks fine" in card.body.value
        await handle.wait()
        await nnb.until(lambda: view.settled == "ok")
        assert handle.status == "ok" and marker.read_text() == "x"
        assert "tool.execution.succeeded" in names(handle.run_dir)
        assert "ok" in view.header.value and view.stop_button.disabled

    asyncio.run(main())


def test_reject_click_records_reason_and_nothing_executes(runs_dir: Path, tmp_path: Path, nnb: Any, comm_log: list) -> None:
    marker = tmp_path / "side_effect.txt"

    async def main() -> None:
        handle = noesis_nb.start(
            "append", using=nnb.make_tool_adapter(nnb.side_effect_argv(marker), catch=True), runs_dir=runs_dir
        )
        view = EpisodeView(handle)
        await handle
        view.flush()
        card = view.approvals.card()
        card.reason.value = "not today"
        card.reject_button.click()
        assert card.approve_button.disabled and card.reject_button.disabled
        await handle.wait()
        [decision] = decision_files(handle.run_dir)
        assert decision["status"] == "rejected" and decision["reason"] == "not today"
        assert not marker.exists() and "tool.execution.succeeded" not in names(handle.run_dir)
        assert "rejected</b> by human" in card.body.value and "not today" in card.body.value

    asyncio.run(main())


def test_double_click_makes_one_decision_and_one_execution(runs_dir: Path, tmp_path: Path, nnb: Any, comm_log: list) -> None:
    marker = tmp_path / "side_effect.txt"

    async def main() -> None:
        handle = noesis_nb.start("append", using=nnb.make_tool_adapter(nnb.side_effect_argv(marker)), runs_dir=runs_dir)
        view = EpisodeView(handle)
        await handle
        view.flush()
        card = view.approvals.card()
        calls: list[str] = []
        approve, reject = handle.approve, handle.reject
        handle.approve = lambda *a, **k: (calls.append("approve"), approve(*a, **k))[1]  # type: ignore[method-assign]
        handle.reject = lambda *a, **k: (calls.append("reject"), reject(*a, **k))[1]  # type: ignore[method-assign]
        card.approve_button.click()
        card.approve_button.click()
        card.reject_button.click()
        card.decide(True)  # even a click that raced past the disabled state changes nothing
        assert calls == ["approve"]  # the card's guard, not only the idempotent gate
        await handle.wait()
        assert len(decision_files(handle.run_dir)) == 1 and decision_files(handle.run_dir)[0]["status"] == "approved"
        assert marker.read_text() == "x"
        assert names(handle.run_dir).count("tool.execution.succeeded") == 1

    asyncio.run(main())


def test_stop_cancels_cleanly_and_seals(runs_dir: Path, nnb: Any, comm_log: list) -> None:
    async def slow(task: str, ctx: Any) -> str:
        ctx.emit("reason", {"text": "thinking"})
        await asyncio.sleep(30)
        return "never"

    async def main() -> None:
        handle = noesis_nb.start("wait", using=slow, runs_dir=runs_dir)
        view = EpisodeView(handle)
        await nnb.until(lambda: any(e["phase"] == "reason" for e in handle.events))
        view.stop_button.click()
        assert view.stop_button.disabled
        await handle.wait()
        assert handle.status == "cancelled"
        assert is_sealed(handle.run_dir) and verify_manifest(handle.run_dir).status == "ok"
        await nnb.until(lambda: "cancelled" in view.header.value)

    asyncio.run(main())


def test_hostile_text_is_escaped_in_live_view_and_snapshot(runs_dir: Path, comm_log: list) -> None:
    async def hostile(task: str, ctx: Any) -> str:
        ctx.emit("reason", {"text": SCRIPT, IMG: SCRIPT, "list": [IMG]}, agent_id=IMG)
        ctx.model_call(IMG, provider=SCRIPT, input_tokens=1, output_tokens=1)
        return SCRIPT + IMG  # model output ends up in terminate/act payloads

    async def main() -> None:
        handle = noesis_nb.start(f"task {SCRIPT} {IMG}", using=hostile, runs_dir=runs_dir)
        view = EpisodeView(handle)
        await handle.wait()
        bundle = view.mimebundle()
        html_sent = [
            data["state"]["value"]
            for t, _, _, data in comm_log
            if t in ("comm_msg", "comm_open") and isinstance((data or {}).get("state", {}).get("value"), str)
        ]
        html_sent += [bundle["text/html"]]
        assert any("&lt;script&gt;" in h for h in html_sent)
        for h in html_sent:
            if h.startswith("<style>"):
                continue
            assert "<script" not in h and "<img" not in h, h[:400]

    asyncio.run(main())


def test_coalescing_bounds_redraws_and_dom_for_10000_events(runs_dir: Path, comm_log: list, nnb: Any) -> None:
    async def chatty(task: str, ctx: Any) -> str:
        for i in range(10_000):
            ctx.emit("reason", {"i": i, "text": "step"})
            if i % 200 == 0:
                await asyncio.sleep(0.002)  # yield so the view's timer can fire mid-run
        return "done"

    async def main() -> None:
        handle = noesis_nb.start("chatty", using=chatty, runs_dir=runs_dir)
        view = EpisodeView(handle)
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        await handle.wait()
        elapsed = loop.time() - t0
        await nnb.until(lambda: view.settled == "ok")
        row_ids = {r.html.model_id for r in view.steps.rows()}
        updates = nnb.value_updates(comm_log, row_ids)
        assert view.redraws <= elapsed * 10 + 5, (view.redraws, elapsed)
        assert updates <= (view.redraws + 1) * len(row_ids)
        assert view.steps.shown <= view.steps.capacity == 30 and len(view.steps.box.children) <= 60  # a bounded DOM
        view.mode.value = "events"  # the raw events: the newest 50, one click away
        assert view.timeline.shown == view.timeline.capacity == 50 and view.steps.box.layout.display == "none"
        assert view.events_seen == len(handle.events) > 10_000
        total_bytes = sum(size for _, _, size, _ in comm_log)
        assert total_bytes < 1_000_000, total_bytes
        assert view.text_summary() == f"EpisodeHandle(status='ok', events={len(handle.events)}, pending=0)"

    asyncio.run(main())


def test_mimebundle_has_widget_text_and_html(runs_dir: Path, comm_log: list) -> None:
    async def quick(task: str, ctx: Any) -> str:
        return "fine"

    async def main() -> None:
        handle = noesis_nb.start("quick", using=quick, runs_dir=runs_dir)
        await handle.wait()
        bundle = handle._repr_mimebundle_()
        assert set(bundle) == {"application/vnd.jupyter.widget-view+json", "text/plain", "text/html"}
        assert bundle["text/plain"] == f"EpisodeHandle(status='ok', events={len(handle.events)}, pending=0)"
        assert "terminate" in bundle["text/html"] and handle.episode_id in bundle["text/html"]
        assert noesis_nb.widgets.view_for(handle) is noesis_nb.widgets.view_for(handle)  # one view per handle
        assert set(handle._repr_mimebundle_(include=["text/plain"])) == {"text/plain"}

    asyncio.run(main())


def test_stop_while_waiting_for_approval_closes_the_card(runs_dir: Path, tmp_path: Path, nnb: Any, comm_log: list) -> None:
    async def main() -> None:
        handle = noesis_nb.start("append", using=nnb.make_tool_adapter(nnb.side_effect_argv(tmp_path / "x")), runs_dir=runs_dir)
        view = EpisodeView(handle)
        await handle
        view.flush()
        card = view.approvals.card()
        view.stop_button.click()
        await handle.wait()
        await nnb.until(lambda: view.settled == "cancelled")
        assert handle.status == "cancelled" and is_sealed(handle.run_dir)
        assert card.approve_button.disabled and card.reject_button.disabled and "no decision" in card.status.value
        card.approve_button.click()  # too late: nothing happens
        assert decision_files(handle.run_dir) == [] and not (tmp_path / "x").exists()
        assert view.text_summary().endswith("pending=0)")

    asyncio.run(main())


class FakeSource:
    """The smallest ``RunSource``: events pushed by the test, from any thread."""

    summary_kind = "EpisodeHandle"
    can_cancel = can_resume = resuming = False

    def __init__(self, loop: asyncio.AbstractEventLoop):
        self.loop, self.events, self.status = loop, [], "running"
        self.episode_id, self.task, self.using, self.started_at, self.ended_at = "ep_fake", "fake", "fake", 0.0, None
        self.pending, self.decisions, self.usage, self.usage_calls = [], [], {}, []
        self.problems: list[str] = []
        self.last_error = self.following = None
        self.run_dir = Path("fake")
        self._subscribers: list[Any] = []

    def subscribe(self, callback: Any) -> Any:
        self._subscribers.append(callback)
        return lambda: self._subscribers.remove(callback)

    def on_change(self, callback: Any) -> Any:
        return lambda: None

    def approve(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    reject = approve

    def cancel(self) -> bool:
        return False

    def resume(self) -> None:
        return None

    def emit(self, i: int) -> None:
        event = {"id": f"e{i}", "phase": "reason", "timestamp": "2025-01-01T00:00:00.000+00:00", "payload": {"i": i}}
        self.events.append(event)
        for callback in self._subscribers:
            callback(event)


def test_10000_events_without_yielding_make_one_redraw(comm_log: list, nnb: Any) -> None:
    """Coalescing counted in comm messages, not time: a burst costs one redraw of the bounded timeline."""

    async def main() -> None:
        source = FakeSource(asyncio.get_running_loop())
        view = EpisodeView(source)
        redraws = view.redraws
        for i in range(10_000):  # no await: the view's timer cannot fire during the burst
            source.emit(i)
        await asyncio.sleep(0.3)
        assert view.redraws - redraws == 1
        rows = {r.html.model_id for r in view.steps.rows()}
        assert nnb.value_updates(comm_log, rows) <= len(rows) == 30  # each kept step drawn once
        assert view.events_seen == 10_000 and view.steps.shown == 30 and view.steps.book.total == 10_000
        assert "&quot;i&quot;:9999" in view.steps.rows()[-1].html.value  # newest last, as a story reads
        assert "9,970 earlier steps are not shown" in view.counts.value

        # from worker threads: every event counted once, still few redraws
        def burst(offset: int) -> None:
            for i in range(offset, offset + 2_500):
                source.emit(i)

        redraws = view.redraws
        await asyncio.gather(*(asyncio.to_thread(burst, 10_000 + k * 2_500) for k in range(4)))
        await asyncio.sleep(0.3)
        assert view.events_seen == 20_000
        assert view.redraws - redraws <= 5

    asyncio.run(main())


def test_source_error_is_shown_then_cleared_but_a_local_message_stays(comm_log: list) -> None:
    async def main() -> None:
        source = FakeSource(asyncio.get_running_loop())
        source.last_error = "resume failed: EpisodeStateError: boom"
        view = EpisodeView(source)
        assert "resume failed" in view.message.value
        source.last_error = None
        view.flush()
        assert view.message.value == ""

        def refuse() -> None:
            raise RuntimeError("nope")

        source.cancel = refuse
        view.stop()
        view.flush()
        assert "could not stop: nope" in view.message.value  # not the source's error: a redraw keeps it

    asyncio.run(main())


def test_close_closes_every_widget_once_with_its_layout_and_style(
    runs_dir: Path, tmp_path: Path, nnb: Any, comm_log: list, monkeypatch: Any
) -> None:
    import ipywidgets
    from ipywidgets.widgets.widget import _instances

    closes: dict[int, int] = {}
    close = ipywidgets.Widget.close

    def counting_close(self: Any) -> None:
        closes[id(self)] = closes.get(id(self), 0) + 1
        close(self)

    async def main() -> None:
        before = set(_instances)
        handle = noesis_nb.start("append", using=nnb.make_tool_adapter(nnb.side_effect_argv(tmp_path / "x")), runs_dir=runs_dir)
        view = noesis_nb.widgets.view_for(handle)  # the handle's one view (``await handle`` uses it too)
        await handle
        view.flush()
        assert view.approvals.cards and set(_instances) - before
        monkeypatch.setattr(ipywidgets.Widget, "close", counting_close)
        view.close()
        assert set(_instances) - before == set()  # no Layout/Style comm left open
        assert max(closes.values()) == 1  # and nothing closed twice
        handle.cancel()
        await handle.wait()

    asyncio.run(main())
