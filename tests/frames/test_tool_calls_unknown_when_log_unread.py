"""``runs_df.tool_calls`` of a run whose summary does not count its requests is read from its log: a log that cannot be
read whole (a ``tool.requested`` line holding a NaN, a torn line that may have been a request) leaves it <NA>,
unknown, as ``model_calls`` is, never the count of the lines that did parse."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import noesis_nb

from .runkit import event, write_run

EP = "ep_01M98FQE2ZPFVGQYX4KT3HTOOL"


def _ts(n: int) -> str:
    return f"2026-12-07T10:00:{n:02d}.000000+00:00"


def _request(n: int) -> dict:
    payload = {"event_name": "tool.requested", "tool": "fs.write_file", "request_id": f"req_{n}", "args": {"path": "/x"}}
    return event(EP, n, "tool", payload, ts=_ts(n))


_NAN_REQUEST = (
    b'{"agent_id":"a","episode_id":"' + EP.encode() + b'","id":"x9","phase":"tool","timestamp":"2026-12-07T10:00:09+00:00",'
    b'"payload":{"event_name":"tool.requested","tool":"shell.run","request_id":"req_9","score":NaN}}\n'
)
_TORN = b'{"agent_id":"a","episode_id":"' + EP.encode() + b'","phase":"to\n'


@pytest.mark.parametrize(
    "bad",
    [
        pytest.param([_NAN_REQUEST, b'{"torn": \n'], id="nan request and torn line"),
        pytest.param([_NAN_REQUEST], id="nan request"),
        pytest.param([_TORN], id="torn line"),
    ],
)
@pytest.mark.parametrize("sealed", [False, True], ids=["live", "ended"])
def test_a_log_not_read_whole_leaves_tool_calls_unknown(tmp_path: Path, bad: list[bytes], sealed: bool) -> None:
    events = [event(EP, 1, "start", {"task": "x"}, ts=_ts(1)), _request(2)]
    final = {"episode_id": EP, "outcome": "success", "finalized_at": "2026-12-07T10:00:59+00:00"} if sealed else None
    write_run(
        tmp_path,
        EP,
        events,
        extra_lines=bad,
        summary={"episode_id": EP, "task": "t", "outcome": "success", "duration_sec": 3.0},
        state={"episode_id": EP, "status": "ok", "task": "t"},
        final=final,
    )
    runs = noesis_nb.runs_df(tmp_path)
    assert runs.loc[0, "tool_calls"] is pd.NA, runs[["tool_calls", "model_calls"]]
    assert runs.attrs["errors"], "the unreadable line is reported"


def test_a_log_read_whole_counts_its_requests(tmp_path: Path) -> None:
    events = [event(EP, 1, "start", {"task": "x"}, ts=_ts(1)), _request(2), _request(3)]
    write_run(
        tmp_path,
        EP,
        events,
        extra_lines=[b"\n", b"   \n"],  # blank lines are no event, and none is unread
        summary={"episode_id": EP, "task": "t", "outcome": "success", "duration_sec": 3.0},
        state={"episode_id": EP, "status": "ok", "task": "t"},
    )
    assert noesis_nb.runs_df(tmp_path).loc[0, "tool_calls"] == 2
