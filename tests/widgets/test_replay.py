"""Replay: the view at event count k is what the live view showed after k events; Noēsis' own runs replay too."""

from __future__ import annotations

import asyncio
import re
import sys
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.errors import InvalidOptionError
from noesis_nb.scripted import ScriptedModel
from noesis_nb.widgets import EpisodeView
from noesis_nb.widgets.meter import CostMeter
from noesis_nb.widgets.replaycompare import _delta
from noesis_nb.widgets.replayview import ReplayView
from noesis_nb.widgets.stepview import summary_html

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SMOKE_RUN = FIXTURES / "noesis-smoke-run" / "ep_01K9RBBMXXRSFWR49SXFGF4SPR"
ADR008_RUN = FIXTURES / "noesis-adr008-allow-run" / "ep_adr008_allow"


def rendered(view: EpisodeView) -> tuple[Any, ...]:
    """What a person sees: header (less the running time, which a live view reads from the wall clock), cards, steps."""
    view.flush()
    state = view.state()
    header = {k: v for k, v in state["header"].items() if k not in ("elapsed", "waited")}
    steps = [summary_html(step, state["facts"]) for step in state["steps"]]
    rows = [row.html.value for row in view.steps.rows()]  # what the page holds: the rows it was sent
    shown = len(view.steps.box.children)
    cards = [p.draft_id for p in state["pending"]]
    return header, state["counts"], state["flags"], state["total"], cards, steps, rows, shown


def test_replay_states_equal_the_live_views_states_at_the_same_event_counts(runs_dir: Path, comm_log: list) -> None:
    CostMeter.ready()
    CostMeter.wait()  # both sides price with the loaded table
    seen: list[tuple[int, tuple[Any, ...]]] = []
    holder: dict[str, Any] = {}

    def snap() -> None:
        seen.append((len(holder["handle"].events), rendered(holder["view"])))

    async def agent(task: str, ctx: Any) -> str:
        llm = ScriptedModel(["Plan: list, then write.", "Done."])
        snap()
        llm.complete("plan", ctx)
        ctx.emit("reason", {"text": "a <b>bold</b> plan"})
        snap()
        await ctx.tool_async("fs.list", {"argv": [sys.executable, "-c", "print('a b')"]})
        snap()
        await ctx.tool_async(
            "fs.write", {"argv": [sys.executable, "-c", "print('w')"]}, effect="write", risk="high"
        )  # approved by the policy
        await ctx.next_steer_async(timeout=5)
        snap()
        llm.complete("finish", ctx)
        snap()
        return "ok"

    async def main() -> Any:
        handle = noesis_nb.start("replay me", using=agent, runs_dir=runs_dir, approver="auto")
        holder.update(handle=handle, view=EpisodeView(handle))
        while not seen or seen[-1][0] < 10:
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.05)
        handle.steer("keep going")
        await handle.wait()
        seen.append((len(handle.events), rendered(holder["view"])))
        return handle

    handle = asyncio.run(main())
    assert handle.status == "ok" and len(seen) == 6
    assert len({len(state[5]) for _, state in seen}) >= 4  # the moments differ: more steps each time
    replay = ReplayView(handle.run_dir)
    assert replay.k == replay.total == len(handle.events)
    for k, live in [*seen[::-1], *seen]:  # backwards too: a moment never keeps rows of a later one
        replay.seek(k)
        assert rendered(replay.view) == live, f"after {k} events"
    replay.seek(seen[2][0])
    assert replay.view.source.status == "running" and "ok" not in replay.view.header.value.split("nnb-badge")[1][:40]
    assert "a &lt;b&gt;bold&lt;/b&gt; plan" in replay.view.snapshot_html()  # escaped as live
    bundle = replay._repr_mimebundle_()
    assert {"text/plain", "text/html", "application/vnd.jupyter.widget-view+json"} <= set(bundle)


@pytest.mark.parametrize("run_dir", [SMOKE_RUN, ADR008_RUN], ids=["smoke", "adr008"])
def test_runs_noesis_wrote_replay_from_start_to_end(run_dir: Path, comm_log: list) -> None:
    replay = ReplayView(run_dir)
    assert replay.total > 5 and replay.view.source.status == "ok"
    final = replay.view.snapshot_html()
    assert ">ok<" in final
    statuses = []
    for k in range(replay.total + 1):
        replay.seek(k)
        statuses.append(replay.view.source.status)
        assert replay.view.events_seen == k
    assert statuses[0] == "running" and statuses[-1] == "ok"
    replay.seek(3)
    assert ">running<" in replay.view.snapshot_html() and "event 3 of" in replay.clock.value
    for bad in ("3", 2.7, True, None):  # refused by name, never rounded or read as text
        with pytest.raises(InvalidOptionError, match=r"seek\(.*\): pass a whole number"):
            replay.seek(bad)
    assert "event 3 of" in replay.clock.value


def test_play_moves_through_the_run_in_its_own_time_and_pauses(runs_dir: Path, comm_log: list) -> None:
    replay = ReplayView(ADR008_RUN)
    with pytest.raises(noesis_nb.errors.InvalidOptionError, match="speed='2x'"):
        replay.play("2x")

    async def main() -> None:
        replay.seek(0)
        await replay.play("max")
        assert replay.k == replay.total and not replay.play_button.value
        replay.seek(0)
        replay.speed.value = "1×"
        replay.play_button.value = True  # what a click on Play does
        await asyncio.sleep(0.05)
        replay.play_button.value = False
        k = replay.k
        await asyncio.sleep(0.05)
        assert replay.k == k < replay.total

    asyncio.run(main())


