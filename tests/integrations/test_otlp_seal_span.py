"""What a run's log holds after its episode ended is exported on a ``seal`` span under the root, each event inside it.

The root span ends with the episode (``runs_df.duration_s``), but the seal's state, insight and memory events, and
a lost run's closing act, reflect, learn and terminate written by ``resume_run`` later, were events of the root span
dated after its end: a collector received span events outside their span. Each case sends a real run to a loopback
OTLP collector and reads what it received.

What is the seal's is told by the episode's end mark (its terminate; a lost run's last sign of life), not by the
root's end: Noēsis' own runs record a duration that ends before their reflect, learn and terminate, and those were
put on the seal span (the terminate as a seal event, the reflect and learn spans under it). They stay on the root,
which ends at that terminate (and starts no later than the episode's first event).
"""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.frames.loadwarning import LoadProblemsWarning
from noesis_nb.integrations.otel_times import in_range
from noesis_nb.runtime.api import RunRecovered
from tests.widgets.lostruns import lost_while_running

from ..otlp_collector import Collector

pytest.importorskip("opentelemetry.exporter.otlp.proto.http.trace_exporter")

SEAL_EVENTS = ["runtime", "insight", "memory"]  # what the seal writes after the terminate
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
NOESIS_RUNS = ["noesis-smoke-run/ep_01K9RBBMXXRSFWR49SXFGF4SPR", "noesis-adr008-allow-run/ep_adr008_allow"]


def _agent(task: str, ctx: Any) -> str:
    ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=3, output_tokens=2, latency_ms=5)
    ctx.emit("note", {"text": "a step"})
    return "ok"


def _checked(spans: list[Any]) -> tuple[Any, Any]:
    """The root and seal spans received, after checking that every span event lies within its span."""
    for span in spans:
        for event in span.events:
            assert span.start_time_unix_nano <= event.time_unix_nano <= span.end_time_unix_nano, (span.name, event.name)
    [root] = [s for s in spans if not s.parent_span_id]
    [seal] = [s for s in spans if s.name == "seal"]
    assert seal.parent_span_id == root.span_id
    return root, seal


class _Written:
    """A span of an OTLP/JSON file, read with the names a collector's protobuf span has."""

    def __init__(self, span: dict[str, Any]) -> None:
        self.name = span["name"]
        self.span_id = bytes.fromhex(span["spanId"])
        self.parent_span_id = bytes.fromhex(span.get("parentSpanId", ""))
        self.start_time_unix_nano = int(span["startTimeUnixNano"])
        self.end_time_unix_nano = int(span["endTimeUnixNano"])
        self.events = [_Written.Event(e) for e in span["events"]]

    class Event:
        def __init__(self, event: dict[str, Any]) -> None:
            self.name = event["name"]
            self.time_unix_nano = int(event["timeUnixNano"])


def _written(run_dir: Path, out: Path) -> list[Any]:
    """The spans ``export_otel(path=...)`` writes for ``run_dir``."""
    noesis_nb.export_otel(run_dir, path=out)
    return [_Written(s) for s in json.loads(out.read_text())["resourceSpans"][0]["scopeSpans"][0]["spans"]]


def _event_ns(run_dir: Path, phase: str) -> int:
    """The time of the run's last event of ``phase``, as its log gives it."""
    lines = [json.loads(line) for line in (run_dir / "events.jsonl").read_text().splitlines()]
    at = in_range(next(e for e in reversed(lines) if e["phase"] == phase)["timestamp"])
    assert at is not None
    return at


