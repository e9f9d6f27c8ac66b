"""Event lines crafted to be read one way by one reader and another way (or not at all) by the next.

Each case must give every frame the same problem at the same line, cold and warm (the second load is
served from the cache), and never a silent difference: a log whose lines end in a lone carriage return
is read line by line (it was one torn last line, dropped while the run was live), a name that is
``model.call`` or a known phase but for a slip is reported where it is.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from noesis_nb.errors import EventLogIntegrityError
from noesis_nb.frames import clear_cache, events_df, runs_df, tools_df, usage_df
from noesis_nb.frames.problems import RunLoadError

from .newprocess import settle
from .runkit import basic_events, dump_line, write_run

EP = "ep_01JCRAFTEDLINES00000000000"
Frame = Callable[..., pd.DataFrame]
FRAMES: dict[str, Frame] = {"runs_df": runs_df, "events_df": events_df, "tools_df": tools_df, "usage_df": usage_df}
EVENT_FRAMES = {k: v for k, v in FRAMES.items() if k != "runs_df"}


def _root(tmp_path: Path, data: bytes, events: list[dict[str, Any]] | None = None) -> Path:
    """A runs root with one live run (no summary: runs_df reads its log) whose events.jsonl is ``data``."""
    root = tmp_path / "runs"
    run = write_run(root, EP, events or basic_events(EP))
    (run / "events.jsonl").write_bytes(data)
    settle()
    return root


def _problems(df: Any) -> list[tuple[int | None, str]]:
    return [(p["line"], p["reason"]) for p in df.attrs["errors"]]


def _lines(events: list[dict[str, Any]]) -> bytes:
    return "".join(dump_line(e, "new") for e in events).encode()


@pytest.mark.parametrize("end", [b"\r", b"\r\n"])
def test_lone_carriage_returns_end_lines_and_are_reported(tmp_path: Path, end: bytes) -> None:
    events = basic_events(EP)
    root = _root(tmp_path, _lines(events).replace(b"\n", end))
    for name, frame in FRAMES.items():
        for load in ("cold", "warm"):
            df = frame(root)
            found = _problems(df)
            if end == b"\r\n":  # CRLF: JSON reads the \r as whitespace, nothing to say
                assert found == [], (name, load)
            else:
                assert len(found) == 1 and found[0][0] == 1 and "lone carriage return" in found[0][1], (name, load, found)
        clear_cache()
    assert len(events_df(root)) == len(events)
    assert usage_df(root)["input_tokens"].tolist() == [1000, 50]
    assert runs_df(root)["model_calls"].tolist() == [2]


def test_lone_carriage_return_after_newline_lines_is_found_at_its_line(tmp_path: Path) -> None:
    events = basic_events(EP)
    data = _lines(events[:3]) + _lines(events[3:]).replace(b"\n", b"\r")
    root = _root(tmp_path, data)
    for name, frame in FRAMES.items():
        assert [line for line, _ in _problems(frame(root))] == [4], name
    assert events_df(root)["seq"].tolist() == list(range(len(events)))


@pytest.mark.parametrize("garbage", [b"\x8f\rq\x00!", b"\r\x01\x02", b"not json\rstill not", b'{"a":\r1}x'])
def test_a_garbage_line_holding_a_stray_carriage_return_stays_one_bad_line(tmp_path: Path, garbage: bytes) -> None:
    """A lone ``\\r`` inside a line that is not JSON objects cut at it is no line end: the line is reported as
    invalid at its own number, and the lines after it keep theirs."""
    events = basic_events(EP)
    lines = _lines(events).split(b"\n")
    lines[2] = garbage
    root = _root(tmp_path, b"\n".join(lines))
    for name, frame in EVENT_FRAMES.items():
        found = _problems(frame(root))
        assert len(found) == 1 and found[0][0] == 3, (name, found)
        assert "invalid" in found[0][1] and "carriage" not in found[0][1], (name, found)
    assert len(events_df(root)) == len(events) - 1


def test_a_bad_line_among_lines_ended_by_lone_carriage_returns_is_the_only_one_lost(tmp_path: Path) -> None:
    events = basic_events(EP)
    lines = _lines(events).split(b"\n")
    lines[3] = b"\x8f garbage"
    root = _root(tmp_path, b"\r".join(lines))
    for name, frame in EVENT_FRAMES.items():
        found = _problems(frame(root))
        assert [line for line, _ in found] == [1, 4], (name, found)
        assert "lone carriage return" in found[0][1] and "invalid" in found[1][1], (name, found)
    assert len(events_df(root)) == len(events) - 1


def test_a_carriage_return_between_the_tokens_of_one_json_line_is_white_space(tmp_path: Path) -> None:
    events = basic_events(EP)
    lines = _lines(events).split(b"\n")
    lines[1] = lines[1].replace(b",", b",\r", 1)
    root = _root(tmp_path, b"\n".join(lines))
    for name, frame in FRAMES.items():
        assert _problems(frame(root)) == [], name
    assert events_df(root)["seq"].tolist() == list(range(len(events)))


def test_lone_carriage_return_raises_when_strict(tmp_path: Path) -> None:
    root = _root(tmp_path, _lines(basic_events(EP)).replace(b"\n", b"\r"))
    for frame in EVENT_FRAMES.values():
        with pytest.raises((RunLoadError, EventLogIntegrityError), match="lone carriage return"):
            frame(root, strict=True)


@pytest.mark.parametrize(
    ("field", "value", "meant"),
    [
        ("event_name", "model.call ", "model.call"),
        ("event_name", "Model.Call", "model.call"),
        ("event_name", "model_call", "model.call"),
        ("event_name", "model.call\u200b", "model.call"),
        ("phase", "model ", "model"),
        ("phase", "Tool", "tool"),
    ],
)
def test_a_slip_of_a_known_name_is_reported_by_every_event_frame(tmp_path: Path, field: str, value: str, meant: str) -> None:
    events = basic_events(EP)
    call = events[2]
    if field == "phase":
        call["phase"] = value
    else:
        call["payload"]["event_name"] = value
    root = _root(tmp_path, _lines(events))
    want = f"{'phase' if field == 'phase' else 'payload.event_name'} is {json.dumps(value)[1:-1]!r}"
    for name, frame in EVENT_FRAMES.items():
        for load in ("cold", "warm"):
            found = _problems(frame(root))
            assert [line for line, _ in found] == [3], (name, load, found)
            assert f"close to {meant!r}" in found[0][1], (name, found)
            assert found[0][1].startswith(want.split(" is ")[0]), found
    if field == "event_name" and value.lower() != meant:  # runs_df looks at the lines naming model.call or model_call
        assert _problems(runs_df(root)) == _problems(events_df(root))
    clean = _root(tmp_path / "clean", _lines(basic_events(EP)))
    assert all(_problems(frame(clean)) == [] for frame in FRAMES.values())


@pytest.mark.parametrize("summary", [True, False])
def test_a_sealed_run_without_its_log_is_listed_and_reported_until_the_log_is_back(tmp_path: Path, summary: bool) -> None:
    root = tmp_path / "runs"
    events = basic_events(EP)
    run = write_run(root, EP, events, summary={"episode_id": EP, "task": "t"} if summary else None, final={"episode_id": EP})
    log = (run / "events.jsonl").read_bytes()
    (run / "events.jsonl").unlink()
    settle()
    for name, frame in FRAMES.items():
        for load in ("cold", "warm"):
            df = frame(root)
            found = [(p["path"], p["reason"]) for p in df.attrs["errors"]]
            assert len(found) == 1 and found[0][0].endswith("events.jsonl"), (name, load, found)
            assert "sealed" in found[0][1], (name, load, found)
    assert runs_df(root)["episode_id"].tolist() == [EP]
    (run / "events.jsonl").write_bytes(log)
    settle()
    for name, frame in FRAMES.items():
        assert frame(root).attrs["errors"] == [], name
    assert len(events_df(root)) == len(events)
    assert runs_df(root)["model_calls"].tolist() == [2]


def test_a_model_call_named_with_an_escape_counts_in_runs_df_as_in_usage_df(tmp_path: Path) -> None:
    events = basic_events(EP)
    plain, escaped = b'"event_name":"model.call","input_tokens":50', b'"event_name":"model\\u002ecall","input_tokens":50'
    data = _lines(events).replace(plain, escaped)
    root = _root(tmp_path, data)
    assert usage_df(root)["input_tokens"].tolist() == [1000, 50]
    for load in ("cold", "warm"):
        row = runs_df(root).iloc[0]
        assert (row["model_calls"], row["input_tokens"]) == (2, 1050), load


def test_a_time_before_the_line_above_is_reported_once_at_its_line(tmp_path: Path) -> None:
    events = basic_events(EP)
    events[3]["timestamp"] = "2025-03-01T09:00:00.000000+00:00"  # an hour back, then on again
    events[4]["timestamp"] = "not a time"  # unknown: skipped, the next known time is compared with the one before
    events[5]["timestamp"] = "2025-03-01T08:00:00+00:00"
    root = _root(tmp_path, _lines(events))
    for name, frame in EVENT_FRAMES.items():
        for load in ("cold", "warm"):
            found = [(line, reason) for line, reason in _problems(frame(root)) if "backwards" in reason]
            assert [line for line, _ in found] == [4, 6], (name, load, found)
            assert "2025-03-01T09:00:00" in found[0][1] and "2025-03-01T10:00:20" in found[0][1], found
    in_order = _root(tmp_path / "in_order", _lines(basic_events(EP)))
    write_run(in_order, "ep_01JCRAFTEDLINESEARLIER0000", basic_events("ep_01JCRAFTEDLINESEARLIER0000", day="2025-02-01"))
    settle()  # two runs, the second earlier than the first: each in order, nothing to say
    assert all(_problems(frame(in_order)) == [] for frame in EVENT_FRAMES.values())


def test_two_run_folders_of_one_name_under_two_labels_are_reported(tmp_path: Path) -> None:
    root = tmp_path / "runs"
    first = write_run(root / "team_a", EP, basic_events(EP))
    second = write_run(root / "team_b", EP, basic_events(EP))
    settle()
    for name, frame in FRAMES.items():
        for load in ("cold", "warm"):
            found = frame(root).attrs["errors"]
            assert [p["path"] for p in found] == [str(second)], (name, load, found)
            assert str(first) in found[0]["reason"] and "Rename one" in found[0]["reason"], found
        assert frame([first, first]).attrs["errors"] == [], name  # one folder given twice is no twin


@pytest.mark.parametrize("encoding", ["utf-16", "utf-32"])
def test_a_utf16_or_utf32_file_is_one_problem_naming_its_encoding(tmp_path: Path, encoding: str) -> None:
    root = _root(tmp_path, _lines(basic_events(EP)).decode().encode(encoding))
    run = root / EP
    (run / "summary.json").write_bytes(json.dumps({"episode_id": EP, "task": "t"}).encode(encoding))
    settle()
    for name, frame in FRAMES.items():
        for load in ("cold", "warm"):
            found = frame(root).attrs["errors"]
            wide = [p for p in found if "UTF-16 or UTF-32" in p["reason"]]
            assert len(found) == len(wide) == (2 if name == "runs_df" else 1), (name, load, found)


@pytest.mark.parametrize("phase", ["act", "note", "tool"])
def test_a_model_call_under_another_phase_is_counted_by_no_view_and_reported_by_every_frame(tmp_path: Path, phase: str) -> None:
    """One rule for what a model call is (a ``model`` event named ``model.call``): the runtime's summary and show()
    counted only those, usage_df and runs_df any event so named, so a crafted line priced in one and not the other."""
    from noesis_nb.store.facts import is_model_call

    events = basic_events(EP)
    events[3]["phase"] = phase  # the 50-token call
    root = _root(tmp_path, _lines(events))
    assert [is_model_call(e) for e in events].count(True) == 1
    for load in ("cold", "warm"):
        assert usage_df(root)["input_tokens"].tolist() == [1000], load
        row = runs_df(root).iloc[0]
        assert (row["model_calls"], row["input_tokens"]) == (1, 1000), load
        for name, frame in FRAMES.items():
            found = _problems(frame(root))
            assert [line for line, _ in found] == [4], (name, load, found)
            assert f"under phase {phase!r}" in found[0][1], (name, found)
