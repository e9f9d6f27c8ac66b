"""An http(s) runs root whose server misbehaves is a bounded wait and a problem naming what, never a hang, a dead
kernel or a silently empty frame; a credential in the URL is refused, never shown.

Served by real ``http.server`` servers on 127.0.0.1 over hand-written runs: a server that takes the request and never
answers (the listing, one summary) or trickles a byte at a time is a timeout naming the URL and the seconds
(``$NOESIS_NB_REMOTE_TIMEOUT_S``); an event log with no size or a size past ``MAX_REMOTE_BYTES`` is refused naming the
limit; a run folder whose own listing answers 500, 403 or moves to another host is that folder's problem while the
others load; a listing linking another host (absolutely or ``//host/…``) is a problem per link, a folder linked
without its ``/`` is read; a token as the URL's user part is refused; ``HTTP://`` and a ``#fragment`` are read.
"""

from __future__ import annotations

from http.server import SimpleHTTPRequestHandler
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.errors import InvalidOptionError, RunsDirError
from noesis_nb.frames import remotefetch, webmoves

from .runkit import basic_events, hand_summary, write_run
from .webserver import WebServers, closed_port, problem_reasons

TOKEN = "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tV9wX1yZ2b4D"


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    root = tmp_path / "runs"
    for ep in ("ep_a", "ep_b", "ep_c"):
        write_run(root, ep, basic_events(ep), summary=hand_summary(ep, task="t"))
    noesis_nb.frames.clear_cache()
    return root


# -- bounded waits -------------------------------------------------------------------------------------------------