@pytest.mark.parametrize("fixture", NOESIS_RUNS)
def test_noesis_own_run_keeps_its_phases_and_terminate_on_the_root(
    fixture: str, tmp_path: Path, otlp_collector: Collector
) -> None:
    run = tmp_path / "runs" / Path(fixture).name
    shutil.copytree(FIXTURES / fixture, run)
    row = noesis_nb.runs_df(tmp_path / "runs").iloc[0]
    terminate = _event_ns(run, "terminate")
    assert row["ended_at"].value < terminate  # its recorded duration ends before its own terminate

    noesis_nb.export_otel(run, endpoint=otlp_collector.url)
    for spans in (otlp_collector.spans, _written(run, tmp_path / "t.json")):
        root, seal = _checked(spans)
        assert [e.name for e in seal.events] == ["insight", "memory"]  # only what came after the terminate
        assert "terminate" in [e.name for e in root.events]
        assert root.end_time_unix_nano == terminate  # the root holds its events: it ends at the terminate
        steps = [s for s in spans if s.name in ("interpret", "plan", "act", "reflect", "learn")]
        assert all(s.parent_span_id == root.span_id for s in steps)  # none under the seal
        assert all(s.parent_span_id == root.span_id for s in spans if s is not root and s is not seal)
    if "smoke" in fixture:
        assert {"reflect", "learn"} <= {s.name for s in steps}


def test_a_root_starting_after_its_first_event_starts_at_that_event(tmp_path: Path, otlp_collector: Collector) -> None:
    run = tmp_path / "runs" / "ep_adr008_allow"
    shutil.copytree(FIXTURES / "noesis-adr008-allow-run" / "ep_adr008_allow", run)
    summary = json.loads((run / "summary.json").read_text())
    summary["started_at"] = "2025-01-01T00:00:00.020000+00:00"  # after its start (.005) and observe (.010) events
    (run / "summary.json").write_text(json.dumps(summary))
    with pytest.warns(LoadProblemsWarning):  # its manifest lists the summary as it was
        frame = noesis_nb.runs_df(tmp_path / "runs")
    assert "changed after the run was sealed" in frame.attrs["errors"][0]["reason"]
    row = frame.iloc[0]
    assert row["started_at"].value > _event_ns(run, "start")

    noesis_nb.export_otel(run, endpoint=otlp_collector.url)
    for spans in (otlp_collector.spans, _written(run, tmp_path / "t.json")):
        root, _ = _checked(spans)
        assert root.start_time_unix_nano == _event_ns(run, "start")
        assert root.end_time_unix_nano == row["ended_at"].value  # .060, after its terminate: the recorded end stands


def test_an_ordinary_runs_seal_events_lie_on_a_seal_span_after_the_root(runs_dir: Path, otlp_collector: Collector) -> None:
    episode = noesis_nb.solve("t", using=_agent, runs_dir=runs_dir)

    noesis_nb.export_otel(runs_dir / episode, endpoint=otlp_collector.url)

    row = noesis_nb.runs_df(runs_dir).set_index("episode_id").loc[episode]
    for spans in (otlp_collector.spans, _written(runs_dir / episode, runs_dir.parent / "t.json")):
        root, seal = _checked(spans)
        assert [e.name for e in seal.events] == SEAL_EVENTS
        assert {"note", "terminate"} <= {e.name for e in root.events}  # the episode's own events stay on the root
        assert root.end_time_unix_nano <= seal.start_time_unix_nano  # the seal came after the episode
        assert (root.end_time_unix_nano - root.start_time_unix_nano) / 1e9 == pytest.approx(row["duration_s"], abs=1e-5)


def test_a_lost_runs_closing_events_written_later_lie_on_the_seal_span(runs_dir: Path, otlp_collector: Collector) -> None:
    lost_while_running(runs_dir, "ep_lost")
    time.sleep(0.3)  # the run lies dead a while before anyone seals it
    with pytest.warns(RunRecovered):
        noesis_nb.resume_run("ep_lost", runs_dir=runs_dir)

    noesis_nb.export_otel(runs_dir / "ep_lost", endpoint=otlp_collector.url)

    for spans in (otlp_collector.spans, _written(runs_dir / "ep_lost", runs_dir.parent / "t.json")):
        root, seal = _checked(spans)
        assert [e.name for e in seal.events] == ["act", "reflect", "learn", "terminate", *SEAL_EVENTS]
        assert seal.start_time_unix_nano - root.end_time_unix_nano >= 0.3e9  # the time it lay dead is in neither


