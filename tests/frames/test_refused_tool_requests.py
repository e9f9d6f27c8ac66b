"""A tool call asked for that never became a draft is a ``tools_df`` row, and counts in ``runs_df.tool_calls``.

Refused before its draft (a payload field its protocol does not take, a protocol with no handler) it leaves
``tool.requested`` and ``tool.rejected.invalid`` in the log and no tool record: its row says ``invalid`` with the
event's reason code. A run killed between the request and its draft leaves the request alone: ``lost``, before
``resume_run`` seals the run and after. Both frames say so cold and from their caches.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import noesis_nb
from noesis_nb.frames import clear_cache
from noesis_nb.runtime.api import RunRecovered

from .runkit import basic_events, event, hand_summary, write_run


def _tool_events(run: Path) -> list[dict[str, Any]]:
    events = [json.loads(line) for line in (run / "events.jsonl").read_text().splitlines()]
    return [e["payload"] for e in events if e["phase"] == "tool"]


def _frames(runs_dir: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    return noesis_nb.tools_df(runs_dir), noesis_nb.runs_df(runs_dir)


def _refusing_agent(task: str, ctx: Any) -> str:
    ctx.tool("calc.add", {"kwargs": {"x": 1}}, protocol="python", fn=lambda x: x + 1)
    for name, payload, protocol in (
        ("net.get", {"url": "http://127.0.0.1:1/", "argv": [sys.executable, "-c", "1"]}, "subprocess"),
        ("docs.search", {"query": "q"}, "mcp"),
    ):
        try:
            ctx.tool(name, payload, protocol=protocol)
        except noesis_nb.tools.ToolContractError:
            pass
    return "done"


def test_requests_refused_before_their_draft_are_rows_and_counted(runs_dir: Path) -> None:
    ep = noesis_nb.solve("refused requests", using=_refusing_agent, runs_dir=runs_dir)
    run = runs_dir / ep
    events = _tool_events(run)
    refused = {e["request_id"]: e["reason_code"] for e in events if e["event_name"] == "tool.rejected.invalid"}
    requested = [e["request_id"] for e in events if e["event_name"] == "tool.requested"]
    assert len(refused) == 2 and len(requested) == 3
    assert len(list((run / "tool_invocations").rglob("prepared/*.json"))) == 1  # one draft made, two refused
    for load in ("cold", "warm"):
        tools, runs = _frames(runs_dir)
        assert sorted(tools["request_id"]) == sorted(requested), load
        rows = tools.set_index("request_id")
        for request, code in refused.items():
            assert rows.loc[request, "status"] == "invalid" and rows.loc[request, "reason_code"] == code, load
            assert pd.isna(rows.loc[request, "draft_id"]) and pd.notna(rows.loc[request, "requested_at"]), load
        assert sorted(rows.loc[list(refused), "protocol"]) == ["mcp", "subprocess"]
        assert runs.loc[0, "tool_calls"] == len(tools) == 3, load
    clear_cache()  # read again from the files, the runs index (this process's) aside
    assert noesis_nb.runs_df(runs_dir, cache=False).loc[0, "tool_calls"] == 3


_KILLED_AFTER_REQUEST = textwrap.dedent(
    """
    import os, signal, sys
    import noesis_nb
    from noesis_nb.runtime.recorder import Recorder
    real = Recorder.emit
    def emit(self, phase, payload, **kwargs):  # kill -9 once the request is written, before its draft
        event = real(self, phase, payload, **kwargs)
        if payload.get("event_name") == "tool.requested":
            os.kill(os.getpid(), signal.SIGKILL)
        return event
    Recorder.emit = emit
    def agent(task, ctx):
        ctx.tool("fs.touch", {"argv": [sys.executable, "-c", "1"]}, effect="write", risk="high")
    noesis_nb.solve("killed mid-request", using=agent, runs_dir=sys.argv[1], approver="auto")
    """
)


def test_a_request_its_run_died_before_drafting_is_lost(runs_dir: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _KILLED_AFTER_REQUEST, str(runs_dir)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == -9, done.stderr[-2000:]
    (run,) = runs_dir.iterdir()
    [request] = [e["request_id"] for e in _tool_events(run) if e["event_name"] == "tool.requested"]
    assert not (run / "tool_invocations").exists() or not list((run / "tool_invocations").rglob("*.json"))
    for stage in ("killed", "killed, warm", "sealed by resume_run"):
        if stage == "sealed by resume_run":
            with pytest.warns(RunRecovered, match="lost its process"):
                noesis_nb.resume_run(run)
        tools, runs = _frames(runs_dir)
        assert list(tools["request_id"]) == [request] and list(tools["status"]) == ["lost"], stage
        assert runs.loc[0, "tool_calls"] == 1, stage


def test_a_denied_request_in_a_run_written_elsewhere_is_a_row_and_counted(runs_dir: Path) -> None:
    """A Noēsis run (its summary without noesis_nb's counts): the log says a request was denied, and so do both frames."""
    ep = "ep_01JREFUSEDREQUEST000000001"
    events = basic_events(ep)
    t = events[-1]["timestamp"]
    events[-1:-1] = [
        event(ep, 10, "tool", {"event_name": "tool.requested", "request_id": "req_a", "protocol": "http", "tool": "get"}, ts=t),
        event(ep, 11, "tool", {"event_name": "tool.validated", "request_id": "req_a", "field_count": 1}, ts=t),
        event(ep, 12, "tool", {"event_name": "tool.authz.denied", "request_id": "req_a", "reason_code": "authz.denied"}, ts=t),
    ]
    write_run(runs_dir, ep, events, summary=hand_summary(ep, task="denied"))
    tools, runs = _frames(runs_dir)
    assert tools[["request_id", "status", "reason_code", "protocol"]].values.tolist() == [
        ["req_a", "denied", "authz.denied", "http"]
    ]
    assert runs.loc[0, "tool_calls"] == 1 and not tools.attrs["errors"] and not runs.attrs["errors"]


def _seal_sizes(run: Path, name: str, text: str) -> None:
    """``name`` rewritten as ``text`` of the size the seal lists, and the manifest's sha256 of it made that of
    ``text``: as if the run had been sealed so (a same-size edit alone is found by its hash, ``sealsizes``)."""
    before = (run / name).read_bytes()
    assert len(text.encode()) == len(before)
    (run / name).write_text(text)
    manifest = json.loads((run / "manifest.json").read_bytes())
    for entry in manifest["files"]:
        if entry["name"] == name:
            entry["sha256"] = "sha256:" + hashlib.sha256(text.encode()).hexdigest()
    (run / "manifest.json").write_text(json.dumps(manifest, indent=2))


def test_a_run_sealed_without_its_request_count_has_its_log_count_them(runs_dir: Path) -> None:
    """A summary as the release before sealed it (no ``x-noesis_nb.tool_requests``): 1 draft and 2 requests
    refused before theirs are 3 tool calls, which the tool folders' listing alone cannot tell (it says 1): the
    run's log is read for them, cold, warm and without the cache."""
    ep = noesis_nb.solve("refused requests", using=_refusing_agent, runs_dir=runs_dir)
    run = runs_dir / ep
    text = (run / "summary.json").read_text()
    assert text.count('"tool_requests"') == 1
    _seal_sizes(run, "summary.json", text.replace('"tool_requests"', '"tool_requestz"'))  # an older key, same size
    assert len(noesis_nb.tools_df(runs_dir)) == 3
    for cache in (True, True, False):  # cold, warm, and read again without the cache
        runs = noesis_nb.runs_df(runs_dir, cache=cache)
        assert runs.loc[0, "tool_calls"] == 3 and not runs.attrs["errors"], runs.attrs["errors"]
        assert runs.loc[0, "success"] is not None and runs.loc[0, "act_count"] is not None  # the summary still read


def test_a_request_count_edited_after_the_seal_is_unknown(runs_dir: Path) -> None:
    """``x-noesis_nb.tool_requests`` changed after the seal is no longer the count the run was sealed with: unknown,
    as the summary's other figures are (the run made no tool call)."""
    ep = noesis_nb.solve("no tools", using=lambda task, ctx: "ok", runs_dir=runs_dir)
    path = runs_dir / ep / "summary.json"
    doc = json.loads(path.read_text())
    assert doc["x-noesis_nb"]["tool_requests"] == 0
    doc["x-noesis_nb"]["tool_requests"] = 99
    path.write_text(json.dumps(doc))
    clear_cache()
    with pytest.warns(noesis_nb.frames.LoadProblemsWarning):
        runs = noesis_nb.runs_df(runs_dir)
    assert "summary.json" in str(runs.attrs["errors"][0])
    assert runs.loc[0, ["success", "act_count", "tool_calls"]].isna().all()
    with pytest.warns(noesis_nb.frames.LoadProblemsWarning):
        assert len(noesis_nb.tools_df(runs_dir)) == 0


def test_tool_calls_counts_the_rows_tools_df_has(runs_dir: Path) -> None:
    """A draft whose ``tool.requested`` line is not in the log, and a request denied before its draft: tools_df has
    a row for each (their union), and tool_calls counts 2, not the larger of 1 draft and 1 request."""
    ep = "ep_01JREFUSEDREQUEST000000002"
    events = basic_events(ep)
    t = events[-1]["timestamp"]
    draft = f"draft:{ep}:req_d"
    events[-1:-1] = [
        event(ep, 10, "tool", {"event_name": "tool.execution.started", "request_id": "req_d", "draft_id": draft}, ts=t),
        event(ep, 11, "tool", {"event_name": "tool.requested", "request_id": "req_a", "protocol": "http", "tool": "get"}, ts=t),
        event(ep, 12, "tool", {"event_name": "tool.authz.denied", "request_id": "req_a", "reason_code": "authz.denied"}, ts=t),
    ]
    write_run(runs_dir, ep, events, summary=hand_summary(ep, task="union"))
    tools, runs = _frames(runs_dir)
    assert sorted(tools["request_id"].astype(str)) == ["req_a", "req_d"]
    assert runs.loc[0, "tool_calls"] == len(tools) == 2
