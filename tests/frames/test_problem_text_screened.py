"""A problem a frame says (``df.attrs["errors"]``, or raised with ``strict=True``) never quotes a value the frame's rows
hide: a password a run reveals, pasted where a number belongs (``input_tokens``, ``summary.duration_sec``), is
redacted in every frame's problem texts, as ``events_df`` redacts it, and so is a value another run of the load
reveals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.frames.problems import RunLoadError

from .runkit import event, fresh_password, write_run

A = "ep_01M98FQE2ZPFVGQYX4KT3HERRA"
B = "ep_01M98FQE2ZPFVGQYX4KT3HERRB"
FRAMES = ("runs_df", "events_df", "usage_df", "tools_df")


def _call(ep: str, n: int, input_tokens: object) -> dict:
    payload = {
        "event_name": "model.call",
        "model": "gpt-4o",
        "provider": "openai",
        "input_tokens": input_tokens,
        "output_tokens": 10,
        "latency_ms": 5.0,
    }
    return event(ep, n, "model", payload, ts=f"2026-12-07T10:00:{n:02d}.000000+00:00")


def _run(root: Path, ep: str, named: str, misplaced: str | None) -> None:
    events = [
        event(ep, 1, "start", {"task": "x"}, ts="2026-12-07T10:00:01.000000+00:00"),
        event(ep, 2, "reason", {"cmd": f"PGPASSWORD={named} psql"}, ts="2026-12-07T10:00:02.000000+00:00"),
        _call(ep, 3, misplaced if misplaced is not None else 100),
    ]
    summary = {"episode_id": ep, "task": "t", "outcome": "success", "duration_sec": misplaced if misplaced else 3.0}
    write_run(root, ep, events, summary=summary, state={"episode_id": ep, "status": "ok", "task": "t"})


@pytest.mark.parametrize("frame", FRAMES)
def test_a_value_the_run_reveals_is_quoted_by_no_problem(tmp_path: Path, frame: str) -> None:
    value = fresh_password()
    _run(tmp_path, A, value, value)
    df = getattr(noesis_nb, frame)(tmp_path)
    said = json.dumps(df.attrs["errors"], default=str)
    assert value not in said, said
    if frame in ("runs_df", "events_df", "usage_df"):  # the misplaced value is reported, redacted
        assert "input_tokens" in said and "[REDACTED" in said, said
    with pytest.raises(RunLoadError) as raised:
        getattr(noesis_nb, frame)(tmp_path, strict=True, cache=False)
    assert value not in str(raised.value)


def test_a_value_another_run_reveals_is_quoted_by_no_problem(tmp_path: Path) -> None:
    value = fresh_password()
    _run(tmp_path, A, value, None)  # names it as a password
    _run(tmp_path, B, "other-and-harmless", value)  # quotes it where a number belongs
    for frame in FRAMES:
        said = json.dumps(getattr(noesis_nb, frame)(tmp_path).attrs["errors"], default=str)
        assert value not in said, (frame, said)
    runs = noesis_nb.runs_df(tmp_path)
    assert any("duration_sec" in e["reason"] for e in runs.attrs["errors"])