def test_a_live_export_sends_the_seal_span_once_whole_when_the_episode_ends(
    runs_dir: Path, otlp_collector: Collector, tmp_path: Path
) -> None:
    async def cell() -> Any:
        handle = noesis_nb.start("live", using=_agent, runs_dir=runs_dir)
        live = noesis_nb.export_otel(handle, endpoint=otlp_collector.url, live=True, interval=0.02, timeout=5)
        return await asyncio.wait_for(live, 30)

    live = asyncio.run(cell())
    assert live.errors == []
    root, seal = _checked(otlp_collector.spans)
    assert [e.name for e in seal.events] == SEAL_EVENTS
    [episode] = [p.name for p in runs_dir.iterdir()]
    noesis_nb.export_otel(runs_dir / episode, path=tmp_path / "later.json")  # the spans a later export gives
    later = json.loads((tmp_path / "later.json").read_text())["resourceSpans"][0]["scopeSpans"][0]["spans"]
    [again] = [s for s in later if s["name"] == "seal"]
    assert again["spanId"] == seal.span_id.hex() and [e["name"] for e in again["events"]] == SEAL_EVENTS


def _reads(task: str, ctx: Any) -> str:
    ctx.tool("fs.read", {"argv": [sys.executable, "-c", "pass"]}, effect="read", risk="low")
    return "ok"


def test_a_tool_request_crossing_the_episodes_end_ends_with_the_root(runs_dir: Path, tmp_path: Path) -> None:
    """A tool request whose first event is the episode's stays on the root span; its span ended at its last event,
    so one written after the end mark (its outcome recorded at the seal, half a second later) made a child span end
    after the root it lies in. It now ends with the root, and what came after the mark lies on the seal span."""
    episode = noesis_nb.solve("t", using=_reads, runs_dir=runs_dir)
    run = runs_dir / episode
    lines = [json.loads(line) for line in (run / "events.jsonl").read_text().splitlines()]
    at = max(i for i, e in enumerate(lines) if e["phase"] == "tool")
    moved = lines.pop(at)  # the tool's last event, written again after the seal's own lines
    assert at < max(i for i, e in enumerate(lines) if e["phase"] == "terminate")
    last = datetime.fromisoformat(lines[-1]["timestamp"])
    lines.append({**moved, "timestamp": (last + timedelta(seconds=0.5)).isoformat()})
    (run / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in lines))
    for name in ("final.json", "manifest.json"):  # the log changed: its seal would (rightly) say so
        (run / name).unlink()

    spans = _written(run, tmp_path / "t.json")
    root, seal = _checked(spans)
    ends = {s.span_id: s.end_time_unix_nano for s in spans}
    [tool] = [s for s in spans if s.name.startswith("execute_tool")]
    assert tool.parent_span_id == root.span_id  # its request began in the episode
    for span in spans:
        if span.parent_span_id and span is not seal:  # (the seal's span outlasts the episode: it is what came after)
            assert span.end_time_unix_nano <= ends[span.parent_span_id], span.name
    assert moved["payload"]["event_name"] in [e.name for e in seal.events]


def test_a_runs_seal_documents_are_looked_at_once_for_its_spans(runs_dir: Path) -> None:
    """Its spans read whether the run is sealed three ways (the tool calls' status, the run's status, and, for a
    log ending in a cut line, the log's reader): each looked at the seal documents again (two or three looks a
    run). The one look is passed along."""
    from noesis_nb.integrations.otel_spans import run_spans
    from noesis_nb.store import sealing

    episode = noesis_nb.solve("t", using=_reads, runs_dir=runs_dir)
    with (runs_dir / episode / "events.jsonl").open("a") as log:
        log.write('{"phase": "insight", "payl')  # a cut last line: its reader asks whether the run is sealed
    looks = 0

    def profile(frame: Any, event: str, arg: Any) -> None:
        nonlocal looks
        looks += event == "call" and frame.f_code is sealing.seal_state.__code__

    sys.setprofile(profile)
    try:
        spans = run_spans(runs_dir / episode, problems=[])
    finally:
        sys.setprofile(None)
    assert any(s["name"].startswith("execute_tool") for s in spans)
    assert looks == 1
