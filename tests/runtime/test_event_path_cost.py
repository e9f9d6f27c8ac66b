"""An adapter's plain event goes from ``ctx.emit`` to its written line through few Python calls (issue 16: the
layers per event are counted, a shared machine's clock being too noisy to hold a figure); the line is still whole
and screened."""

from __future__ import annotations

import orjson

import noesis_nb
from tests.callcount import calls_per_event

#: Python calls per plain event, ``ctx.emit`` itself included: the context, the recorder, the screen, its prefilter,
#: the writer (10 before the screen's helper was folded in; 9 before the key test of a flat
#: payload whose keys were judged before and the summary's count of a phase it only counts were made in place; 7 before
#: the writer made the timestamp in place; 6 before it made the line in place, ``dumps_line`` only for a record holding
#: a value JSON cannot hold)
EVENT_BUDGET = 5


def test_a_plain_event_is_written_through_no_more_python_calls_than_its_budget(runs_dir):
    counts: list[int] = []

    def agent(task, ctx):
        counts.extend(calls_per_event(ctx, task, lambda event, arg: event == "call"))
        ctx.emit("reason", {"note": "the key is sk-proj-" + "Zq7Rt2Wv9Xy4Ab6Cd8Ef0Gh3"})  # still screened
        return "ok"

    episode = noesis_nb.solve("cost", using=agent, runs_dir=runs_dir)
    fewest = min(counts)  # (the log's look at the disk, every 50 ms, falls on some events and not others)
    assert fewest <= EVENT_BUDGET, f"a plain event took {fewest} Python calls (budget {EVENT_BUDGET}): a layer crept in"
    lines = (runs_dir / episode / "events.jsonl").read_bytes().splitlines()
    reasons = [orjson.loads(line) for line in lines if b'"phase":"reason"' in line]
    assert [r["payload"].get("step") for r in reasons[3:23]] == list(range(20))
    assert "Zq7Rt2Wv9Xy4Ab6Cd8Ef0Gh3" not in reasons[-1]["payload"]["note"]
