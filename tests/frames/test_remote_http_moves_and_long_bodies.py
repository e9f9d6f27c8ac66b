"""An http(s) root that moved on its server is read where it moved; a file body streamed steadily is read whole however
long it takes, while one that pauses past the idle limit is still a timeout.

Served by real ``http.server`` servers on 127.0.0.1 over hand-written runs: ``/old/`` answering 301 to ``/runs/`` loads
the runs of ``/runs/`` (their ``run_dir`` named there); a root moved to another server, or moving in a loop, is one
``RunsDirError`` saying so; an event log sent in small pieces for three times ``$NOESIS_NB_REMOTE_TIMEOUT_S`` is read
whole (the limit bounds index pages and HEADs, not file bodies); one whose pieces come slower than the idle limit is a
problem naming it and the seconds.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from http.server import SimpleHTTPRequestHandler
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.errors import RunsDirError
from noesis_nb.frames import remotefetch

from .runkit import basic_events, hand_summary, write_run
from .webserver import Answer, WebServers, closed_port, moved, problem_reasons, send_in_pieces


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    root = tmp_path / "runs"
    for ep in ("ep_a", "ep_b"):
        write_run(root, ep, basic_events(ep), summary=hand_summary(ep, task="t"))
    noesis_nb.frames.clear_cache()
    return root


def _moving(prefix: str, to: Callable[[str], str]) -> Answer:
    """An answer moving (301) every path under ``prefix`` to ``to(rest of the path)``."""

    def answer(handler: SimpleHTTPRequestHandler, head: bool) -> bool:
        if not handler.path.startswith(prefix):
            return False
        return moved(handler, to(handler.path[len(prefix) :]))

    return answer


# -- a root that moved ---------------------------------------------------------------------------------------------


def test_a_root_moved_on_its_server_loads_the_runs_where_it_moved(runs: Path, web: WebServers) -> None:
    base = web.serve(runs, _moving("/old/", lambda rest: "/runs/" + rest))
    frame = noesis_nb.runs_df(base + "/old/", cache=False)
    assert set(frame["episode_id"]) == {"ep_a", "ep_b"}
    assert set(frame["run_dir"]) == {f"{base}/runs/ep_a", f"{base}/runs/ep_b"}
    assert not frame.attrs.get("errors")
    events = noesis_nb.events_df(base + "/old/", cache=False)
    assert set(events["episode_id"]) == {"ep_a", "ep_b"} and len(events) == 2 * len(basic_events("ep_a"))


def test_a_root_moved_to_another_server_is_refused_naming_where(runs: Path, web: WebServers) -> None:
    elsewhere = f"http://127.0.0.1:{closed_port()}"
    base = web.serve(runs, _moving("/old/", lambda rest: f"{elsewhere}/runs/{rest}"))
    with pytest.raises(RunsDirError) as got:
        noesis_nb.runs_df(base + "/old/", cache=False)
    said = str(got.value)
    assert f"HTTP 301, moving it to {elsewhere}/runs/" in said and "not followed (another server)" in said, said


def test_a_root_moving_in_a_loop_is_refused_after_a_few_moves(runs: Path, web: WebServers) -> None:
    base = web.serve(runs, _moving("/old", lambda rest: "/old" + str(int(rest.strip("/") or 0) + 1) + "/"))
    with pytest.raises(RunsDirError) as got:
        noesis_nb.runs_df(base + "/old/", cache=False)
    said = str(got.value)
    assert "moved it more than 5 times" in said and "not followed" in said, said


# -- file bodies: no total limit, an idle one ----------------------------------------------------------------------


def _slow_log(runs: Path, release: threading.Event, pieces: int, pause: float, sized: bool = True) -> Answer:
    """An answer sending ep_a's event log in ``pieces`` parts ``pause`` seconds apart (its HEAD at once); ``sized``
    False: neither the HEAD nor the body says its size (read to the connection's end)."""
    body = (runs / "ep_a" / "events.jsonl").read_bytes()

    def answer(handler: SimpleHTTPRequestHandler, head: bool) -> bool:
        if handler.path.split("?")[0] != "/runs/ep_a/events.jsonl" or (head and sized):
            return False
        handler.send_response(200)
        if sized:
            handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        return head or send_in_pieces(handler, body, pieces, pause, release)

    return answer


@pytest.mark.timeout(60)
def test_an_event_log_streamed_steadily_past_the_timeout_is_read_whole(
    runs: Path, web: WebServers, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NOESIS_NB_REMOTE_TIMEOUT_S", "1")
    size = (runs / "ep_a" / "events.jsonl").stat().st_size
    # a large log at a fair pace, scaled down: the pace allowed makes this small log's allowance 1 + 10 s
    monkeypatch.setattr(remotefetch, "SLOWEST_BYTES_PER_S", size / 10)
    base = web.serve(runs, _slow_log(runs, web.release, pieces=30, pause=0.1))  # ~3 s in all, a piece each 0.1 s
    events = noesis_nb.events_df(base + "/runs/", cache=False)
    assert not events.attrs.get("errors"), problem_reasons(events)
    assert len(events[events["episode_id"] == "ep_a"]) == len(basic_events("ep_a"))


@pytest.mark.timeout(60)
def test_an_event_log_pausing_past_the_idle_limit_is_a_timeout_naming_it(
    runs: Path, web: WebServers, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NOESIS_NB_REMOTE_TIMEOUT_S", "1")
    base = web.serve(runs, _slow_log(runs, web.release, pieces=5, pause=2.5))
    events = noesis_nb.events_df(base + "/runs/", cache=False)
    reasons = problem_reasons(events)
    said = reasons.get(f"{base}/runs/ep_a/events.jsonl", "")
    assert "timed out after 1 s" in said and "NOESIS_NB_REMOTE_TIMEOUT_S" in said, reasons
    assert set(events["episode_id"]) >= {"ep_b"}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("sized", [True, False], ids=["size-said", "size-unsaid"])
def test_an_event_log_trickled_never_idle_is_stopped_once_behind_the_slowest_pace(
    runs: Path, web: WebServers, monkeypatch: pytest.MonkeyPatch, sized: bool
) -> None:
    """A server sending a piece every 0.1 s (never idle for the 1 s idle limit) for 8 s: without a pace the body is
    read whole however long; its bytes fall behind ``SLOWEST_BYTES_PER_S`` past the first second, so it is a timeout
    problem and the log is not read (its events absent, ep_b still loaded)."""
    monkeypatch.setenv("NOESIS_NB_REMOTE_TIMEOUT_S", "1")
    base = web.serve(runs, _slow_log(runs, web.release, pieces=80, pause=0.1, sized=sized))
    events = noesis_nb.events_df(base + "/runs/", cache=False)
    reasons = problem_reasons(events)
    said = reasons.get(f"{base}/runs/ep_a/events.jsonl", "")
    assert "timed out after 1 s" in said and "bytes" in said, reasons
    assert set(events["episode_id"]) >= {"ep_b"}
