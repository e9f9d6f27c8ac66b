"""export_otel on runs someone else wrote: secrets never leave in a span, hostile values never stop the export,
and ``path=`` refuses a directory or a symbolic link instead of writing through it."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import noesis_nb
from noesis_nb.integrations.otel_spans import TraceIncomplete
from noesis_nb.secrets import for_run

from ..hardening.crashkit import tool_agent
from ..otlp_collector import Collector

encoder = pytest.importorskip("opentelemetry.exporter.otlp.proto.common.trace_encoder")

SECRET = "sk-proj-ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcd"
LEARNED = "horse-battery-staple-correct-42"  # no pattern finds it: only a run that learned it knows it


@pytest.fixture(scope="module")
def paused_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    runs = tmp_path_factory.mktemp("otel-hostile")
    ep = noesis_nb.solve("append the note", using=tool_agent(str(runs / "marker.txt")), runs_dir=runs / "runs", approver="ask")
    return runs / "runs" / ep


def _copy(paused_run: Path, root: Path) -> Path:
    run = root / paused_run.name
    shutil.copytree(paused_run, run)
    return run


def _rewrite(run: Path, change: Any) -> None:
    events = [json.loads(line) for line in (run / "events.jsonl").read_text().splitlines()]
    change(events)
    (run / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))


def _event(run: Path, phase: str, payload: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"id": f"e-{len(payload)}-{phase}", "episode_id": run.name, "phase": phase, "payload": payload, **extra}


def test_no_secret_leaves_from_any_attribute_source(paused_run: Path, tmp_path: Path, otlp_collector: Collector) -> None:
    run = _copy(paused_run, tmp_path)

    def plant(events: list[dict[str, Any]]) -> None:
        start = next(e for e in events if e.get("phase") == "start")
        start["payload"].update(task=f"use {SECRET} and {LEARNED}", using=f"agent {SECRET}")
        for e in events:
            if e.get("phase") == "tool":
                e["payload"]["tool"] = f"fs.{SECRET}"
        stamp = events[-1]["timestamp"]
        error = {"type": "AuthenticationError", "message": f"Incorrect API key provided: {SECRET}"}
        events.append(_event(run, "model", {"event_name": "model.call", "model": SECRET, "request_id": LEARNED, "error": error}))
        events.append(_event(run, "plan", {}, id=SECRET, timestamp=stamp, metrics={"started_at": stamp}))
        events.append(_event(run, "runtime", {"event_name": f"note {SECRET}"}, timestamp=stamp))
        events.append(_event(run, "terminate", {"status": "error", "message": f"boom {LEARNED}"}, timestamp=stamp))

    _rewrite(run, plant)
    (draft,) = (run / "tool_invocations" / "prepared").glob("*.json")
    approvals = run / "tool_invocations" / "approvals"
    approvals.mkdir()
    draft_id = json.loads(draft.read_text())["draft_id"]
    (approvals / draft.name).write_text(json.dumps({"draft_id": draft_id, "status": "approved", "approver_id": SECRET}))
    for_run(run).learn([LEARNED])  # a value learned after the lines holding it were written

    out = tmp_path / "trace.json"
    sent = noesis_nb.export_otel(run, path=out, endpoint=otlp_collector.url, timeout=5)
    wire = b"".join(request.body for request in otlp_collector.requests)
    text = out.read_text()
    assert sent >= 5 and len(otlp_collector.spans) == sent
    for leaked in (SECRET, LEARNED):
        assert leaked not in text, f"{leaked} left in the OTLP/JSON file"
        assert leaked.encode() not in wire, f"{leaked} left in the spans sent to the collector"
    assert "[REDACTED]" in text and "AuthenticationError" in text  # redacted, not dropped


_hostile = st.one_of(
    st.integers(-(2**80), 2**80),
    st.floats(allow_nan=True, allow_infinity=True),
    st.just(1e308),
    st.text(max_size=30),
    st.lists(st.one_of(st.text(max_size=5), st.integers()), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    st.none(),
    st.booleans(),
)
_FIELDS = ("latency_ms", "input_tokens", "output_tokens", "model", "stop_reason", "streamed", "error", "provider", "api")
_STAMPS = st.sampled_from(["0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "1970-01-01T00:00:00Z", "not a time", ""])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(payload=st.fixed_dictionaries({}, optional={k: _hostile for k in _FIELDS}), stamp=_STAMPS, metrics_at=_STAMPS)
def test_hostile_numbers_and_times_never_stop_the_export(
    paused_run: Path, tmp_path_factory: pytest.TempPathFactory, payload: dict[str, Any], stamp: str, metrics_at: str
) -> None:
    run = _copy(paused_run, tmp_path_factory.mktemp("case"))

    def plant(events: list[dict[str, Any]]) -> None:
        events.append(_event(run, "model", {"event_name": "model.call", **payload}, timestamp=stamp))
        events.append(_event(run, "plan", {}, timestamp=stamp, metrics={"started_at": metrics_at, "completed_at": stamp}))

    _rewrite(run, plant)
    out = run.parent / "trace.json"
    sent = noesis_nb.export_otel(run, path=out)
    json.loads(out.read_text(), parse_constant=lambda c: pytest.fail(f"{c} in the OTLP/JSON file: not JSON"))
    from noesis_nb.integrations._otel_sdk import readable_spans
    from noesis_nb.integrations.otel import run_spans

    specs = run_spans(run)
    assert len(specs) == sent
    encoder.encode_spans(readable_spans(specs, "t")).SerializeToString()  # what the OTLP/HTTP exporter sends


def test_path_that_is_a_directory_or_a_link_is_refused_and_left_alone(paused_run: Path, tmp_path: Path) -> None:
    folder = tmp_path / "traces"
    folder.mkdir()
    with pytest.raises(ValueError, match="is a directory.*traces.json"):
        noesis_nb.export_otel(paused_run, path=folder)
    assert folder.is_dir() and not list(folder.iterdir())
    target = tmp_path / "elsewhere.json"
    target.write_text("keep")
    link = tmp_path / "trace.json"
    link.symlink_to(target)
    with pytest.raises(ValueError, match="symbolic link"):
        noesis_nb.export_otel(paused_run, path=link)
    assert link.is_symlink() and target.read_text() == "keep"
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def _model_agent(task: str, ctx: Any) -> int:
    ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=10, output_tokens=1)
    ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=20, output_tokens=2)
    return 1


def test_a_log_repeating_event_ids_or_naming_another_run_gives_distinct_spans(tmp_path: Path) -> None:
    """A log whose events all carry one id and name another episode (copied, or crafted): its spans collided with
    each other and with that other run's trace, silently. The trace is the folder's run (as in the frames), each
    span's id is its own, and the repetition is said."""
    runs = tmp_path / "runs"
    a = noesis_nb.solve("a", using=_model_agent, runs_dir=runs)
    b = noesis_nb.solve("b", using=_model_agent, runs_dir=runs)
    log = runs / b / "events.jsonl"
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    for row in rows:
        row["id"], row["episode_id"] = "evt", a
        row.pop("caused_by", None)
    log.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "trace.json"
    with pytest.warns(TraceIncomplete, match="repeat the id of an earlier event"):
        noesis_nb.export_otel([runs / a, runs / b], path=out)
    doc = json.loads(out.read_text())
    spans = [s for rs in doc["resourceSpans"] for ss in rs["scopeSpans"] for s in ss["spans"]]
    pairs = [(s["traceId"], s["spanId"]) for s in spans]
    assert len(pairs) == len(set(pairs)), "colliding spans"
    assert len({s["traceId"] for s in spans}) == 2


