"""A problem in an event line is reported by every frame that reads the line, runs_df included, once each.

``runs_df`` reads a run without a summary from the model-call lines of its log (``scan_model_calls``);
``events_df``, ``tools_df`` and ``usage_df`` from every event. The same bad value, repeated id or
event of another episode must be named the same way (file, line, reason) by all of them, and
``strict=True`` must raise in each.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from noesis_nb.frames import events_df, runs_df, tools_df, usage_df
from noesis_nb.frames.problems import RunLoadError

from .runkit import basic_events, write_run

EP = "ep_01JEVENTPROBLEMS0000000000"
FRAMES = {"runs_df": runs_df, "events_df": events_df, "tools_df": tools_df, "usage_df": usage_df}


def _run(tmp_path: Path, change: Any = None, extra: list[bytes] = ()) -> tuple[Path, Path]:
    """A root holding one run with no summary (runs_df reads its log); ``change(events)`` edits the events first."""
    events = basic_events(EP)
    if change is not None:
        change(events)
    root = tmp_path / "runs"
    run = write_run(root, EP, events, extra_lines=list(extra))
    return root, run / "events.jsonl"


def _problems(root: Path) -> dict[str, list[tuple[int | None, str]]]:
    return {name: [(p["line"], p["reason"]) for p in frame(root).attrs["errors"]] for name, frame in FRAMES.items()}


def _first_call(events: list[dict[str, Any]]) -> dict[str, Any]:
    return next(e for e in events if e["payload"].get("event_name") == "model.call")


BAD_CALLS = {
    "text": {"input_tokens": "10"},
    "negative": {"input_tokens": -5},
    "bool": {"output_tokens": True},
    "float": {"input_tokens": 10.5},
    "huge": {"input_tokens": 2**63},
    "text latency": {"latency_ms": "fast"},
    "negative latency": {"latency_ms": -3.0},  # what ctx.model_call refuses, in a run written elsewhere
    "negative cost": {"cost_usd": -0.5},
    "huge cost": {"cost_usd": 1e300},
    "parts above total": {"input_tokens": 10, "cached_input_tokens": 20},
    "model not text": {"model": 4},
    "object": {"input_tokens": {"a": 1}},
}


@pytest.mark.parametrize("fields", BAD_CALLS.values(), ids=BAD_CALLS.keys())
def test_runs_df_reports_a_bad_call_field_as_usage_df_does(tmp_path: Path, fields: dict[str, Any]):
    root, log = _run(tmp_path, lambda events: _first_call(events)["payload"].update(fields))
    got = _problems(root)
    assert got["usage_df"], "the reference frame reports it"
    assert got["runs_df"] == got["usage_df"] == got["events_df"], got
    assert all(line == 3 for line, _ in got["runs_df"])  # the first model call is the third line
    for frame in FRAMES.values():
        with pytest.raises(RunLoadError, match="line 3"):
            frame(root, strict=True, cache=False)


def test_a_repeated_event_line_is_reported_by_every_frame_and_counted_as_written(tmp_path: Path):
    events = basic_events(EP)
    call = json.dumps(_first_call(events), sort_keys=True, separators=(",", ":")).encode() + b"\n"
    root, log = _run(tmp_path, extra=[call])  # the first call again, as line 7
    got = _problems(root)
    for name, problems in got.items():
        assert len(problems) == 1, (name, problems)
        line, reason = problems[0]
        assert line == 7 and f"'{EP}-e2'" in reason and "line 3" in reason, (name, problems)
    assert runs_df(root)["model_calls"].tolist() == [3]  # both lines are read and counted (README)
    assert len(usage_df(root)) == 3
    for frame in FRAMES.values():
        with pytest.raises(RunLoadError, match="line 7"):
            frame(root, strict=True, cache=False)


def test_one_id_in_two_runs_is_no_problem(tmp_path: Path):
    """A copied run shares its ids with its original: ids repeat only within one log."""
    root, _ = _run(tmp_path)
    other = "ep_01JEVENTPROBLEMS0000000001"
    events = basic_events(other)
    for e in events:  # the other run's events carry this run's ids
        e["id"] = e["id"].replace(other, EP)
    write_run(root, other, events)
    assert _problems(root) == {name: [] for name in FRAMES}


@pytest.mark.parametrize("named", ["ep_SOMEONE_ELSE", None], ids=["another", "missing"])
@pytest.mark.parametrize("phase", ["model", "act"])
def test_an_event_of_another_episode_is_reported_by_every_frame(tmp_path: Path, named: str | None, phase: str):
    def change(events: list[dict[str, Any]]) -> None:
        target = next(e for e in events if e["phase"] == phase)
        if named is None:
            del target["episode_id"]
        else:
            target["episode_id"] = named

    root, _ = _run(tmp_path, change)
    line = 3 if phase == "model" else 5
    got = _problems(root)
    for name, problems in got.items():
        assert len(problems) == 1 and problems[0][0] == line, (name, problems)
        assert (named or "missing") in problems[0][1] and EP in problems[0][1], (name, problems)
    for frame in FRAMES.values():
        with pytest.raises(RunLoadError, match=f"line {line}"):
            frame(root, strict=True, cache=False)


def test_a_renamed_copy_is_not_reported_event_by_event(tmp_path: Path):
    """Every event of a copy under another folder name names the original: the log agrees with itself (runs_df
    compares a summary's episode with the folder); one stray event in it is still reported."""
    root = tmp_path / "runs"
    events = basic_events(EP)
    write_run(root, EP + "-copy", events)
    assert _problems(root) == {name: [] for name in FRAMES}
    events[3]["episode_id"] = "ep_SOMEONE_ELSE"
    write_run(root, EP + "-copy2", events)
    got = _problems(root)
    for name, problems in got.items():
        assert [line for line, _ in problems] == [4] and f"log of '{EP}'" in problems[0][1], (name, problems)


def test_spaced_json_naming_its_episode_is_no_problem(tmp_path: Path):
    """Noēsis' own serialisation (``"episode_id": "ep_…"``) counts as naming the run, as the compact one does."""
    root = tmp_path / "runs"
    write_run(root, EP, basic_events(EP), style="old")
    assert _problems(root) == {name: [] for name in FRAMES}


def test_runs_df_lists_a_bad_line_once(tmp_path: Path):
    """Its tail (for the status) and its scan of model calls both read the line: one problem, as events_df says."""
    bad = b'{"id":"x","episode_id":"' + EP.encode() + b'","phase":"model","payload":{"event_name":"model.call","n":NaN}}\n'
    root, _ = _run(tmp_path, extra=[bad])
    runs, events = runs_df(root).attrs["errors"], events_df(root).attrs["errors"]
    assert len(runs) == 1 and runs[0]["line"] == 7 and "invalid JSON" in runs[0]["reason"], runs
    assert [(p["line"], p["reason"]) for p in events] == [(runs[0]["line"], runs[0]["reason"])]
