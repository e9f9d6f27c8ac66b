"""The ``execute_tool`` span of a tool call that waited for a person starts when the tool started (``tools_df``'s
``executed_at``), so a collector's tool latency is the tool's own; the wait is an ``await_approval`` span before it
(from the request to the execution), both carrying ``noesis.tool.wait_s`` = ``tools_df.wait_s``. Both name the
tool as ``tools_df.tool`` does, its namespace kept (``fs.write_file``). Exported to a loopback OTLP collector."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import noesis_nb
from tests.otlp_collector import Collector


async def _writes(task: str, ctx: Any) -> Any:
    done = await ctx.tool_async("fs.write_file", {"argv": ["python", "-c", "print(1)"]}, effect="write", risk="high")
    return done["returncode"]


def _attrs(span: Any) -> dict[str, Any]:
    return {kv.key: getattr(kv.value, kv.value.WhichOneof("value")) for kv in span.attributes}


def _ns(stamp: pd.Timestamp) -> int:
    return int(stamp.value)


def test_the_tool_span_starts_at_execution_and_the_wait_is_its_own_span(runs_dir: Path, otlp_collector: Collector) -> None:
    ep = noesis_nb.solve("t", using=_writes, runs_dir=runs_dir, approver="ask")
    noesis_nb.approve_draft(runs_dir / ep, approver_id="ana")
    noesis_nb.resume_run(runs_dir / ep)
    tool = noesis_nb.tools_df(runs_dir).iloc[0]
    assert tool["status"] == "succeeded" and tool["wait_s"] > 0
    noesis_nb.export_otel(runs_dir / ep, endpoint=otlp_collector.url)
    spans = {s.name: s for s in otlp_collector.spans}
    run = spans[f"execute_tool {tool['tool']}"]  # tools_df's name: fs.write_file
    wait = spans[f"await_approval {tool['tool']}"]
    assert tool["tool"] == "fs.write_file" and _attrs(run)["gen_ai.tool.name"] == "fs.write_file"
    # the tool's span from its start; the wait from the request to that start (µs: the events' precision)
    assert run.start_time_unix_nano // 1000 == _ns(tool["executed_at"]) // 1000
    assert (wait.start_time_unix_nano // 1000, wait.end_time_unix_nano) == (
        _ns(tool["requested_at"]) // 1000,
        run.start_time_unix_nano,
    )
    for span in (run, wait):
        assert _attrs(span)["noesis.tool.wait_s"] == pytest.approx(tool["wait_s"], abs=1e-6)
        assert all(span.start_time_unix_nano <= e.time_unix_nano <= span.end_time_unix_nano for e in span.events)
        assert span.parent_span_id == next(s for s in otlp_collector.spans if not s.parent_span_id).span_id
    assert [e.name for e in run.events][0] == "tool.execution.started"
    assert "tool.approval.pending" in [e.name for e in wait.events]
    assert _attrs(run)["noesis.tool.decision"] == "approved" and _attrs(wait)["noesis.tool.approver"] == "ana"


def test_a_call_that_waited_for_nobody_has_one_span_from_its_request(runs_dir: Path, otlp_collector: Collector) -> None:
    ep = noesis_nb.solve("t", using=_writes, runs_dir=runs_dir, approver="auto")
    tool = noesis_nb.tools_df(runs_dir).iloc[0]
    noesis_nb.export_otel(runs_dir / ep, endpoint=otlp_collector.url)
    names = [s.name for s in otlp_collector.spans]
    assert "execute_tool fs.write_file" in names and not [n for n in names if n.startswith("await_approval")]
    run = next(s for s in otlp_collector.spans if s.name == "execute_tool fs.write_file")
    assert run.start_time_unix_nano // 1000 == _ns(tool["requested_at"]) // 1000
    assert "noesis.tool.wait_s" not in _attrs(run)  # a policy decided: nobody waited (tools_df: NaN)
