"""One rule for which lines are a pause for a person (``waits.pause_kind``): ``tools_df.wait_s``, ``runs_df.waiting_s``
and the view's tool steps read the same lines. tools_df took its pauses from the ``event_name`` column as if every
such line were the episode's own, so an adapter's note named ``run.checkpoint`` then ``run.resume`` while a draft
waited closed the person's pause early (wait_s 0.12 where waiting_s was 1.02 and the step said 1.0 s), and pause
lines carrying only ``payload.kind`` were not seen at all (wait_s fell back to ask-to-decision: 1.25 where
waiting_s was 0.62).

One live run holds every shape at once (a draft an approver policy decided, two drafts asked for at once that a
person decides one after the other, notes of the adapter's named like runtime events while they wait); each case
is that run with its pause lines written another way that means the same, so every figure must stay the same."""

from __future__ import annotations

import asyncio
import html
import json
import re
import shutil
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import noesis_nb
from noesis_nb.frames.cache import clear_cache
from noesis_nb.store.vocab import POLICY_PAUSE_KEY
from noesis_nb.widgets.state import format_seconds

FIRST_S, SECOND_S = 0.3, 0.5  # how long a person takes over each of the two drafts, one after the other
PAUSES = ("run.interrupt", "run.checkpoint", "run.resume")
PEOPLE = ("fs.write_a", "fs.write_b")


def by_policy(pending: Any) -> Any:
    return (True, "policy ok") if "auto" in str(pending.tool) else None


def _shaped_adapter(paused: threading.Event, noted: threading.Event) -> Callable[..., Any]:
    async def adapter(task: str, ctx: Any) -> str:
        def write(name: str) -> Any:
            return ctx.tool_async(name, {"argv": [sys.executable, "-c", "pass"]}, effect="write", risk="high")

        async def notes() -> None:  # an adapter's own notes, named like the episode's pause lines, while a draft waits
            await asyncio.to_thread(paused.wait, 10)
            ctx.emit("note", {"event_name": "run.checkpoint", "text": "my own checkpoint"})
            ctx.emit("note", {"event_name": "run.resume", "text": "my own resume"})
            ctx.emit("x-progress", {"event_name": "run.interrupt", "kind": "run.interrupt"})
            noted.set()

        await write("fs.auto_one")
        await asyncio.gather(write("fs.write_a"), write("fs.write_b"), notes())
        return "ok"

    return adapter


@pytest.fixture(scope="module")
def base_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    runs = tmp_path_factory.mktemp("runs")
    paused, noted = threading.Event(), threading.Event()

    async def main() -> Any:
        handle = noesis_nb.start("shapes", using=_shaped_adapter(paused, noted), runs_dir=runs, approver=by_policy)
        for n, took in enumerate((FIRST_S, SECOND_S)):
            await handle  # paused on a draft
            if n == 0:
                paused.set()
                assert await asyncio.to_thread(noted.wait, 10)
            await asyncio.sleep(took)  # the person's time being measured, not a synchronisation
            handle.approve(handle.pending[0].draft_id, approver_id="ana")
        await handle.wait()
        return handle

    return Path(asyncio.run(main()).run_dir)


def _as_written(event: dict[str, Any]) -> None:
    return None


def _kind_only(event: dict[str, Any]) -> None:
    """An older or crafted line: the pause named only by ``payload.kind``."""
    if event.get("phase") == "runtime" and event.get("event_type") in PAUSES:
        event["payload"]["kind"] = event.pop("event_type")


def _named_in_payload(event: dict[str, Any]) -> None:
    """A crafted line naming its pause as ``events_df.event_name`` shows it: ``payload.event_name``, no kind."""
    if event.get("phase") == "runtime" and event.get("event_type") in PAUSES:
        event["payload"]["event_name"] = event.pop("event_type")
        event["payload"].pop("kind", None)


def _notes_named_by_type(event: dict[str, Any]) -> None:
    """The adapter's notes also carrying ``event_type`` and ``payload.kind`` of a pause: still not the episode's."""
    if event.get("phase") != "runtime" and event.get("payload", {}).get("event_name") in PAUSES:
        event["event_type"] = event["payload"]["kind"] = event["payload"]["event_name"]


def _spans(lines: list[dict[str, Any]]) -> list[tuple[float, float]]:
    """Each pause for a person as the README defines it, from the run as written: the episode's own ``run.interrupt``
    or ``run.checkpoint`` (none an approver policy decided) to the next ``run.resume``."""
    out, since = [], None
    for e in lines:
        at = pd.Timestamp(e["timestamp"]).timestamp()
        if e.get("phase") != "runtime" or POLICY_PAUSE_KEY in e.get("payload", {}):
            continue
        if e.get("event_type") in PAUSES[:2] and since is None:
            since = at
        elif e.get("event_type") == "run.resume" and since is not None:
            out.append((since, at))
            since = None
    return out


def _tool_lines(page: str) -> dict[str, str]:
    page = re.sub(r"<style.*?</style>", " ", page, flags=re.S)
    lines = [
        html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", m)))
        for m in re.findall(r'class="nnb-sum">(.*?)</summary>', page, flags=re.S)
    ]
    return {name: next(t for t in lines if f" tool {name} " in t) for name in ("fs.auto_one", *PEOPLE)}


