"""An imported trace keeps its recorded times: every event is stamped when the source says it happened (Noeta's
``occurred_at``, AG-UI's ``timestamp`` in ms), the run starts and ends with the recorded span, and a duration the
source gives (Noetic's ``durationMs``) is the event's ``metrics.duration_ms``. Before, every event was stamped at
import time: a 12 s task read as a run of ~15 ms started today, shorter than its own 3 s model call. A time outside
2000 to a day after the import, or a lone jump ahead, is not used (one warning), and a stream is read ahead for its
first time."""

from __future__ import annotations

import json
import time
import warnings
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import noesis_nb as nb
from noesis_nb.integrations._emit import row
from noesis_nb.integrations.agui import agui_rows
from noesis_nb.integrations.noeta import import_noeta
from noesis_nb.integrations.noetic import import_noetic
from noesis_nb.integrations.replay import RecordedTimesIgnored, import_rows
from noesis_nb.store import read_events, read_json
from tests.compat.checker import check_run

T0 = 1764460800.0  # 2025-11-30T00:00:00Z: a task recorded long before the test runs


def at(seconds: float) -> pd.Timestamp:
    return pd.Timestamp(T0 + seconds, unit="s", tz="UTC")


def envelope(seq: int, kind: str, payload: dict[str, Any], occurred: float | None, origin: str = "engine") -> dict[str, Any]:
    env = {"id": f"e{seq}", "task_id": "task1", "seq": seq, "type": kind, "schema_version": 1, "actor": origin}
    env.update({"trace_id": "tr", "correlation_id": None, "causation_id": None, "payload": payload, "origin": origin})
    if occurred is not None:
        env["occurred_at"] = T0 + occurred
    return env


def noeta_task(times: list[float | None]) -> list[dict[str, Any]]:
    """A task of six envelopes (one model call of 3 s) at ``times`` (seconds after T0; None: no occurred_at)."""
    finished = {"call_id": "c1", "success": True, "cost_usd": 7.65e-05, "latency_ms": 3000}
    finished["usage"] = {"uncached": 10, "cache_read": 5, "cache_write": 0, "output": 3, "reasoning_tokens": 0}
    kinds = [
        ("TaskCreated", {"goal": "tidy"}, "engine"),
        ("TaskStarted", {}, "engine"),
        ("LLMRequestStarted", {"call_id": "c1", "model": "claude-sonnet-5", "input_tokens": 15}, "llm"),
        ("LLMResponseRecorded", {"call_id": "c1", "stop_reason": "end_turn", "output_tokens": 3}, "llm"),
        ("LLMRequestFinished", finished, "llm"),
        ("TaskCompleted", {"answer": "done"}, "engine"),
    ]
    return [envelope(seq, kind, payload, t, origin) for seq, ((kind, payload, origin), t) in enumerate(zip(kinds, times))]


def the_run(runs_dir: Path) -> Path:
    (run,) = [p for p in runs_dir.iterdir() if p.is_dir()]
    return run


def stamps(run: Path) -> list[str]:
    return [json.loads(line)["timestamp"] for line in (run / "events.jsonl").read_text().splitlines()]