@pytest.mark.timeout(60)  # before: aiohttp's 300 s default, or forever on a trickle
def test_a_listing_the_server_never_answers_is_an_error_naming_the_url_and_the_seconds(
    runs: Path, web: WebServers, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NOESIS_NB_REMOTE_TIMEOUT_S", "1")

    def hang(handler: SimpleHTTPRequestHandler, head: bool) -> bool:
        web.release.wait(50)
        return True

    url = web.serve_root(runs, hang)
    with pytest.raises(RunsDirError) as got:
        noesis_nb.runs_df(url + "?sig=Zq81mVbT3LkP0xW9sRfE7yUhJcN2aDgQ", cache=False)
    said = str(got.value)
    assert url.rstrip("/") in said and "timed out after 1 s" in said and "NOESIS_NB_REMOTE_TIMEOUT_S" in said, said
    assert "Zq81mVbT3LkP0xW9" not in said


@pytest.mark.timeout(60)
@pytest.mark.parametrize("how", ["hang", "trickle"])
def test_a_summary_the_server_never_finishes_is_one_problem_naming_it_and_the_other_runs_load(
    runs: Path, web: WebServers, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    monkeypatch.setenv("NOESIS_NB_REMOTE_TIMEOUT_S", "1")

    def slow(handler: SimpleHTTPRequestHandler, head: bool) -> bool:
        if not handler.path.startswith("/runs/ep_b/summary.json"):
            return False
        if how == "hang":
            web.release.wait(50)
            return True
        handler.send_response(200)
        handler.send_header("Content-Length", "100000")
        handler.send_header("ETag", '"x"')
        handler.end_headers()
        while not head and not web.release.is_set():  # one byte now and then, each after more than the idle limit
            try:
                handler.wfile.write(b" ")
                handler.wfile.flush()
            except OSError:
                return True
            web.release.wait(2.5)
        return True

    url = web.serve_root(runs, slow)
    frame = noesis_nb.runs_df(url, cache=False)
    assert set(frame["episode_id"]) == {"ep_a", "ep_b", "ep_c"}
    reasons = problem_reasons(frame)
    slow_one = [r for p, r in reasons.items() if p.endswith("/ep_b/summary.json") and "timed out" in r]
    assert slow_one and "timed out after 1 s" in slow_one[0] and "NOESIS_NB_REMOTE_TIMEOUT_S" in slow_one[0], reasons
    assert not [p for p in reasons if "/ep_a/" in p or "/ep_c/" in p]


def test_a_timeout_that_is_no_number_of_seconds_is_refused_naming_the_variable(
    runs: Path, web: WebServers, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NOESIS_NB_REMOTE_TIMEOUT_S", "soon")
    with pytest.raises(InvalidOptionError, match="NOESIS_NB_REMOTE_TIMEOUT_S=soon is no number of seconds"):
        noesis_nb.runs_df(web.serve_root(runs), cache=False)


# -- bounded reads ---------------------------------------------------------------------------------------------------


@pytest.mark.timeout(60)
@pytest.mark.parametrize("said", ["unsaid", "past"])
def test_an_event_log_past_the_remote_limit_is_refused_naming_it_and_the_limit(
    runs: Path, web: WebServers, monkeypatch: pytest.MonkeyPatch, said: str
) -> None:
    limit = 1 << 20
    monkeypatch.setattr(remotefetch, "MAX_REMOTE_BYTES", limit, raising=False)
    line = (runs / "ep_b" / "events.jsonl").read_bytes().splitlines(keepends=True)[0]

    def big(handler: SimpleHTTPRequestHandler, head: bool) -> bool:
        if not handler.path.startswith("/runs/ep_b/events.jsonl"):
            return False
        handler.send_response(200)
        if said == "past":  # a size past the limit (the body never sent): refused before it is asked for
            handler.send_header("Content-Length", str(10 * limit))
        handler.end_headers()
        if not head and said == "unsaid":  # no size, a body 4 times the limit, then the connection closed
            handler.close_connection = True
            handler.wfile.write(line * (4 * limit // len(line)))
        return True

    url = web.serve_root(runs, big)
    for frame in (noesis_nb.events_df(url, cache=False), noesis_nb.runs_df(url, cache=False)):
        reasons = problem_reasons(frame)
        log = [r for p, r in reasons.items() if p.endswith("/ep_b/events.jsonl") and "MAX_REMOTE_BYTES" in r]
        assert log and f"{limit:,} bytes" in log[0] and "not read" in log[0], reasons
        assert ("its size said" in log[0]) == (said == "past")
    assert set(noesis_nb.events_df(url, cache=False)["episode_id"]) == {"ep_a", "ep_c"}


# -- run folders whose own listing fails ---------------------------------------------------------------------------


def test_run_folders_whose_listing_fails_or_moves_away_are_each_a_problem_and_the_others_load(
    runs: Path, web: WebServers
) -> None:
    write_run(runs, "ep_d", basic_events("ep_d"))
    elsewhere = f"http://127.0.0.1:{closed_port()}"

    def failing(handler: SimpleHTTPRequestHandler, head: bool) -> bool:
        path = handler.path.split("?")[0]
        if path.startswith("/runs/ep_a"):
            handler.send_response(302)
            handler.send_header("Location", elsewhere + path)
            handler.send_header("Content-Length", "0")
            handler.end_headers()
            return True
        for ep, status in (("ep_b", 500), ("ep_c", 403)):
            if path.startswith(f"/runs/{ep}"):
                handler.send_error(status)
                return True
        return False

    url = web.serve_root(runs, failing)
    for load in (noesis_nb.runs_df, noesis_nb.events_df, noesis_nb.usage_df):
        frame = load(url, cache=False)
        assert set(frame["episode_id"]) == {"ep_d"}, load.__name__
        reasons = problem_reasons(frame)
        for ep, said in (("ep_a", f"HTTP 302, moving it to {elsewhere}/runs/ep_a/"), ("ep_b", "HTTP 500"), ("ep_c", "HTTP 403")):
            reason = reasons.get(url + ep, "")
            assert "listing it failed" in reason and said in reason and "unknown, not absent" in reason, (ep, reasons)


def test_a_root_whose_every_run_folder_moves_away_is_an_error_naming_them_not_an_empty_frame(runs: Path, web: WebServers) -> None:
    elsewhere = f"http://127.0.0.1:{closed_port()}"

    def away(handler: SimpleHTTPRequestHandler, head: bool) -> bool:
        path = handler.path.split("?")[0]
        if not path.startswith("/runs/ep_"):
            return False
        handler.send_response(302)
        handler.send_header("Location", elsewhere + path)
        handler.end_headers()
        return True

    url = web.serve_root(runs, away)
    with pytest.raises(RunsDirError) as got:
        noesis_nb.events_df(url, cache=False)
    said = str(got.value)
    assert "lists no run that could be read" in said and url + "ep_a" in said and "HTTP 302" in said, said


# -- listing links ---------------------------------------------------------------------------------------------------


def test_listing_links_to_another_host_are_problems_and_a_folder_linked_without_its_slash_is_read(
    runs: Path, web: WebServers
) -> None:
    seen: list[str] = []
    other = f"127.0.0.2:{closed_port()}"
    index = (
        f'<html><body><a href="ep_a/">a</a> <a href="http://{other}/ep_b/">b</a> <a href="//{other}/ep_c/">c</a> '
        '<a href="ep_d">d</a> <a href="../">up</a> <a href="?C=N;O=D">sort</a></body></html>'
    ).encode()
    write_run(runs, "ep_d", basic_events("ep_d"))

    def page(handler: SimpleHTTPRequestHandler, head: bool) -> bool:
        if handler.path.split("?")[0] != "/runs/":
            return False
        handler.send_response(200)
        handler.send_header("Content-Type", "text/html")
        handler.send_header("Content-Length", str(len(index)))
        handler.end_headers()
        if not head:
            handler.wfile.write(index)
        return True

    url = web.serve_root(runs, page, seen)
    frame = noesis_nb.runs_df(url, cache=False)
    assert set(frame["episode_id"]) == {"ep_a", "ep_d"}
    assert frame.set_index("episode_id").loc["ep_d", "input_tokens"] == 1050
    reasons = problem_reasons(frame)
    for ep in ("ep_b", "ep_c"):
        reason = reasons.get(f"http://{other}/{ep}/", "")
        assert "another host" in reason and "not followed" in reason, (ep, reasons)
    assert len(reasons) == 2, reasons  # the parent and sort links are no links of the listing
    assert not [line for line in seen if " //" in line]  # a protocol-relative link is never asked of this host


# -- the URL itself --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("user", [TOKEN, "glpat-Ab3dE5fG7hJ9kL1mN3pQ", "ana", f"x-access-token:{TOKEN}"])
def test_a_url_with_a_user_part_is_refused_without_showing_it(runs: Path, web: WebServers, user: str) -> None:
    url = web.serve_root(runs).replace("http://", f"http://{user}@")
    for load in (noesis_nb.runs_df, noesis_nb.events_df):
        with pytest.raises(InvalidOptionError) as got:
            load(url, cache=False)
        said = str(got.value)
        assert user not in said and "credentials before its host" in said and "'headers'" in said, said


def test_an_upper_case_scheme_and_a_fragment_read_the_root_and_the_fragment_is_shown_nowhere(runs: Path, web: WebServers) -> None:
    url = web.serve_root(runs)
    secret = "Zq8r3kVbXw9Lm2Pq2TtY7uJfAbCd"
    for given in (url.replace("http://", "HTTP://"), url + "#top", url + f"#access_token={secret}"):
        frame = noesis_nb.runs_df(given, cache=False)
        assert set(frame["episode_id"]) == {"ep_a", "ep_b", "ep_c"}, given
        assert all(d.startswith(url) and "#" not in d for d in frame["run_dir"])
    missing = url.replace("/runs/", "/nothing/") + f"#access_token={secret}"
    with pytest.raises(Exception) as got:
        noesis_nb.runs_df(missing, cache=False)
    assert secret not in str(got.value) and "#" not in str(got.value) and "RecursionError" not in str(got.value)


def test_a_bounded_wait_is_set_on_an_http_source_unless_one_is_given(monkeypatch: pytest.MonkeyPatch) -> None:
    import aiohttp

    monkeypatch.setenv("NOESIS_NB_REMOTE_TIMEOUT_S", "7")
    options, seconds = remotefetch.with_timeout({"headers": {"Authorization": "Bearer x"}})
    timeout = options["client_kwargs"]["timeout"]
    assert seconds == 7 and timeout.total is None and timeout.sock_read == 7 and timeout.connect == 7
    assert remotefetch.whole_within(seconds)["timeout"].total == 7  # index pages and HEADs only
    assert options["headers"] == {"Authorization": "Bearer x"}
    monkeypatch.delenv("NOESIS_NB_REMOTE_TIMEOUT_S")
    default = remotefetch.with_timeout(None)[0]["client_kwargs"]["timeout"]
    assert default.total is None and default.sock_read == remotefetch.IDLE_S
    theirs = aiohttp.ClientTimeout(total=3)
    kept, said = remotefetch.with_timeout({"client_kwargs": {"timeout": theirs}})
    assert said is None and kept["client_kwargs"]["timeout"] is theirs  # moves are held to the one rule all the same
    assert kept["client_kwargs"]["trace_configs"] == [webmoves.guard()]
