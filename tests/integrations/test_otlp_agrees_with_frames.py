"""The exported trace says of a run what the frames say: its status, its start and end, each tool call's status
and decision, and one span status code whichever way the spans leave (a collector, an OTLP/JSON file).

The root span's ``noesis.status`` read ``running`` for a run paused for approval and for one whose process was
killed, where ``runs_df`` says ``paused`` and ``lost``; a tool span said ``not_executed`` and ``pending`` for a
draft ``tools_df`` calls ``rejected``, ``pending`` or ``undecided``; a collector was sent OK for every span that
did not fail while the file said UNSET; and the root span of Noēsis' own run began at its first event, not at the
``started_at`` ``runs_df`` gives.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Any

import pandas as pd

import noesis_nb
from noesis_nb.scripted import note_writer
from tests.otlp_collector import Collector
from tests.widgets.lostruns import lost_while_running

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def _value(value: dict[str, Any]) -> Any:
    kind, got = next(iter(value.items()))
    return int(got) if kind == "intValue" else got


def _file_spans(run_dir: Path, out: Path) -> list[dict[str, Any]]:
    """The spans of ``run_dir`` as ``export_otel(path=...)`` writes them, attributes as a dict."""
    noesis_nb.export_otel(run_dir, path=out)
    spans = [s for rs in json.loads(out.read_text())["resourceSpans"] for ss in rs["scopeSpans"] for s in ss["spans"]]
    for span in spans:
        span["attrs"] = {a["key"]: _value(a["value"]) for a in span["attributes"]}
    return spans


def _root(spans: list[dict[str, Any]]) -> dict[str, Any]:
    return next(s for s in spans if not s.get("parentSpanId"))


def _tool(spans: list[dict[str, Any]]) -> dict[str, Any]:
    return next(s["attrs"] for s in spans if s["name"].startswith("execute_tool "))


def _status_of(runs: Path, episode: str) -> str:
    return str(noesis_nb.runs_df(runs).set_index("episode_id").loc[episode, "status"])


def _tool_status(runs: Path, episode: str) -> str:
    tools = noesis_nb.tools_df(runs)
    return str(tools.loc[tools["episode_id"] == episode, "status"].item())


def test_a_paused_run_and_its_waiting_draft_then_rejected(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    episode = noesis_nb.solve("a note", using=note_writer(tmp_path / "notes"), runs_dir=runs, approver="ask")
    spans = _file_spans(runs / episode, tmp_path / "paused.json")
    assert _status_of(runs, episode) == "paused"
    assert _root(spans)["attrs"]["noesis.status"] == "paused"
    assert _root(spans)["status"] == {"code": 0}  # no outcome yet: UNSET
    assert _tool_status(runs, episode) == "pending"
    assert (_tool(spans)["noesis.tool.status"], _tool(spans)["noesis.tool.decision"]) == ("pending", "pending")

    noesis_nb.reject_draft(episode, runs_dir=runs, reason="not now")  # decided on disk, the run not resumed
    spans = _file_spans(runs / episode, tmp_path / "rejected.json")
    assert _tool_status(runs, episode) == "rejected"
    assert (_tool(spans)["noesis.tool.status"], _tool(spans)["noesis.tool.decision"]) == ("rejected", "rejected")


def test_a_run_cancelled_while_its_draft_waited_leaves_it_undecided(tmp_path: Path) -> None:
    runs = tmp_path / "runs"

    async def main() -> Any:
        handle = noesis_nb.start("a note", using=note_writer(tmp_path / "notes"), runs_dir=runs)
        await handle  # returns once the episode waits for a human
        handle.cancel()
        try:
            await handle.wait()
        except BaseException:
            pass
        return handle

    handle = asyncio.run(main())
    spans = _file_spans(Path(handle.run_dir), tmp_path / "cancelled.json")
    assert _status_of(runs, handle.episode_id) == _root(spans)["attrs"]["noesis.status"] == "cancelled"
    assert _tool_status(runs, handle.episode_id) == "undecided"
    assert (_tool(spans)["noesis.tool.status"], _tool(spans)["noesis.tool.decision"]) == ("undecided", "undecided")


def test_a_lost_run_is_lost_to_a_collector_and_in_the_file(tmp_path: Path, otlp_collector: Collector) -> None:
    runs = tmp_path / "runs"
    lost_while_running(runs, "ep_lost")
    assert _status_of(runs, "ep_lost") == "lost"
    spans = _file_spans(runs / "ep_lost", tmp_path / "lost.json")
    assert _root(spans)["attrs"]["noesis.status"] == "lost"
    assert _root(spans)["status"]["code"] == 2 and "resume_run" in _root(spans)["status"]["message"]
    noesis_nb.export_otel(runs / "ep_lost", endpoint=otlp_collector.url)
    sent = next(s for s in otlp_collector.spans if not s.parent_span_id)
    status = next(a.value.string_value for a in sent.attributes if a.key == "noesis.status")
    assert (status, sent.status.code) == ("lost", 2)


def test_a_span_has_one_status_code_whichever_way_it_leaves(tmp_path: Path, otlp_collector: Collector) -> None:
    def ok(task: str, ctx: Any) -> str:
        ctx.model_call("gpt-4o", provider="openai", input_tokens=10, output_tokens=1)
        ctx.tool("fs.read_file", {"argv": ["python", "-c", "print('hi')"]}, effect="read", risk="low")
        return "done"

    def failing(task: str, ctx: Any) -> str:
        ctx.model_call("gpt-4o", provider="openai", input_tokens=10, output_tokens=1)
        raise RuntimeError("the agent failed")

    runs = tmp_path / "runs"
    good = noesis_nb.solve("works", using=ok, runs_dir=runs)
    try:
        noesis_nb.solve("fails", using=failing, runs_dir=runs)
    except RuntimeError:
        pass
    bad = next(p.name for p in runs.iterdir() if p.name.startswith("ep_") and p.name != good)
    for episode in (good, bad):
        before = len(otlp_collector.spans)
        noesis_nb.export_otel(runs / episode, endpoint=otlp_collector.url)
        sent = {s.span_id.hex(): s.status.code for s in otlp_collector.spans[before:]}
        written = {s["spanId"]: s["status"]["code"] for s in _file_spans(runs / episode, tmp_path / f"{episode}.json")}
        assert sent == written
    good_spans = _file_spans(runs / good, tmp_path / "good.json")
    codes = {s["name"]: s["status"]["code"] for s in good_spans}
    # OK only where the run records a success: the episode ended ok, the tool ran and succeeded; else UNSET
    assert codes["invoke_agent ok"] == 1 and codes["execute_tool fs.read_file"] == 1
    assert codes["chat gpt-4o"] == 0 and codes["act"] == 0
    assert _root(_file_spans(runs / bad, tmp_path / "bad.json"))["status"]["code"] == 2


def test_noesis_own_run_starts_and_ends_where_runs_df_says(tmp_path: Path, otlp_collector: Collector) -> None:
    run = tmp_path / "ep_adr008_allow"
    shutil.copytree(FIXTURES / "noesis-adr008-allow-run" / "ep_adr008_allow", run)
    row = noesis_nb.runs_df(tmp_path).set_index("episode_id").loc["ep_adr008_allow"]
    assert row["started_at"] == pd.Timestamp("2025-01-01T00:00:00Z")  # the summary's, before the first event's .005
    # its recorded duration (0.04 s) ends before its own terminate (.045): the root holds the episode's events, so it
    # ends at that terminate; runs_df keeps the run's recorded figure
    assert row["ended_at"] == pd.Timestamp("2025-01-01T00:00:00.040Z")
    ns = (row["started_at"].value, pd.Timestamp("2025-01-01T00:00:00.045Z").value)
    root = _root(_file_spans(run, tmp_path / "t.json"))
    assert (int(root["startTimeUnixNano"]), int(root["endTimeUnixNano"])) == ns
    noesis_nb.export_otel(run, endpoint=otlp_collector.url)
    sent = next(s for s in otlp_collector.spans if not s.parent_span_id)
    assert (sent.start_time_unix_nano, sent.end_time_unix_nano) == ns
