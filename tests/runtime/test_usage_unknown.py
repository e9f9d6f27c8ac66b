"""Live token totals follow the summary's rule: a total is None (unknown) when any call did not report it, never 0.

A live handle, a batch entry, a run read from disk, a replay moment and a drain report all say what the
sealed summary's ``x-noesis_nb.usage`` says."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import orjson

import noesis_nb
from noesis_nb.runtime.diskrun import DiskRun
from noesis_nb.runtime.drain import DrainReport
from noesis_nb.runtime.moment import RunMoment
from noesis_nb.runtime.summary import usage_summary
from noesis_nb.store import read_json
from noesis_nb.store.facts import UsageTotals, usage_from_events

UNKNOWN_PARTS = {
    "model_calls": 2,
    "input_tokens": 150,
    "output_tokens": 15,
    "cached_input_tokens": None,  # never reported: unknown, not 0
    "cache_write_input_tokens": None,
    "reasoning_tokens": None,
}
UNKNOWN_INPUT = {**UNKNOWN_PARTS, "input_tokens": None}  # one call's input count is unknown: the total is too


def parts_unreported(task: str, ctx: Any) -> str:
    """Model calls that report input and output totals only (no cached, cache-write or reasoning counts)."""
    ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=100, output_tokens=10)
    ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=50, output_tokens=5)
    return "done"


def input_unknown(task: str, ctx: Any) -> str:
    ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=100, output_tokens=10)
    ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=None, output_tokens=5)
    return "done"


def no_calls(task: str, ctx: Any) -> str:
    return "done"


def _summary_totals(run_dir: Path) -> dict[str, Any]:
    usage = read_json(run_dir / "summary.json")["x-noesis_nb"]["usage"]
    return {k: v for k, v in usage.items() if k != "by_model"}


def _live(agent: Any, runs_dir: Path) -> tuple[Any, list[dict[str, Any]]]:
    seen: list[dict[str, Any]] = []

    async def main() -> Any:
        handle = noesis_nb.start("count tokens", using=agent, runs_dir=runs_dir)
        handle.subscribe(lambda event: seen.append(handle.usage) if event["phase"] == "model" else None)
        await handle.wait()
        return handle

    return asyncio.run(main()), seen


def test_a_live_handle_says_none_for_counts_its_calls_never_reported_as_the_summary_does(runs_dir: Path) -> None:
    handle, seen = _live(parts_unreported, runs_dir)
    assert handle.status == "ok"
    assert handle.usage == UNKNOWN_PARTS
    assert handle.usage == _summary_totals(handle.run_dir)  # the same totals, before and after sealing
    assert seen[0]["cached_input_tokens"] is None and seen[0]["input_tokens"] == 100  # while running too


def test_an_unknown_input_count_makes_the_live_input_total_unknown_not_a_smaller_number(runs_dir: Path) -> None:
    handle, seen = _live(input_unknown, runs_dir)
    assert handle.usage == UNKNOWN_INPUT == _summary_totals(handle.run_dir)
    assert [u["input_tokens"] for u in seen] == [100, None]


def test_a_run_without_model_calls_totals_as_its_summary_does(runs_dir: Path) -> None:
    handle, _ = _live(no_calls, runs_dir)
    # no call: every total 0 (usage_df sums no rows), not unknown
    assert handle.usage == _summary_totals(handle.run_dir) == dict.fromkeys(UNKNOWN_PARTS, 0)
    assert handle.usage == {k: v for k, v in usage_summary([]).items() if k != "by_model"}


def test_known_counts_still_add_up(runs_dir: Path) -> None:
    def known(task: str, ctx: Any) -> str:
        for n in (1, 2):
            ctx.model_call("m", provider="p", input_tokens=10 * n, output_tokens=n, cached_input_tokens=0,
                           cache_write_input_tokens=n, reasoning_tokens=0)  # fmt: skip
        return "done"

    handle, _ = _live(known, runs_dir)
    assert handle.usage == {"model_calls": 2, "input_tokens": 30, "output_tokens": 3, "cached_input_tokens": 0,
                            "cache_write_input_tokens": 3, "reasoning_tokens": 0}  # fmt: skip
    assert handle.usage == _summary_totals(handle.run_dir)


def test_a_run_read_from_disk_and_its_replay_moments_agree_with_the_live_totals(runs_dir: Path) -> None:
    handle, _ = _live(input_unknown, runs_dir)
    run = DiskRun(handle.run_dir)
    assert run.usage == handle.usage == UNKNOWN_INPUT
    assert RunMoment(run, len(run.events)).usage == UNKNOWN_INPUT
    first = next(i for i, e in enumerate(run.events) if e["phase"] == "model") + 1  # just after the first call
    assert RunMoment(run, first).usage == {**UNKNOWN_PARTS, "model_calls": 1, "input_tokens": 100, "output_tokens": 10}
    assert RunMoment(run, 0).usage == dict.fromkeys(UNKNOWN_PARTS, 0)  # before the first call: none, each total 0


def test_batch_entries_carry_the_same_totals(runs_dir: Path) -> None:
    async def main() -> Any:
        b = noesis_nb.batch(["a", "b"], using={"parts": parts_unreported, "input": input_unknown}, root=runs_dir)
        await b
        return b

    b = asyncio.run(main())
    by = {e.adapter: [] for e in b.entries}
    for entry in b.entries:
        by[entry.adapter].append(entry)
        assert entry.usage == _summary_totals(Path(entry.run_dir))
    assert all(e.usage == UNKNOWN_PARTS for e in by["parts"]) and all(e.usage == UNKNOWN_INPUT for e in by["input"])


def test_a_drain_reports_its_finished_calls_totals_by_the_same_rule() -> None:
    def call(**counts: Any) -> dict[str, Any]:
        return {"kind": "model", "name": "openai:gpt-4o-mini", "status": "ok", "model": "gpt-4o-mini", "provider": "openai",
                **{k: None for k in UNKNOWN_PARTS if k != "model_calls"}, **counts}  # fmt: skip

    finished = [call(input_tokens=100, output_tokens=10), call(input_tokens=None, output_tokens=5), {"kind": "tool"}]
    report = DrainReport("settled", 0.1, 5.0, finished, [], [])
    assert report.usage == UNKNOWN_INPUT
    assert report.usage == {
        k: v for k, v in usage_summary([c for c in finished if c["kind"] == "model"]).items() if k != "by_model"
    }
    assert DrainReport("settled", 0.1, 5.0, [], [], []).usage == dict.fromkeys(UNKNOWN_PARTS, 0)


def test_the_running_totals_equal_the_summary_rule_for_any_mix_of_known_and_unknown() -> None:
    events = [
        {"phase": "model", "payload": {"event_name": "model.call", "input_tokens": i, "output_tokens": o, "reasoning_tokens": r}}
        for i, o, r in [(5, 1, None), (None, 2, 0), (7, None, 0), (3, 3, 1)]
    ]
    for n in range(len(events) + 1):
        totals, calls = usage_from_events(events[:n])
        assert totals == {k: v for k, v in usage_summary(calls).items() if k != "by_model"}
        assert UsageTotals.of(calls).totals == totals


def test_a_row_changed_in_a_live_handles_usage_calls_changes_nothing_written(runs_dir: Path) -> None:
    """``handle.usage_calls`` hands out copies: cleaning a row up in place (None → 0, a renamed model) while the
    episode runs keeps the summary's unknown counts unknown and its totals what the calls reported."""

    async def scenario() -> Path:
        tidied = asyncio.Event()

        async def agent(task: str, ctx: Any) -> str:
            parts_unreported(task, ctx)
            await tidied.wait()  # the summary is written after the rows were changed
            return "done"

        handle = noesis_nb.start("tidy the rows", using=agent, runs_dir=runs_dir)
        for _ in range(500):
            if len(handle.usage_calls) == 2:
                break
            await asyncio.sleep(0.01)
        rows = handle.usage_calls
        assert len(rows) == 2
        for row in rows:
            row["cached_input_tokens"] = row["cached_input_tokens"] or 0
            row["input_tokens"] = 999
        tidied.set()
        await handle.wait()
        return Path(handle.run_dir)

    run = asyncio.run(scenario())
    written = read_json(run / "summary.json")["x-noesis_nb"]["usage"]
    assert {k: written[k] for k in UNKNOWN_PARTS} == UNKNOWN_PARTS


def test_a_live_event_holds_what_its_written_line_holds(runs_dir: Path) -> None:
    """A subscriber and ``handle.events`` see each event as written: ``evidence_ids`` a list, as the format has it."""
    seen: list[dict[str, Any]] = []

    async def scenario() -> Path:
        handle = noesis_nb.start("watch the events", using=parts_unreported, runs_dir=runs_dir)
        handle.subscribe(seen.append)
        await handle.wait()
        assert all(type(e["evidence_ids"]) is list for e in handle.events)
        return Path(handle.run_dir)

    run = asyncio.run(scenario())
    written = [orjson.loads(line) for line in (run / "events.jsonl").read_bytes().splitlines()]
    assert seen and all(type(e["evidence_ids"]) is list for e in seen)
    by_id = {e["id"]: e for e in written}
    assert all(e["evidence_ids"] == by_id[e["id"]]["evidence_ids"] for e in seen)
