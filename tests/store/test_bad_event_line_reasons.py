"""A bad event line is one problem naming what stands where and the fix: a byte that is no UTF-8, a NaN or Infinity
(as Python's json.dumps writes them by default), a NUL byte."""

from __future__ import annotations

import json
import shutil
import warnings
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb import frames


def _call_line(episode: str, tokens: bytes, tail: bytes = b"") -> bytes:
    return (
        b'{"agent_id":"a","episode_id":"' + episode.encode() + b'","evidence_ids":[],"id":"mc-1","payload":'
        b'{"event_name":"model.call","model":"gpt-4o","input_tokens":' + tokens + b',"output_tokens":5,"t":"x"},'
        b'"phase":"model","timestamp":"2026-12-07T11:05:29.791931+00:00"}' + tail + b"\n"
    )


CASES = {
    "not utf-8": (lambda ep: _call_line(ep, b"1").replace(b'"t":"x"', b'"t":"\xff"'), ["byte 0xff", "UTF-8"]),
    "NaN": (lambda ep: _call_line(ep, json.dumps(float("nan")).encode()), ["NaN at column", "null", "allow_nan=False"]),
    "Infinity": (lambda ep: _call_line(ep, json.dumps(float("inf")).encode()), ["Infinity at column", "allow_nan=False"]),
    "-Infinity": (lambda ep: _call_line(ep, json.dumps(float("-inf")).encode()), ["-Infinity at column", "null"]),
    "NUL": (lambda ep: _call_line(ep, b"1", b"\x00"), ["0x00 (NUL)", "this line is not read"]),
}


@pytest.mark.parametrize("case", list(CASES))
def test_one_problem_a_bad_line_naming_it_and_the_fix(tmp_path: Path, smoke_run: Path, case: str) -> None:
    make, words = CASES[case]
    run = tmp_path / "runs" / smoke_run.name
    shutil.copytree(smoke_run, run)
    (run / "manifest.json").unlink()
    log = run / "events.jsonl"
    lines = log.read_bytes().splitlines(keepends=True)
    lines.insert(5, make(smoke_run.name))
    log.write_bytes(b"".join(lines))
    frames.clear_cache()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for load in (noesis_nb.runs_df, noesis_nb.events_df):
            at = [p for p in load(tmp_path / "runs").attrs["errors"] if p["line"] == 6]
            assert len(at) == 1, (load.__name__, at)
            reason = at[0]["reason"]
            assert all(w in reason for w in words), reason
            assert "surrogates" not in reason and "unexpected" not in reason, reason
