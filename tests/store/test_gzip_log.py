"""An events.jsonl that was gzip-compressed is reported as such, with the fix (gunzip), by every reader of the log,
not as bare "invalid UTF-8"."""

from __future__ import annotations

import gzip
import json
import warnings
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.errors import EventLogCorruption, EventLogIntegrityError
from noesis_nb.frames import clear_cache
from noesis_nb.store.eventlog import iter_events, read_events


def _event(i: int, phase: str, payload: dict[str, object]) -> dict[str, object]:
    when = f"2025-11-11T02:19:{10 + i:02d}+00:00"
    return {"id": f"e{i}", "timestamp": when, "episode_id": "ep_gz", "agent_id": "system", "phase": phase, "payload": payload}


@pytest.fixture
def log(tmp_path: Path) -> Path:
    run = tmp_path / "runs" / "ep_gz"
    run.mkdir(parents=True)
    events = [_event(0, "start", {"task": "t"})] + [_event(i, "act", {"n": i, "pad": "x" * i}) for i in range(1, 40)]
    events.append(_event(45, "terminate", {"status": "ok"}))
    path = run / "events.jsonl"
    path.write_bytes(gzip.compress("".join(json.dumps(e) + "\n" for e in events).encode()))
    return path


def _says_gzip(reason: str) -> bool:
    return "gzip-compressed" in reason and "gunzip" in reason


def test_read_events_names_gzip(log: Path) -> None:
    with pytest.raises(EventLogIntegrityError) as raised:
        read_events(log)
    assert _says_gzip(str(raised.value))
    errors: list[EventLogCorruption] = []
    assert read_events(log, strict=False, errors=errors) == []
    assert [(e.line_number, _says_gzip(e.reason)) for e in errors] == [(1, True)]


def test_streaming_reader_names_gzip_on_the_first_line(log: Path) -> None:
    errors: list[EventLogCorruption] = []
    assert list(iter_events(log, strict=False, errors=errors)) == []
    assert errors and errors[0].line_number == 1 and _says_gzip(errors[0].reason)


def test_frames_report_gzip(log: Path) -> None:
    clear_cache()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        runs = noesis_nb.runs_df(log.parent.parent, cache=False)
        events = noesis_nb.events_df(log.parent.parent, cache=False)
    for frame in (runs, events):
        reasons = [p["reason"] for p in frame.attrs["errors"] if p["path"].endswith("events.jsonl")]
        assert reasons and all(_says_gzip(r) for r in reasons), reasons
