"""Views that stay true: a view of a run follows decisions, resumes and seals made elsewhere (another
process here), every ``show`` of a run is one view, and a veto pause is decided from its buttons."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from IPython.utils.capture import capture_output

import noesis_nb
import noesis_nb.ns as ns
from noesis_nb.store import is_sealed, read_summary
from noesis_nb.widgets import show

ROOT = Path(__file__).resolve().parents[2]


def paused(runs_dir: Path, marker: Path) -> str:
    async def agent(task: str, ctx: Any) -> Any:
        argv = [sys.executable, "-c", f"open({str(marker)!r}, 'a').write('x')"]
        return await ctx.tool_async("fs.append", {"argv": argv}, effect="write", risk="high")

    return noesis_nb.solve("append", using=agent, runs_dir=runs_dir, approver="ask")


def vetoed(runs_dir: Path) -> tuple[str, Any]:
    ns.set(runs_dir=str(runs_dir), governance_pause_on_veto=True)

    def janitor(task: str) -> str:
        return f"done: {task}"

    return ns.solve("wipe the build cache", using=janitor, governance="enforce"), janitor


def in_another_process(code: str) -> None:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    subprocess.run([sys.executable, "-c", code], check=True, env=env, timeout=60)


def test_a_view_from_disk_follows_what_another_process_decides_and_resumes(runs_dir: Path, tmp_path: Path, nnb: Any) -> None:
    marker = tmp_path / "effect.txt"
    episode = paused(runs_dir, marker)

    async def main() -> None:
        with capture_output():
            view = show(episode, runs_dir=runs_dir)
            again = show(episode, runs_dir=runs_dir)
        assert again is view  # every show of a run in this kernel is one view: its outputs cannot disagree
        card = view.approvals.card()
        assert view.source.status == "paused" and not card.decided
        code = (
            "import noesis_nb\n"
            f"noesis_nb.approve_draft({episode!r}, runs_dir={str(runs_dir)!r}, approver_id='ops', reason='from a script')\n"
            f"noesis_nb.resume_run({episode!r}, runs_dir={str(runs_dir)!r})\n"
        )
        await asyncio.to_thread(in_another_process, code)
        loop = asyncio.get_running_loop()
        started = loop.time()
        await nnb.until(lambda: view.settled == "ok", timeout=5)
        assert loop.time() - started < 2.0  # followed within two seconds
        assert "approved</b> by ops" in card.body.value and "from a script" in card.body.value
        assert card.controls.layout.display == "none" and view.resume_button.layout.display == "none"
        [tool] = [r for r in view.steps.rows() if r.step is not None and r.step.kind == "tool"]
        assert "approved by ops" in tool.html.value and "ok</span>" in tool.html.value
        assert marker.read_text() == "x"
        await asyncio.sleep(0.6)
        assert view.source._watch_task.done()  # sealed: it stopped looking
        view.close()

    asyncio.run(main())


def test_override_from_the_view_then_resume_with_the_adapter(runs_dir: Path, nnb: Any) -> None:
    episode, janitor = vetoed(runs_dir)

    async def main() -> None:
        with capture_output():
            view = show(episode, runs_dir=runs_dir, using=janitor)
        card = view.approvals.veto_card()
        assert card is not None and "governance vetoed this run" in card.body.value and "rules.veto.protected" in card.body.value
        assert [b.description for b in (card.approve_button, card.reject_button)] == ["Override", "Uphold"]
        card.reason.value = "a cache, not prod"
        card.approve_button.click()
        decision = json.loads(next((runs_dir / episode / "checkpoints").glob("*/decision.json")).read_text())
        assert decision["decision"] == "override" and decision["reason"] == "a cache, not prod"  # on disk first
        assert "overridden</b> by human" in card.body.value and card.controls.layout.display == "none"
        view.flush()
        assert view.resume_button.layout.display is None  # decided, and the adapter is at hand
        view.resume_button.click()
        await nnb.until(lambda: view.settled == "ok", timeout=10)
        assert (read_summary(runs_dir / episode) or {}).get("status") == "ok"

    asyncio.run(main())


def test_uphold_from_the_view_ends_the_run_vetoed(runs_dir: Path, nnb: Any) -> None:
    episode, _ = vetoed(runs_dir)

    async def main() -> None:
        with capture_output():
            view = show(episode, runs_dir=runs_dir)  # no adapter needed to uphold
        card = view.approvals.veto_card()
        card.reject_button.click()
        assert "upheld</b> by human" in card.body.value
        view.flush()
        view.resume_button.click()
        await nnb.until(lambda: view.settled == "vetoed", timeout=10)
        assert is_sealed(runs_dir / episode)

    asyncio.run(main())


def test_an_override_without_the_adapter_says_how_to_resume(runs_dir: Path) -> None:
    episode, _ = vetoed(runs_dir)
    with capture_output():
        view = show(episode, runs_dir=runs_dir)
    view.approvals.veto_card().approve_button.click()
    view.flush()
    assert view.resume_button.layout.display == "none"
    assert f"noesis_nb.resume_run(&#x27;{episode}&#x27;, using=&lt;adapter&gt;)" in view.message.value
    view.close()


def test_a_live_veto_pause_is_overridden_from_its_card(runs_dir: Path, nnb: Any) -> None:
    def janitor(task: str) -> str:
        return f"done: {task}"

    async def main() -> None:
        handle = noesis_nb.start(
            "wipe the build cache", using=janitor, runs_dir=runs_dir, governance="enforce", pause_on_veto=True
        )
        view = noesis_nb.widgets.view_for(handle)
        await handle
        assert handle.status == "paused" and handle.paused_on_veto
        view.flush()
        card = view.approvals.veto_card()
        card.approve_button.click()
        await handle.wait()
        await nnb.until(lambda: view.settled == "ok")
        assert handle.result() == "done: wipe the build cache" and "overridden</b> by human" in card.body.value

    asyncio.run(main())


def test_running_time_leaves_out_pauses_and_reads_the_same_live_and_from_disk(runs_dir: Path, tmp_path: Path, nnb: Any) -> None:
    from noesis_nb.runtime.diskrun import DiskRun
    from noesis_nb.widgets import EpisodeView

    async def agent(task: str, ctx: Any) -> Any:
        argv = [sys.executable, "-c", "pass"]
        return await ctx.tool_async("fs.touch", {"argv": argv}, effect="write", risk="high")

    async def main() -> None:
        handle = noesis_nb.start("touch", using=agent, runs_dir=runs_dir)
        live = EpisodeView(handle)
        await handle
        await asyncio.sleep(1.2)  # a person takes their time
        live.flush()
        paused_header = live.header.value
        handle.approve(approver_id="ana")
        await handle.wait()
        await nnb.until(lambda: live.settled == "ok")
        disk = EpisodeView(DiskRun(handle.run_dir))
        for view in (live, disk):
            state = view.state()["header"]
            running, waited = float(state["elapsed"].split()[0]), float(state["waited"].split()[0])
            assert running < 1.0 and waited >= 1.2  # the pause is not running time; it is said apart
        assert live.state()["header"]["elapsed"] == disk.state()["header"]["elapsed"]  # one definition
        assert live.state()["header"]["waited"] == disk.state()["header"]["waited"]
        assert "waiting for people" in paused_header and "waiting for people" in disk.header.value
        disk.close()
        live.close()

    asyncio.run(main())


def test_an_expanded_step_stays_expanded_while_events_arrive(runs_dir: Path, nnb: Any) -> None:
    from noesis_nb.widgets import EpisodeView

    go = asyncio.Event()

    async def agent(task: str, ctx: Any) -> str:
        ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=10, output_tokens=2)
        await go.wait()
        for i in range(60):
            ctx.emit("reason", {"text": f"more {i}"})
            await asyncio.sleep(0)
        return "done"

    async def main() -> None:
        handle = noesis_nb.start("expand", using=agent, runs_dir=runs_dir)
        view = EpisodeView(handle)
        await nnb.until(lambda: any(r.step is not None and r.step.kind == "model" for r in view.steps.rows()))
        [row] = [r for r in view.steps.rows() if r.step is not None and r.step.kind == "model"]
        row.toggle.value = True  # what a click on ▸ does (the state lives in the kernel)
        assert "model.call" in row.html.value and "nnb-body" in row.html.value
        go.set()
        await handle.wait()
        await nnb.until(lambda: view.settled == "ok")
        assert row.toggle.value and "nnb-body" in row.html.value  # still open after 60 more events and the end
        assert [r.step.kind for r in view.steps.rows() if r.toggle.value] == ["model"]  # and nothing else opened
        view.close()

    asyncio.run(main())


def _model_and_thought(task: str, ctx: Any) -> int:
    ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=1200, output_tokens=90)
    ctx.emit("reason", {"text": "original thought"})
    return 1


def _html(view: Any) -> str:
    """Every text the view's widgets hold, as the page shows them (the header, the steps, their cards)."""
    parts, stack = [], [view]
    while stack:
        widget = stack.pop()
        value = getattr(widget, "value", None)
        if isinstance(value, str):
            parts.append(value)
        stack.extend(getattr(widget, "children", ()))
    return "\n".join(parts)