def test_two_runs_replay_side_by_side_aligned_by_step_with_differences_marked(runs_dir: Path, comm_log: list) -> None:
    async def with_tool(task: str, ctx: Any) -> str:
        ScriptedModel(["thinking"]).complete(task, ctx)
        await ctx.tool_async("fs.list", {"argv": [sys.executable, "-c", "print('a')"]})
        return "ok"

    async def without(task: str, ctx: Any) -> str:
        ScriptedModel(["thinking"]).complete(task, ctx)
        return "ok"

    async def main() -> tuple[str, str]:
        a = noesis_nb.start("<i>a</i>", using=with_tool, runs_dir=runs_dir)
        b = noesis_nb.start("b", using=without, runs_dir=runs_dir)
        await a.wait()
        await b.wait()
        return a.episode_id, b.episode_id

    a, b = asyncio.run(main())
    pair = noesis_nb.replay(a, compare=b, runs_dir=runs_dir)
    assert isinstance(pair, noesis_nb.widgets.ReplayCompare)
    only_a = [s for s in pair.differing if s.startswith("tool:list")]
    assert only_a, pair.table
    row = list(pair.table["step"]).index(only_a[0])
    pair.seek_step(row + 1)
    assert "only in A" in pair.steps.value and 'class="nnb-now"' in pair.steps.value
    model = list(pair.table["step"]).index("model:gpt-4o-mini #1")
    pair.seek_step(model + 1)
    # each side shows its own run through that step: its model call, not yet its end
    assert pair.left.view.source.status == "running" and pair.right.view.source.status == "running"
    assert pair.left.view.source.usage["model_calls"] == 1 and pair.right.view.source.usage["model_calls"] == 1
    pair.seek_step(len(pair.table))
    assert pair.left.view.source.status == pair.right.view.source.status == "ok"
    assert pair.right.k == pair.right.total and pair.left.k == pair.left.total


def test_the_two_noesis_fixtures_compare_while_replaying(comm_log: list) -> None:
    pair = noesis_nb.replay(SMOKE_RUN, compare=ADR008_RUN)
    assert "learn #1" in pair.differing and "governance #1" in pair.differing  # the newer format adds governance
    pair.seek_step(0)
    assert pair.left.k == pair.right.k == 0


def test_a_comparisons_differences_read_in_the_units_and_decimals_of_what_they_compare(comm_log: list) -> None:
    """A Δ beside "0.00 s" reads "0.00 s" or "+0.12 s", never a bare "0"; a cost Δ is written as every view writes a
    cost (``money``: "$" first, as many decimals as its size needs), with its sign."""
    pair = noesis_nb.replay(SMOKE_RUN, compare=SMOKE_RUN)  # a run against itself: every Δ is zero
    cells = [re.findall(r"<td[^>]*>(.*?)</td>", row) for row in pair._rows_html(len(pair.table)).split("<tr")[2:]]
    assert cells, pair.table
    tag = re.compile(r"<[^>]+>")
    for cells_of_row in cells:
        seconds, cost = tag.sub("", cells_of_row[3]), tag.sub("", cells_of_row[4])
        assert seconds in ("—", "0.00 s"), cells_of_row
        assert cost in ("—", "$0.0000"), cells_of_row
    assert re.fullmatch(r"(—|[+−-]?\d+\.\d\d s)", tag.sub("", _delta(0.1234, " s")))
    assert tag.sub("", _delta(0.1234, " s")) == "+0.12 s" and tag.sub("", _delta(-0.001, " s")) == "0.00 s"
    assert tag.sub("", _delta(0.0000123, "", money=True)) == "+$0.000012"
    assert tag.sub("", _delta(-0.0312, "", money=True)) == "-$0.031"
    assert tag.sub("", _delta(0.0, "", money=True)) == "$0.0000"


def test_a_moment_paused_for_approval_shows_its_card_without_buttons(runs_dir: Path, comm_log: list) -> None:
    async def writer(task: str, ctx: Any) -> str:
        await ctx.tool_async("fs.write", {"argv": [sys.executable, "-c", "print('w')"]}, effect="write", risk="high")
        return "written"

    async def main() -> Any:
        handle = noesis_nb.start("write", using=writer, runs_dir=runs_dir)
        await handle  # paused for a person
        handle.approve(approver_id="ana")
        await handle.wait()
        return handle

    handle = asyncio.run(main())
    replay = ReplayView(handle.run_dir)
    names = [e.get("event_type") or e["payload"].get("event_name") for e in replay.run.events]
    replay.seek(names.index("run.checkpoint") + 1)
    assert replay.view.source.status == "paused" and len(replay.view.source.pending) == 1
    [card] = replay.view.approvals.cards.values()
    assert card.controls.layout.display == "none" and "a replay" in card.status.value
    assert "waiting for approval" in replay.view.snapshot_html()
    replay.seek(names.index("tool.approved") + 1)
    assert replay.view.source.status == "running" and "approved by ana" in replay.view.snapshot_html()