@pytest.mark.parametrize("rewrite", [_as_written, _kind_only, _named_in_payload, _notes_named_by_type])
def test_every_reader_takes_the_same_pause_lines(
    base_run: Path, tmp_path: Path, comm_log: list, rewrite: Callable[[dict[str, Any]], None]
) -> None:
    lines = [json.loads(line) for line in (base_run / "events.jsonl").read_text().splitlines()]
    assert sum(e.get("phase") == "note" and e["payload"].get("event_name") == "run.resume" for e in lines) == 1
    spans = _spans(lines)
    waiting = sum(end - start for start, end in spans)
    assert waiting >= FIRST_S + SECOND_S - 0.1, spans  # the person's two turns
    run = tmp_path / "runs" / base_run.name
    shutil.copytree(base_run, run)
    for name in ("final.json", "manifest.json"):  # rewritten lines: the seal would (rightly) say the log changed
        (run / name).unlink(missing_ok=True)
    for event in lines:
        rewrite(event)
    (run / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in lines))
    clear_cache()

    waiting_s = float(noesis_nb.runs_df(run.parent).waiting_s.iloc[0])
    assert waiting_s == pytest.approx(waiting, abs=1e-3)
    tools = noesis_nb.tools_df(run.parent).set_index("tool")
    assert pd.isna(tools.loc["fs.auto_one", "wait_s"])  # a policy decided it: nobody waited
    people = tools.loc[list(PEOPLE), "wait_s"].astype(float)
    assert sorted(people) == pytest.approx(sorted(end - start for start, end in spans), abs=1e-3), (people, spans)
    assert people.sum() == pytest.approx(waiting_s, abs=1e-3)
    steps = _tool_lines(noesis_nb.show(run).snapshot_html())
    assert "waited" not in steps["fs.auto_one"], steps
    for tool, wait in people.items():
        assert f"(waited {format_seconds(wait)})" in steps[str(tool)], (tool, wait, steps)


def _utc(at: Any) -> pd.Timestamp:
    stamp = pd.Timestamp(at)
    return stamp.tz_convert(None) if stamp.tzinfo is not None else stamp


def _flagged_rows(page: str) -> list[tuple[str, str]]:
    """(phase, name) of each raw line the view marks as a pause (its rows inside the steps, ``nnb-f-pause``)."""
    rows = re.findall(r'<details class="nnb-r nnb-f-pause"><summary>(.*?)</summary>', page, flags=re.S)
    said = [html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", row))).split() for row in rows]
    return [(words[1], words[3]) for words in said]


@pytest.mark.parametrize("rewrite", [_as_written, _kind_only, _notes_named_by_type])
def test_the_view_badges_the_timeline_and_the_frames_mark_the_same_pause_lines(
    base_run: Path, tmp_path: Path, comm_log: list, rewrite: Callable[[dict[str, Any]], None]
) -> None:
    """The view's pause badge and the timeline's pause marks picked lines by their own rule: by name in any phase
    (the badge also any line whose payload's status said ``paused``), so an adapter's note named ``run.checkpoint``
    (or ``run.interrupt``) was marked a pause, and a pause named only by ``payload.kind`` was marked by neither (its
    step no pause). Both now read ``waits.pause_kind``, as ``runs_df.waiting_s`` does."""
    from noesis_nb.plots import episode_timeline

    lines = [json.loads(line) for line in (base_run / "events.jsonl").read_text().splitlines()]
    pauses = [  # the episode's own pause lines for a person, as written (a policy's waited for nobody)
        e
        for e in lines
        if e.get("phase") == "runtime" and e.get("event_type") in PAUSES[:2] and POLICY_PAUSE_KEY not in e["payload"]
    ]
    spans = _spans(lines)  # the pauses themselves (a pause writes an interrupt and a checkpoint)
    assert len(pauses) >= 2 and any(e["phase"] != "runtime" and e["payload"].get("event_name") in PAUSES for e in lines)
    run = tmp_path / "runs" / base_run.name
    shutil.copytree(base_run, run)
    for name in ("final.json", "manifest.json"):
        (run / name).unlink(missing_ok=True)
    for event in lines:
        rewrite(event)
    (run / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in lines))
    clear_cache()

    events = noesis_nb.events_df(run.parent)
    figure = episode_timeline(events)
    marked = sorted(_utc(x) for trace in figure.data if trace.name in ("interrupt", "paused (checkpoint)") for x in trace.x)
    assert marked == sorted(_utc(e["timestamp"]) for e in pauses), marked
    waiting_s = float(noesis_nb.runs_df(run.parent).waiting_s.iloc[0])
    assert waiting_s == pytest.approx(sum(end - start for start, end in spans), abs=1e-3)
    view = noesis_nb.show(run)
    page = view.snapshot_html()
    badged = [row for row in _flagged_rows(page) if row[1] != "tool.approval.pending"]
    assert badged == [("runtime", e.get("event_type") or e["payload"]["kind"]) for e in pauses], badged
    counts = html.unescape(view.counts.value)
    assert f"‖ {len(spans)} pauses" in counts, counts  # a pause once, however many lines it wrote
