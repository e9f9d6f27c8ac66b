"""One event time of a run out of order or out of OTLP's range: reported, and the trace stays where the run was.

The root span started at ``min`` of the event times: one event dated year 1 (edited, crafted, another tool's
log) started the trace at the Unix epoch, 56 years long, with no warning, while ``events_df`` said the log's
times go backwards. Each case edits one line of a run the engine wrote and exports it as an OTLP/JSON file.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.integrations.otel import TraceIncomplete

pytest.importorskip("opentelemetry.sdk.trace")


def _agent(task: str, ctx: Any) -> str:
    ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=3, output_tokens=2, latency_ms=5)
    ctx.tool("fs.read", {"path": "notes.txt"}, effect="read", risk="low")
    ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=4, output_tokens=2, latency_ms=5)
    return "ok"


def _an_hour_before_the_first(first: str) -> str:
    from datetime import datetime, timedelta

    return (datetime.fromisoformat(first) - timedelta(hours=1)).isoformat()


CASES = {
    "year 1": (5, lambda first: "0001-01-01T00:00:00+00:00"),
    "year 9999": (5, lambda first: "9999-12-31T23:59:59+00:00"),
    "year 1 first": (1, lambda first: "0001-01-01T00:00:00+00:00"),
    "an hour back": (5, _an_hour_before_the_first),
    "1980": (5, lambda first: "1980-01-01T00:00:00Z"),
    "no time": (5, lambda first: "yesterday"),
}


def _spans(path: Path) -> list[dict[str, Any]]:
    return json.loads(path.read_text())["resourceSpans"][0]["scopeSpans"][0]["spans"]


@pytest.mark.parametrize("case", list(CASES))
def test_a_time_out_of_order_or_range_is_reported_and_the_trace_stays_in_the_runs_span(
    runs_dir: Path, tmp_path: Path, case: str
) -> None:
    line, crafted = CASES[case]
    run = runs_dir / noesis_nb.solve("t", using=_agent, runs_dir=runs_dir)
    log = run / "events.jsonl"
    events = [json.loads(text) for text in log.read_text().splitlines()]
    written = noesis_nb.events_df(run, cache=False)["timestamp"]  # the frames' reading of the engine's times
    others = [int(t.value) for i, t in enumerate(written) if i != line - 1]
    events[line - 1]["timestamp"] = crafted(events[0]["timestamp"])
    log.write_text("".join(json.dumps(e) + "\n" for e in events))

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        noesis_nb.export_otel(run, path=tmp_path / "trace.json")
    said = [str(w.message) for w in caught if issubclass(w.category, TraceIncomplete)]
    assert len(said) == 1 and f"line {line}:" in said[0], said

    spans = _spans(tmp_path / "trace.json")
    root = spans[0]
    # the root span is the episode: from the run's start to its terminate (``runs_df.duration_s``), not to the seal's
    # bookkeeping after it; every span and event of the run stays within the run's known times
    ended = int(written.iloc[[e.get("phase") for e in events].index("terminate")].value)
    # it starts where runs_df says the run started (its summary's start: a crafted first line does not move it)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        started = int(noesis_nb.runs_df(run, cache=False)["started_at"].iloc[0].value)
    assert min(others) - 10**9 < started <= min(others)
    assert (int(root["startTimeUnixNano"]), int(root["endTimeUnixNano"])) == (started, ended)
    for span in spans[1:]:  # every child inside the run's span, and every span event
        times = [int(span["startTimeUnixNano"]), int(span["endTimeUnixNano"])]
        times += [int(e["timeUnixNano"]) for e in span["events"]]
        assert all(started <= t <= max(others) for t in times), (span["name"], times)
    assert all(started <= int(e["timeUnixNano"]) <= max(others) for e in root["events"])


def test_a_step_back_the_frames_report_is_the_one_the_export_reports(runs_dir: Path, tmp_path: Path) -> None:
    run = runs_dir / noesis_nb.solve("t", using=_agent, runs_dir=runs_dir)
    log = run / "events.jsonl"
    events = [json.loads(text) for text in log.read_text().splitlines()]
    for line in (4, 7):
        events[line - 1]["timestamp"] = _an_hour_before_the_first(events[0]["timestamp"])
    log.write_text("".join(json.dumps(e) + "\n" for e in events))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frames = {e["line"] for e in noesis_nb.events_df(run, cache=False).attrs["errors"] if "go backwards" in e["reason"]}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        noesis_nb.export_otel(run, path=tmp_path / "trace.json")
    said = " ".join(str(w.message) for w in caught if issubclass(w.category, TraceIncomplete))
    assert frames and all(f"line {line}: " in said and "go backwards" in said for line in frames), (frames, said)
    attributes = {a["key"]: a["value"] for a in _spans(tmp_path / "trace.json")[0]["attributes"]}
    assert attributes["noesis.event_times_moved"] == {"intValue": str(len(frames))}  # the two lines, counted on the root