def test_text_that_is_no_utf8_leaves_replaced_and_every_span_is_sent(
    paused_run: Path, tmp_path: Path, otlp_collector: Collector
) -> None:
    """A run folder whose name is no UTF-8 (read as lone surrogates), a service name or event text holding one: the
    span ids' hash raised UnicodeEncodeError, the OTLP encoder dropped the batch (said as a collector nobody listens
    on), and the JSON file carried ``\\udcff`` escapes that strict readers reject."""
    run = Path(os.fsdecode(os.fsencode(tmp_path) + b"/run-\xff"))
    shutil.copytree(paused_run, run)

    def plant(events: list[dict[str, Any]]) -> None:
        model = _event(run, "model", {"event_name": "model.call", "model": "gpt", "provider": "p"})
        events.append({**model, "episode_id": "run"})  # the log stays JSON orjson reads; the folder's name is not UTF-8

    _rewrite(run, plant)
    lines = (run / "events.jsonl").read_text().replace('"gpt"', '"gpt\\udcff"').replace('"p"', '"\\ud800p"')
    from noesis_nb.integrations.otel import OtlpSender, run_spans

    events = [json.loads(line) for line in lines.splitlines()]  # a program's own events (run_spans takes them)
    assert any(e["payload"].get("model") == "gpt\udcff" for e in events)
    given = run_spans(run, events)
    sender = OtlpSender(otlp_collector.url, None, "svc\udcff", 5)
    sender.send(given)
    sender.close()
    out = tmp_path / "trace.json"
    sent = noesis_nb.export_otel(run, path=out, endpoint=otlp_collector.url, service_name="svc\udcff", timeout=5)
    assert len(otlp_collector.spans) == len(given) + sent and sent > 0
    raw = out.read_bytes()
    assert b"\\udc" not in raw and b"\\ud8" not in raw
    doc = json.loads(raw.decode("utf-8"))
    names = {a["value"]["stringValue"] for rs in doc["resourceSpans"] for a in rs["resource"]["attributes"]}
    assert names == {"svc\ufffd"}
    sent_names = {s.name for s in otlp_collector.spans}
    assert "chat gpt\ufffd" in sent_names
    episodes = {a.value.string_value for s in otlp_collector.spans for a in s.attributes if a.key == "noesis.episode_id"}
    assert episodes == {"run-\ufffd"}


