"""Recorded traces (a Noetic stream log, a Taisce memory message) with odd bytes or in odd files.

A log handed over for import may be a FIFO, a folder or a device, start with a byte order mark,
end inside a character, or nest JSON deeper than any parser recurses. Each case either reads or
stops with one error naming the file or the line; none waits forever.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from noesis_nb.integrations.noetic import NoeticLogError, noetic_rows
from noesis_nb.integrations.taisce import MEMORY_PREFIX, parse_memory_message

pytestmark = pytest.mark.timeout(30)


def _stream_event(n: int) -> bytes:
    return json.dumps({"source": "framework", "type": "agent:step_started", "data": {"n": n}}).encode()


@pytest.mark.parametrize("what", ["fifo", "folder", "device"])
def test_a_noetic_log_that_is_not_a_file_is_refused_by_name(tmp_path: Path, what: str) -> None:
    log = tmp_path / "stream.jsonl"
    if what == "fifo":
        os.mkfifo(log)
    elif what == "folder":
        log.mkdir()
    else:
        log.symlink_to(os.devnull)
    with pytest.raises(NoeticLogError, match=f"{log}: a .*, not a file; pass the path of the recorded JSONL file"):
        list(noetic_rows(log))


@pytest.mark.parametrize(
    ("data", "wanted"),
    [
        (b"\xef\xbb\xbf" + _stream_event(1) + b"\n" + _stream_event(2) + b"\n", 2),  # a byte order mark
        (_stream_event(1) + b"\r\n" + _stream_event(2) + b"\r\n", 2),  # Windows line ends
        (_stream_event(1) + b"\n" + _stream_event(2)[:-9] + b"\xc3", "line 2: not UTF-8"),  # cut inside a character
        (_stream_event(1) + b"\n\xff\xfe" + _stream_event(2) + b"\n", "line 2: not UTF-8"),
        (_stream_event(1) + b"\n" + b"[" * 100_000 + b"]" * 100_000 + b"\n", "line 2: JSON nested too deeply"),
    ],
)
def test_a_noetic_log_with_odd_bytes_reads_or_names_the_line(tmp_path: Path, data: bytes, wanted: Any) -> None:
    log = tmp_path / "stream.jsonl"
    log.write_bytes(data)
    if isinstance(wanted, int):
        assert [p["data"]["n"] for _, p in noetic_rows(log)] == list(range(1, wanted + 1))
    else:
        with pytest.raises(NoeticLogError, match=wanted):
            list(noetic_rows(log))


def test_a_taisce_memory_message_nested_too_deeply_is_a_parse_error() -> None:
    info = parse_memory_message(MEMORY_PREFIX + "\n" + "[" * 100_000 + "]" * 100_000)
    assert info["parse_error"] == "JSON nested too deeply"


def test_a_harness_response_file_is_read_and_one_that_is_no_file_or_object_is_refused_by_name(tmp_path: Path) -> None:
    log = [_stream_event(1).decode()]
    harness = tmp_path / "harness_response.json"
    harness.write_bytes(b"\xef\xbb\xbf" + json.dumps({"usage": {"inputTokens": 7, "outputTokens": 3}}).encode())
    usage = [p for _, p in noetic_rows(log, harness) if p.get("scope") == "harness_response"]
    assert [(u["input_tokens"], u["output_tokens"]) for u in usage] == [(7, 3)]

    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    listed = tmp_path / "list.json"
    listed.write_text("[1, 2]")
    for value, wanted in (
        (fifo, f"{fifo}: a FIFO"),
        (tmp_path, f"{tmp_path}: a directory"),
        (listed, "expected a JSON object, got list"),
        (["usage"], "pass the HarnessResponse as a dict or the path of its JSON file"),
    ):
        with pytest.raises(NoeticLogError, match=wanted):
            list(noetic_rows(log, value))
