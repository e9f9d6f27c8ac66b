"""What a run's log holds after its episode ended is exported on a ``seal`` span under the root, each event inside it.

The root span ends with the episode (``runs_df.duration_s``), but the seal's state, insight and memory events, and
a lost run's closing act, reflect, learn and terminate written by ``resume_run`` later, were events of the root span
dated after its end: a collector received span events outside their span. Each case sends a real run to a loopback
OTLP collector and reads what it received.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.runtime.api import RunRecovered
from tests.widgets.lostruns import lost_while_running

from ..otlp_collector import Collector

pytest.importorskip("opentelemetry.exporter.otlp.proto.http.trace_exporter")

SEAL_EVENTS = ["runtime", "insight", "memory"]  # what the seal writes after the terminate


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


def test_an_ordinary_runs_seal_events_lie_on_a_seal_span_after_the_root(runs_dir: Path, otlp_collector: Collector) -> None:
    episode = noesis_nb.solve("t", using=_agent, runs_dir=runs_dir)

    noesis_nb.export_otel(runs_dir / episode, endpoint=otlp_collector.url)

    root, seal = _checked(otlp_collector.spans)
    assert [e.name for e in seal.events] == SEAL_EVENTS
    assert "note" in [e.name for e in root.events]  # the episode's own events stay on the root
    assert root.end_time_unix_nano <= seal.start_time_unix_nano  # the seal came after the episode
    row = noesis_nb.runs_df(runs_dir).set_index("episode_id").loc[episode]
    assert (root.end_time_unix_nano - root.start_time_unix_nano) / 1e9 == pytest.approx(row["duration_s"], abs=1e-5)


def test_a_lost_runs_closing_events_written_later_lie_on_the_seal_span(runs_dir: Path, otlp_collector: Collector) -> None:
    lost_while_running(runs_dir, "ep_lost")
    time.sleep(0.3)  # the run lies dead a while before anyone seals it
    with pytest.warns(RunRecovered):
        noesis_nb.resume_run("ep_lost", runs_dir=runs_dir)

    noesis_nb.export_otel(runs_dir / "ep_lost", endpoint=otlp_collector.url)

    root, seal = _checked(otlp_collector.spans)
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