_WRONG_KINDS: list[Any] = ["100", True, False, -5, 1.5, 10**30, [3], {"n": 3}]


@pytest.mark.parametrize("wrong", _WRONG_KINDS, ids=repr)
def test_a_token_count_or_name_of_the_wrong_kind_is_left_out_never_exported_as_usage(
    paused_run: Path, tmp_path: Path, wrong: Any
) -> None:
    """``"100"``, ``True`` or ``-5`` as a token count left as ``gen_ai.usage.*`` (a string, a bool, a negative count a
    backend sums), and a list as the model name as an array; the run's readers take none of them as a count."""
    run = _copy(paused_run, tmp_path)
    payload = {
        "event_name": "model.call",
        **{f: wrong for f in ("input_tokens", "output_tokens", "cached_input_tokens", "reasoning_tokens")},
        "cache_write_input_tokens": 7.0,  # a whole float is a count, as the frames read it
        "model": wrong,
        "provider": wrong,
        "response_id": wrong,
        "streamed": "false" if wrong is not False else wrong,
    }
    _rewrite(run, lambda events: events.append(_event(run, "model", payload, timestamp=events[-1]["timestamp"])))
    out = tmp_path / "trace.json"
    noesis_nb.export_otel(run, path=out)
    doc = json.loads(out.read_text())
    spans = [s for rs in doc["resourceSpans"] for ss in rs["scopeSpans"] for s in ss["spans"]]
    chat = [s for s in spans if s["kind"] == 3][-1]  # the planted call: the last, as its event is
    attrs = {a["key"]: a["value"] for a in chat["attributes"]}
    assert {k: v for k, v in attrs.items() if k.startswith("gen_ai.usage.")} == {
        "gen_ai.usage.cache_creation.input_tokens": {"intValue": "7"}
    }
    for key in ("gen_ai.request.model", "gen_ai.response.model", "gen_ai.provider.name", "gen_ai.response.id"):
        assert key not in attrs or attrs[key] == {"stringValue": wrong}, (key, attrs[key])
    assert "gen_ai.request.stream" not in attrs or attrs["gen_ai.request.stream"] == {"boolValue": False}


def test_a_path_inside_a_run_directory_is_refused_and_the_run_left_whole(paused_run: Path, tmp_path: Path) -> None:
    """``path=<run>/events.jsonl`` replaced the run's event log with the OTLP document (the run was gone from every
    reader); a path in its folder, below it, or reached through ``..`` or a link changed the run's files the same way."""
    run = _copy(paused_run, tmp_path / "runs")
    other = _copy(paused_run, tmp_path / "more")
    before = {p: p.read_bytes() for p in (*run.rglob("*"), *other.rglob("*")) if p.is_file()}
    (tmp_path / "to-run").symlink_to(run)
    for path in (
        run / "events.jsonl",
        run / "manifest.json",
        run / "trace.json",
        run / "tool_invocations" / "trace.json",
        run / "new" / "trace.json",
        tmp_path / "runs" / ".." / "runs" / run.name / "trace.json",
        tmp_path / "to-run" / "trace.json",
        other / "trace.json",  # another run than the one exported
    ):
        with pytest.raises(ValueError, match="lies inside the run directory") as raised:
            noesis_nb.export_otel(run, path=path)
        assert str(tmp_path / "runs" / "traces.json") in str(raised.value) or "more" in str(raised.value)
    after = {p: p.read_bytes() for p in (*run.rglob("*"), *other.rglob("*")) if p.is_file()}
    assert after == before and not (run / "new").exists()
    assert noesis_nb.export_otel(run, path=tmp_path / "runs" / "traces.json") > 0  # beside the runs: fine


def test_a_project_folder_holding_a_stray_state_file_still_takes_a_trace(paused_run: Path, tmp_path: Path) -> None:
    (tmp_path / "state.json").write_text("{}")  # another program's files: the folder is no run
    (tmp_path / "summary.json").write_text("{}")
    (tmp_path / "out").mkdir()
    assert noesis_nb.export_otel(paused_run, path=tmp_path / "out" / "trace.json") > 0
    assert noesis_nb.export_otel(paused_run, path=tmp_path / "trace.json") > 0


def test_a_live_export_refuses_a_path_inside_its_own_run(tmp_path: Path) -> None:
    import asyncio

    async def main() -> None:
        handle = noesis_nb.start("live", using=_model_agent, runs_dir=tmp_path)
        try:
            with pytest.raises(ValueError, match="lies inside the run directory"):
                noesis_nb.export_otel(handle, endpoint="http://127.0.0.1:9", live=True, path=handle.run_dir / "trace.json")
        finally:
            await handle.wait()

    asyncio.run(main())