def test_a_noeta_import_is_stamped_with_its_recorded_times(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    import_noeta(noeta_task([0.0, 0.5, 1.0, 4.0, 4.0, 12.0]), runs_dir=runs)
    run = the_run(runs)
    events = nb.events_df(runs)
    noeta = events[events.event_name.astype(str).str.startswith("noeta.")]
    assert list(noeta.timestamp) == [at(0.0), at(0.5), at(1.0), at(4.0), at(4.0), at(12.0)]
    # the runtime's own events around the rows (start, plan, act, terminate, the seal's) lie in the recorded span
    assert events.timestamp.min() == at(0.0) and events.timestamp.max() == at(12.0)
    runs_row = nb.runs_df(runs).iloc[0]
    assert runs_row.started_at == at(0.0) and runs_row.duration_s == pytest.approx(12.0)
    summary = read_json(run / "summary.json")
    assert summary["started_at"] == "2025-11-30T00:00:00.000000+00:00" and summary["duration_sec"] == pytest.approx(12.0)
    usage = nb.usage_df(runs).iloc[0]
    assert usage.timestamp == at(4.0)  # when the call finished, as recorded
    assert usage.latency_ms / 1000 <= runs_row.duration_s  # a 3 s call fits in its 12 s run
    act = next(e for e in read_events(run / "events.jsonl") if e["phase"] == "act")
    assert act["metrics"]["started_at"] < act["metrics"]["completed_at"] and act["metrics"]["duration_ms"] == 12000
    assert stamps(run) == sorted(stamps(run)) and all(s.endswith("+00:00") for s in stamps(run))
    assert check_run(run) == []
    spans = otlp_spans(run, tmp_path / "otlp.json")  # the export tells the same times
    assert spans["chat claude-sonnet-5"] == (1.0, 4.0) and spans["invoke_agent RecordedReplay"] == (0.0, 12.0)


def otlp_spans(run: Path, path: Path) -> dict[str, tuple[float, float]]:
    """Each exported span's (start, end) in seconds after T0."""
    nb.export_otel(str(run), path=path)
    spans = {}
    for line in path.read_text().splitlines():
        for resource in json.loads(line)["resourceSpans"]:
            for scope in resource["scopeSpans"]:
                for span in scope["spans"]:
                    start, end = (int(span[k]) / 1e9 - T0 for k in ("startTimeUnixNano", "endTimeUnixNano"))
                    spans[span["name"]] = (start, end)
    return spans


def test_a_time_going_backwards_or_missing_keeps_the_recorded_order(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    # the response is recorded before its request started (clocks of two machines), the finish has no time
    import_noeta(noeta_task([0.0, 0.5, 2.0, 1.0, None, 6.0]), runs_dir=runs)
    run = the_run(runs)
    rows = [e for e in read_events(run / "events.jsonl") if str(e["payload"].get("event_name", "")).startswith("noeta.")]
    assert [e["payload"]["seq"] for e in rows] == [0, 1, 2, 3, 4, 5]  # the trace's order, not the times'
    assert [e["timestamp"][17:26] for e in rows] == ["00.000000", "00.500000", "02.000000", "02.000000", "02.000000", "06.000000"]
    assert rows[3]["payload"]["recorded_at"] == "2025-11-30T00:00:01.000000+00:00"  # what the source said is kept
    assert stamps(run) == sorted(stamps(run))
    assert nb.runs_df(runs).iloc[0].duration_s == pytest.approx(6.0)
    assert check_run(run) == []


def test_an_agui_stream_keeps_its_millisecond_timestamps(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    ms = int(T0 * 1000)
    stream = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r", "timestamp": ms},
        {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant", "timestamp": ms + 1250},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "hello", "timestamp": ms + 2000},
        {"type": "TEXT_MESSAGE_END", "messageId": "m", "timestamp": ms + 3500},
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r", "timestamp": ms + 5000},
    ]
    import_rows(agui_rows(stream), task="recorded stream", source="agui", runs_dir=runs)
    events = nb.events_df(runs)
    by_name = dict(zip(events.event_name.astype(str), events.timestamp))
    assert by_name["agui.RUN_STARTED"] == at(0) and by_name["agui.TEXT_MESSAGE"] == at(3.5)
    assert by_name["agui.RUN_FINISHED"] == at(5)
    runs_row = nb.runs_df(runs).iloc[0]
    assert runs_row.started_at == at(0) and runs_row.duration_s == pytest.approx(5.0)
    assert check_run(the_run(runs)) == []


def test_a_noetic_turn_keeps_its_duration_and_a_trace_without_times_is_stamped_as_imported(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    log = tmp_path / "stream.jsonl"
    lines = [
        {"source": "framework", "type": "helper:turn_started", "data": {"turnId": "t1", "messageIds": []}},
        {"source": "sdk", "type": "response.output_text.delta", "data": {"delta": "done"}},
        {"source": "framework", "type": "helper:turn_completed", "data": {"turnId": "t1", "durationMs": 1834}},
    ]
    log.write_text("".join(json.dumps(line) + "\n" for line in lines))
    before = datetime.now(UTC) - timedelta(seconds=1)
    import_noetic(log, runs_dir=runs)
    events = nb.events_df(runs)
    turn = events[events.event_name == "noetic.turn_completed"].iloc[0]
    assert turn.duration_ms == 1834.0
    assert events[events.event_name == "noetic.turn_started"].duration_ms.isna().all()
    # Noetic's stream events carry no times: the run is stamped as it is written, as before
    started = nb.runs_df(runs).iloc[0].started_at
    assert before <= started <= datetime.now(UTC) + timedelta(seconds=1)
    assert check_run(the_run(runs)) == []


def test_an_ordinary_episode_is_stamped_with_the_time_of_writing(tmp_path: Path) -> None:
    def agent(task: str, ctx: Any) -> str:
        ctx.emit("reason", {"text": "thinking"})
        return "ok"

    before = time.time() - 1
    run = nb.solve("plain", using=agent, runs_dir=tmp_path)
    times = [datetime.fromisoformat(e["timestamp"]).timestamp() for e in read_events(tmp_path / run / "events.jsonl")]
    assert before <= min(times) and max(times) <= time.time() + 1


@pytest.mark.parametrize("base", [0.0, 3 * 86400 + 123.4], ids=["since-start", "monotonic"])
def test_times_counted_from_the_task_start_or_a_monotonic_clock_date_the_run_at_import(tmp_path: Path, base: float) -> None:
    runs = tmp_path / "runs"
    before = pd.Timestamp.now(tz="UTC")
    with pytest.warns(RecordedTimesIgnored, match=r"7 row\(s\) had a time outside 2000-01-01.*monotonic") as said:
        import_noeta(noeta_task([base - T0 + x for x in (0.0, 0.5, 1.0, 4.0, 4.0, 12.0)]), runs_dir=runs)
    assert len(said) == 1  # once for the import (7 rows: the usage row too), not once a row
    runs_row = nb.runs_df(runs).iloc[0]
    assert runs_row.started_at >= before  # dated at import, as a trace without times is, never 1970
    assert runs_row.duration_s < 60
    events = read_events(the_run(runs) / "events.jsonl")
    rows = [e for e in events if str(e["payload"].get("event_name", "")).startswith("noeta.")]
    assert rows[5]["payload"]["recorded_at"] == (datetime(1970, 1, 1, tzinfo=UTC) + timedelta(seconds=base + 12)).isoformat(
        timespec="microseconds"
    )  # the source's value is kept
    assert check_run(the_run(runs)) == []


@pytest.mark.parametrize("far", [1e9, 253402300799 - T0], ids=["plus-1e9-s", "year-9999"])
def test_one_row_far_ahead_does_not_stamp_the_rest_of_the_run(tmp_path: Path, far: float) -> None:
    runs = tmp_path / "runs"
    with pytest.warns(RecordedTimesIgnored, match=r"1 row\(s\)") as said:
        import_noeta(noeta_task([0.0, far, 2.0, 3.0, 4.0, 12.0]), runs_dir=runs)
    assert len(said) == 1
    runs_row = nb.runs_df(runs).iloc[0]
    assert runs_row.started_at == at(0.0) and runs_row.duration_s == pytest.approx(12.0)
    assert nb.events_df(runs).timestamp.max() == at(12.0)
    assert check_run(the_run(runs)) == []


def test_a_lone_jump_ahead_within_the_window_is_not_used_and_a_confirmed_one_is(tmp_path: Path) -> None:
    day = 86400.0
    with pytest.warns(RecordedTimesIgnored, match=r"1 row\(s\) had a time more than an hour ahead"):
        import_noeta(noeta_task([0.0, day, 2.0, 3.0, 4.0, 12.0]), runs_dir=tmp_path / "lone")
    assert nb.runs_df(tmp_path / "lone").iloc[0].duration_s == pytest.approx(12.0)
    # a real pause of two hours (the rows after it agree): the run spans it, no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error", RecordedTimesIgnored)
        import_noeta(noeta_task([0.0, 1.0, 7200.0, 7201.0, 7202.0, 7210.0]), runs_dir=tmp_path / "pause")
    assert nb.runs_df(tmp_path / "pause").iloc[0].duration_s == pytest.approx(7210.0)


def test_a_stream_whose_first_event_has_no_time_keeps_the_recorded_span(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    ms = int(T0 * 1000)
    log = tmp_path / "stream.jsonl"  # AG-UI's timestamp is optional: the first event here has none
    log.write_text(
        "\n".join(
            json.dumps(e)
            for e in [
                {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
                {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant", "timestamp": ms + 1000},
                {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "hello", "timestamp": ms + 5000},
                {"type": "TEXT_MESSAGE_END", "messageId": "m", "timestamp": ms + 12000},
                {"type": "RUN_FINISHED", "threadId": "t", "runId": "r", "timestamp": ms + 20000},
            ]
        )
        + "\n"
    )

    def streamed() -> Any:  # rows as they come (a generator): the import does not see the trace whole
        with log.open() as lines:
            yield from agui_rows(json.loads(line) for line in lines)

    with warnings.catch_warnings():
        warnings.simplefilter("error", RecordedTimesIgnored)
        import_rows(streamed(), task="recorded stream", source="agui", runs_dir=runs)
    runs_row = nb.runs_df(runs).iloc[0]
    # the first row with a time is the message's, folded at its end (12 s); before, the run was dated now, ~0.05 s long
    assert runs_row.started_at == at(12.0) and runs_row.duration_s == pytest.approx(8.0)
    events = nb.events_df(runs)
    assert dict(zip(events.event_name.astype(str), events.timestamp))["agui.RUN_FINISHED"] == at(20.0)
    assert check_run(the_run(runs)) == []


def test_a_stream_without_a_time_in_its_first_rows_is_stamped_as_imported_and_says_so(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    before = pd.Timestamp.now(tz="UTC")

    def streamed() -> Any:  # 1,000 rows without a time, then rows recorded in 2025
        for i in range(1000):
            yield row("integration", "t", f"step{i}", "note")
        yield row("integration", "t", "late", "note", recorded_at="2025-11-30T00:00:05.000000+00:00")
        yield row("integration", "t", "run_finished", "run_finished", recorded_at="2025-11-30T00:00:20.000000+00:00")

    with pytest.warns(RecordedTimesIgnored, match=r"no row of the first 1000 had a time.*2 later time"):
        import_rows(streamed(), task="t", source="t", runs_dir=runs)
    assert nb.runs_df(runs).iloc[0].started_at >= before and stamps(the_run(runs)) == sorted(stamps(the_run(runs)))