def test_a_log_rewritten_in_place_is_drawn_again_whole(runs_dir: Path) -> None:
    """The second ``show`` of a run whose log was rewritten (the seal's secret sweep does it; so does an edit) read
    the new header but kept the old steps: the view told two stories. It now draws the run again from its events;
    a log only appended to is still taken in as new events."""
    run = runs_dir / noesis_nb.solve("t", using=_model_and_thought, runs_dir=runs_dir)
    with capture_output():
        view = show(run)
        before = view.events_seen
        log = run / "events.jsonl"
        text = log.read_text().replace('"input_tokens":1200', '"input_tokens":7777').replace("original", "REWRITTEN")
        log.write_text(text)
        os.utime(log, ns=(log.stat().st_mtime_ns + 10**9,) * 2)
        again = show(run)
    html = _html(again)
    assert again is view
    assert "REWRITTEN thought" in html and "original thought" not in html, html
    assert "1,200 in" not in html and "7,777" in html
    assert again.events_seen == before  # drawn again, not added to

    with capture_output():
        with log.open("a") as out:
            out.write(text.splitlines()[-1].replace('"id":"', '"id":"x') + "\n")  # one more line: an append
        os.utime(log, ns=(log.stat().st_mtime_ns + 10**9,) * 2)
        show(run)
    assert view.events_seen == before + 1
