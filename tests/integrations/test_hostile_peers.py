"""Hostile peers: an AG-UI server on 127.0.0.1 that misbehaves, and malformed recorded traces.

Every case must end in a sealed run that the Noēsis checker accepts, ``error`` with one
message naming what the peer sent, nothing received before the failure lost, no secret on
disk or in a view, and the event loop free while the peer stalls.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import threading
import time
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("ag_ui.core")
pytest.importorskip("httpx")

from noesis_nb.integrations.agui import AGUIAdapter, AGUIHttpAgent
from tests.compat.checker import check_run

from .helpers import disk_events, drive, from_source, run

OPENAI = "sk-" + "Zq7" * 13 + "x"  # sk- + 40 alnum
GITHUB = "ghp_" + "Ab3d" * 9  # ghp_ + 36

START = {"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"}
END = {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}


def _sse(*events: dict[str, Any]) -> bytes:
    return b"".join(f"data: {json.dumps(e)}\n\n".encode() for e in events)


def _text(text: str, mid: str = "m1") -> list[dict[str, Any]]:
    return [
        {"type": "TEXT_MESSAGE_START", "messageId": mid, "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": mid, "delta": text},
        {"type": "TEXT_MESSAGE_END", "messageId": mid},
    ]


class _Handler(BaseHTTPRequestHandler):
    """``POST /<scenario>``: the scenario function writes whatever it likes to the socket."""

    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        scenario = SCENARIOS[self.path.strip("/")]
        try:
            scenario(self)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def head(self, content_type: str = "text/event-stream", status: int = 200, **extra: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        for k, v in extra.items():
            self.send_header(k, v)
        self.end_headers()

    def send(self, data: bytes) -> None:
        self.wfile.write(data)
        self.wfile.flush()

    def cut(self) -> None:
        """Close the socket now (no clean end of the body)."""
        self.wfile.flush()
        self.connection.shutdown(socket.SHUT_RDWR)
        self.close_connection = True


def _cut_mid_event(h: _Handler) -> None:
    h.head()
    h.send(_sse(START, *_text("kept before the cut")))
    h.send(b'data: {"type":"TEXT_MESSAGE_START","messa')
    h.cut()


def _cut_after_start(h: _Handler) -> None:
    h.head(**{"Content-Length": "100000"})
    h.send(_sse(START, {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"}))
    h.send(_sse({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "half an answer"}))
    h.cut()


def _stall(h: _Handler) -> None:
    h.head()
    h.send(_sse(START, *_text("before the stall")))
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:  # silent, socket open, until the client goes away
        time.sleep(0.05)
        try:
            h.connection.settimeout(0.01)
            if h.connection.recv(1, socket.MSG_PEEK) == b"":
                return
        except (TimeoutError, BlockingIOError):
            pass
        except OSError:
            return


def _args_without_start(h: _Handler) -> None:
    h.head()
    h.send(
        _sse(
            START,
            {"type": "TOOL_CALL_ARGS", "toolCallId": "ghost", "delta": '{"a": 1}'},
            {"type": "TOOL_CALL_END", "toolCallId": "ghost"},
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": "unknown", "delta": "orphan"},
            END,
            END,
        )
    )


def _duplicate_ids(h: _Handler) -> None:
    h.head()
    h.send(_sse(START, *_text("first"), *_text("second"), END))


def _after_finished(h: _Handler) -> None:  # a message, then a RUN_ERROR, after the run finished
    h.head()
    h.send(_sse(START, *_text("first"), END, *_text("AFTER-FINISH", "m2"), {"type": "RUN_ERROR", "message": "late error"}))


def _error_after_finished(h: _Handler) -> None:  # AG-UI allows a RUN_ERROR there: the run ends error all the same
    h.head()
    h.send(_sse(START, *_text("first"), END, {"type": "RUN_ERROR", "message": "late error"}))


def _second_run(h: _Handler) -> None:  # a new RUN_STARTED after RUN_FINISHED: a next run on the same stream
    h.head()
    second = {"threadId": "t1", "runId": "r2"}
    h.send(_sse(START, *_text("first"), END, {"type": "RUN_STARTED", **second}, *_text("SECOND RUN", "m3")))
    h.send(_sse({"type": "RUN_FINISHED", **second}))


_HELD_OPEN = threading.Event()


def _open_after_finished(h: _Handler) -> None:  # the stream kept open, silent, after RUN_FINISHED
    h.head()
    h.send(_sse(START, *_text("first"), END))
    _HELD_OPEN.wait(30)


def _huge_line(h: _Handler) -> None:
    h.head()
    h.send(_sse(START))
    h.send(b'data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"' + b"A" * (40 << 20) + b'"}\n\n')
    h.send(_sse(END))


def _bad_utf8(h: _Handler) -> None:
    h.head()
    h.send(_sse(START, {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"}))
    h.send(b'data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"bad \xff\xfe bytes"}\n\n')
    h.send(_sse({"type": "TEXT_MESSAGE_END", "messageId": "m1"}, END))


def _html_page(h: _Handler) -> None:
    h.head("text/html")
    h.send(b"<!doctype html><html><body><h1>Welcome to nginx!</h1></body></html>\n")


def _json_body(h: _Handler) -> None:
    h.head("application/json")
    h.send(json.dumps({"detail": "use /agent/run"}).encode())


def _unauthorized(h: _Handler) -> None:
    h.head("text/html", status=401)
    h.send(f"<html><body><h1>401 Unauthorized</h1>Authorization: Bearer {OPENAI} was refused</body></html>".encode())


def _server_error(h: _Handler) -> None:
    h.head("text/html", status=500)
    h.send(b"<html><body><h1>500 Internal Server Error</h1></body></html>")


def _bad_gzip(h: _Handler) -> None:
    """A body that says it is gzip and is not (a misconfigured proxy): no event can be read."""
    h.head(**{"Content-Encoding": "gzip"})
    h.send(b"this is not gzip at all\n" * 20)


def _gzip_broken_after_start(h: _Handler) -> None:
    """A gzip stream that decodes to RUN_STARTED and a message, then turns to bytes no inflater reads."""
    gzip = zlib.compressobj(wbits=31)
    h.head(**{"Content-Encoding": "gzip"})
    h.send(gzip.compress(_sse(START, *_text("kept before the bad bytes"))) + gzip.flush(zlib.Z_SYNC_FLUSH))
    time.sleep(0.2)
    h.send(b"\xff" * 64)


def _redirect(h: _Handler) -> None:
    h.head("text/html", status=307, Location="/answer")


def _answer(h: _Handler) -> None:
    h.head()
    h.send(_sse(START, *_text("redirected answer"), END))


def _secrets(h: _Handler) -> None:
    h.head()
    h.send(
        _sse(
            START,
            *_text(f"your key is {OPENAI} and <script>alert(1)</script>"),
            {"type": "TOOL_CALL_START", "toolCallId": "tc1", "toolCallName": "push", "parentMessageId": "m1"},
            {"type": "TOOL_CALL_ARGS", "toolCallId": "tc1", "delta": json.dumps({"token": GITHUB, "note": f"k={OPENAI}"})},
            {"type": "TOOL_CALL_END", "toolCallId": "tc1"},
            {**END, "result": {"echo": GITHUB}},
        )
    )


def _secret_then_cut(h: _Handler) -> None:
    h.head()
    h.send(_sse(START, {"type": "TOOL_CALL_START", "toolCallId": "tc1", "toolCallName": "push"}))
    h.send(_sse({"type": "TOOL_CALL_ARGS", "toolCallId": "tc1", "delta": '{"token": "' + GITHUB}))
    h.cut()


def _event_without_end(h: _Handler) -> None:
    """One event's ``data:`` lines, each small, and never the blank line that ends it (until the client leaves)."""
    h.head()
    h.send(_sse(START) + b'data: {"type":"STATE_SNAPSHOT","snapshot":[\n')
    deadline = time.monotonic() + 8
    while time.monotonic() < deadline:
        h.send(b'data: "' + b"x" * 32_000 + b'",\n')


def _endless_pieces(h: _Handler) -> None:
    """One message streamed in pieces that never end (until the client leaves)."""
    h.head()
    h.send(_sse(START, {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"}))
    piece = _sse({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "the quick brown fox " * 1600})
    deadline = time.monotonic() + 8
    while time.monotonic() < deadline:
        h.send(piece)


def _key_cut_mid_event(h: _Handler) -> None:
    h.head()
    h.send(_sse(START) + b'data: {"type":"RUN_ERROR","message":"' + b"a" * 50 + f" {GITHUB} {OPENAI}".encode())
    h.cut()


def _duplicate_type(h: _Handler) -> None:
    h.head()
    h.send(_sse(START, *_text("kept")))
    h.send(b'data: {"type":"TEXT_MESSAGE_START","type":"RUN_FINISHED","threadId":"t1","runId":"r1","messageId":"m9"}\n\n')
    h.send(_sse(END))


def _duplicate_arg(h: _Handler) -> None:
    """A tool call whose args, joined from their pieces, name ``path`` twice, then an interrupt asking to run it."""
    h.head()
    h.send(
        _sse(
            START,
            {"type": "TOOL_CALL_START", "toolCallId": "tc1", "toolCallName": "delete_file"},
            {"type": "TOOL_CALL_ARGS", "toolCallId": "tc1", "delta": '{"path": "ok.txt", '},
            {"type": "TOOL_CALL_ARGS", "toolCallId": "tc1", "delta": '"path": "/etc/passwd"}'},
            {"type": "TOOL_CALL_END", "toolCallId": "tc1"},
            {**END, "outcome": {"type": "interrupt", "interrupts": [{"id": "i1", "toolCallId": "tc1"}]}},
        )
    )


def _duplicate_interrupt(h: _Handler) -> None:
    """A legacy ``CUSTOM on_interrupt`` whose JSON value names ``path`` twice."""
    h.head()
    value = '{"message": "Delete ok.txt?", "path": "ok.txt", "path": "/etc/passwd"}'
    h.send(_sse(START, {"type": "CUSTOM", "name": "on_interrupt", "value": value}, END))


SLOW_WORDS = [f"word{n} " for n in range(16)]


def _slow_stream(h: _Handler) -> None:
    """A long answer streamed one word every 0.15 s: 2.4 s in all, the idle timeout of the test 0.8 s."""
    h.head()
    h.send(_sse(START, {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"}))
    for word in SLOW_WORDS:
        time.sleep(0.15)
        h.send(_sse({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": word}))
    h.send(_sse({"type": "TEXT_MESSAGE_END", "messageId": "m1"}, END))


def _empty_deltas(h: _Handler) -> None:
    """Empty pieces of a message (and of a tool call), every 0.05 s, until the client leaves: busy, saying nothing."""
    h.head()
    h.send(
        _sse(
            START,
            {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
            {"type": "TOOL_CALL_START", "toolCallId": "tc1", "toolCallName": "wait"},
        )
    )
    empty = _sse(
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": ""},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "tc1", "delta": ""},
    )
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        time.sleep(0.05)
        h.send(empty + b": heartbeat\n\n")


PROJ = "sk-proj-" + "Qw8eR2tY6uI0oP4aS7dF1gH5jK9lZ3xC" + "Vb2Nm6" * 3
LEARNED = 'pa"ss w\u00f6rd 42!'  # learned from the state below; no key alphabet holds it
STREAMED_KEYS = (PROJ, GITHUB, LEARNED, json.dumps(LEARNED)[1:-1])


def _pieces(text: str, sizes: tuple[int, ...]) -> list[str]:
    """``text`` in pieces of the given sizes, round and round (1-character pieces among them)."""
    out, at, n = [], 0, 0
    while at < len(text):
        out.append(text[at : at + sizes[n % len(sizes)]])
        at, n = at + sizes[n % len(sizes)], n + 1
    return out


def _split_keys(h: _Handler) -> None:
    """Keys streamed over many small pieces of a message, a tool call's arguments and a reasoning message."""
    h.head()
    text = f"The weather is fine today. \u4eca\u5929\u5929\u6c14\u5f88\u597d\u3002 Your key is {PROJ}, the token {GITHUB}."
    args = json.dumps({"token": GITHUB, "note": f"k={PROJ}", "login": f"user {LEARNED}"})
    thought = f"I saw {PROJ} in the env"
    h.send(_sse(START, {"type": "STATE_SNAPSHOT", "snapshot": {"password": LEARNED}}))
    h.send(_sse({"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"}))
    for piece in _pieces(text, (1, 3, 1, 2, 7)):
        h.send(_sse({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": piece}))
    h.send(_sse({"type": "TEXT_MESSAGE_END", "messageId": "m1"}))
    h.send(_sse({"type": "TOOL_CALL_START", "toolCallId": "tc1", "toolCallName": "push", "parentMessageId": "m1"}))
    for piece in _pieces(args, (2, 1, 5)):
        h.send(_sse({"type": "TOOL_CALL_ARGS", "toolCallId": "tc1", "delta": piece}))
    h.send(_sse({"type": "TOOL_CALL_END", "toolCallId": "tc1"}, {"type": "REASONING_MESSAGE_START", "messageId": "r1"}))
    for piece in _pieces(thought, (1,)):
        h.send(_sse({"type": "REASONING_MESSAGE_CONTENT", "messageId": "r1", "delta": piece}))
    h.send(_sse({"type": "REASONING_MESSAGE_END", "messageId": "r1"}, END))


SCENARIOS = {
    "split_keys": _split_keys,
    "slow_stream": _slow_stream,
    "empty_deltas": _empty_deltas,
    "duplicate_arg": _duplicate_arg,
    "duplicate_interrupt": _duplicate_interrupt,
    "cut_mid_event": _cut_mid_event,
    "cut_after_start": _cut_after_start,
    "stall": _stall,
    "args_without_start": _args_without_start,
    "duplicate_ids": _duplicate_ids,
    "after_finished": _after_finished,
    "error_after_finished": _error_after_finished,
    "second_run": _second_run,
    "open_after_finished": _open_after_finished,
    "huge_line": _huge_line,
    "bad_utf8": _bad_utf8,
    "html_page": _html_page,
    "json_body": _json_body,
    "redirect": _redirect,
    "bad_gzip": _bad_gzip,
    "gzip_broken_after_start": _gzip_broken_after_start,
    "unauthorized": _unauthorized,
    "server_error": _server_error,
    "answer": _answer,
    "secrets": _secrets,
    "secret_then_cut": _secret_then_cut,
    "event_without_end": _event_without_end,
    "duplicate_type": _duplicate_type,
    "key_cut_mid_event": _key_cut_mid_event,
    "endless_pieces": _endless_pieces,
}


class _Server(ThreadingHTTPServer):
    daemon_threads = True


@pytest.fixture(scope="module")
def server():
    httpd = _Server(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield lambda name: f"http://127.0.0.1:{httpd.server_address[1]}/{name}"
    httpd.shutdown()
    httpd.server_close()


def _ended(handle: Any, match: str) -> str:
    """The run is sealed, checker-clean, ``error``, with one message matching ``match`` (no traceback)."""
    assert handle.status == "error"
    assert check_run(handle.run_dir) == []
    assert (handle.run_dir / "final.json").exists()
    with pytest.raises(Exception, match=match) as caught:
        handle.result()
    message = str(caught.value)
    assert "Traceback" not in message and "\n" not in message
    return message


def _agui(handle: Any) -> list[dict[str, Any]]:
    return [e["payload"] for e in from_source(disk_events(handle), "agui")]


@pytest.mark.parametrize(
    "scenario, match, kept",
    [
        (
            "cut_mid_event",
            r"line 9: the stream ended in the middle of an event .*closed the connection early",
            "kept before the cut",
        ),
        ("cut_after_start", r"the connection broke after 3 event\(s\) \(RemoteProtocolError", "half an answer"),
        ("html_page", r"HTTP 200 with Content-Type 'text/html', not an SSE stream: '<!doctype html>.*nginx", None),
        ("json_body", r"Content-Type 'application/json', not an SSE stream: .*use /agent/run", None),
        ("redirect", r"answered HTTP 307, a redirect to '/answer'; pass the URL it names", None),
        (
            "bad_gzip",
            r"body could not be decoded as its Content-Encoding says \(DecodingError: .*check its compression settings$",
            None,
        ),
        (
            "gzip_broken_after_start",
            r"could not be decoded as its Content-Encoding says after 4 event\(s\) .*the events received before were kept",
            "kept before the bad bytes",
        ),
        (
            "unauthorized",
            r"answered HTTP 401: '<html><body><h1>401 Unauthorized</h1>Authorization: Bearer \[REDACTED\].*refused this "
            r"request's credentials; give AGUIHttpAgent the token it expects with headers= \(e\.g\. an Authorization",
            None,
        ),
        (
            "server_error",
            r"answered HTTP 500: .*Internal Server Error.*the agent server failed while answering: see its log",
            None,
        ),
    ],
)
def test_a_broken_or_wrong_answer_is_named_and_what_came_before_is_kept(server, runs_dir, scenario, match, kept):
    handle, _ = run("hi", AGUIAdapter(AGUIHttpAgent(server(scenario))), runs_dir, idle_timeout_s=5)
    message = _ended(handle, match)
    assert "is the agent server running" not in message and "without RUN_FINISHED" not in message
    texts = [p["text"] for p in _agui(handle) if p["kind"] == "message"]
    assert texts == ([kept] if kept else [])


def _drive_while_ticking(
    url: str, runs_dir, idle_timeout_s: float, timeout: float
) -> tuple[Any, list[tuple[float, float]], float]:
    """Run one episode against ``url`` while another coroutine ticks every 50 ms: (handle, each tick's wall-clock and
    loop-thread CPU time, seconds taken). A gap in wall-clock ticks is also what a busy machine makes (another process
    on both cores, a full collection of a long test process's heap); the loop's own CPU over a gap is what the code
    under test spent holding it."""
    ticks: list[tuple[float, float]] = []

    async def main():
        async def ticker():
            while True:
                ticks.append((time.monotonic(), time.thread_time()))
                await asyncio.sleep(0.05)

        tick = asyncio.create_task(ticker())
        try:
            return await drive("hi", AGUIAdapter(AGUIHttpAgent(url)), runs_dir, idle_timeout_s=idle_timeout_s, timeout=timeout)
        finally:
            tick.cancel()

    began = time.monotonic()
    handle, _ = asyncio.run(main())
    return handle, ticks, time.monotonic() - began


def test_an_enormous_sse_line_is_refused_quickly_without_blocking_the_loop(server, runs_dir):
    handle, ticks, seconds = _drive_while_ticking(server("huge_line"), runs_dir, idle_timeout_s=5, timeout=15)
    assert seconds < 8
    _ended(handle, r"one SSE line is over 16777216 bytes .*max_line_bytes=")
    held = [b[1] - a[1] for a, b in zip(ticks, ticks[1:])]  # reading 16 MB on the loop holds it for seconds of CPU
    assert held and max(held) < 1.0, f"the event loop was held for {max(held):.1f} s of CPU between two ticks"
    assert [p["kind"] for p in _agui(handle)] == ["run_started"]


def test_an_event_of_endless_data_lines_is_capped_like_one_line(server, runs_dir):
    """Each ``data:`` line is small, so the per-line cap never trips; the event as a whole must be capped too."""
    began = time.monotonic()
    agent = AGUIHttpAgent(server("event_without_end"), max_line_bytes=1 << 20)
    handle, _ = run("hi", AGUIAdapter(agent), runs_dir, timeout=15)
    assert time.monotonic() - began < 5
    _ended(handle, r"line 3: one SSE event is over 1048576 bytes \(3\d data: line\(s\) and no blank line .*max_line_bytes=")
    assert [p["kind"] for p in _agui(handle)] == ["run_started"]


def test_a_message_streamed_in_endless_pieces_is_capped_like_one_event(server, runs_dir):
    """Each piece is a small event, so no line or event cap trips; the message folded from them is capped too."""
    began = time.monotonic()
    agent = AGUIHttpAgent(server("endless_pieces"), max_line_bytes=1 << 18)
    handle, _ = run("hi", AGUIAdapter(agent), runs_dir, timeout=15)
    assert time.monotonic() - began < 5
    _ended(handle, r"TEXT_MESSAGE_CONTENT: messageId 'm1' has streamed over 262144 characters in 9 pieces .*max_line_bytes=")
    (kept,) = [p for p in _agui(handle) if p["kind"] == "message"]
    assert kept["partial"] is True and kept["text"].startswith("the quick brown fox ")


def test_a_key_written_twice_is_refused_by_every_reader_naming_the_key(server, runs_dir, tmp_path):
    """``{"type": A, "type": B}`` is A to some readers and B to others: refused, never silently read as the last."""
    from noesis_nb.integrations.noetic import noetic_replay
    from noesis_nb.integrations.taisce import MEMORY_PREFIX, parse_memory_message

    handle, _ = run("hi", AGUIAdapter(AGUIHttpAgent(server("duplicate_type"))), runs_dir)
    _ended(handle, r"line 9: the event is ambiguous JSON \(the key 'type' comes twice in one object.*write each key once")
    assert [p.get("text") for p in _agui(handle) if p["kind"] == "message"] == ["kept"]
    log = tmp_path / "stream.jsonl"
    log.write_text(NOETIC_START + '\n{"source":"framework","type":"a:turn_completed","data":{"n":1,"n":2}}\n')
    handle, _ = run("replay", noetic_replay(str(log)), runs_dir)
    _ended(handle, r"Noetic log .*stream.jsonl, line 2: ambiguous JSON \(the key 'n' comes twice")
    info = parse_memory_message(MEMORY_PREFIX + '\n{"facts": [1], "facts": [1, 2, 3]}')
    assert "the key 'facts' comes twice" in info["parse_error"] and "facts" not in info


@pytest.mark.parametrize(
    "scenario, match",
    [
        ("duplicate_arg", r"TOOL_CALL 'tc1' \('delete_file'\): the arguments are ambiguous JSON \(the key 'path' comes twice"),
        ("duplicate_interrupt", r"CUSTOM on_interrupt #1: its value is ambiguous JSON \(the key 'path' comes twice"),
    ],
)
def test_a_key_written_twice_in_tool_args_or_an_interrupt_is_refused_before_anyone_is_asked(server, runs_dir, scenario, match):
    """Python keeps the last ``path``, other readers the first: what is shown for approval might not be what runs."""
    handle, seen = run("hi", AGUIAdapter(AGUIHttpAgent(server(scenario))), runs_dir, decide="approve")
    message = _ended(handle, match)
    assert "write each key once" in message
    assert seen == [] and not any(p["kind"] == "approval_requested" for p in _agui(handle))
    assert not (handle.run_dir / "tool_invocations" / "x-python").exists()


def test_a_state_nested_deeper_than_pydantic_writes_is_kept_as_sent(runs_dir):
    """Valid AG-UI whose value pydantic validates but cannot dump (nesting past its serializer's limit) is read."""
    nested: list[Any] = []
    for _ in range(300):
        nested = [nested]
    script = [START, {"type": "STATE_SNAPSHOT", "snapshot": {"deep": nested}}, *_text("done"), END]
    handle, _ = run("hi", AGUIAdapter(lambda run_input: list(script)), runs_dir)
    assert handle.status == "ok" and check_run(handle.run_dir) == [] and handle.result() == "done"
    (state,) = [p for p in _agui(handle) if p["kind"] == "state"]
    depth, value = 0, state["snapshot"]["deep"]
    while value != []:  # the store writes what lies past its own depth limit as JSON text: read on through it
        value = json.loads(value) if isinstance(value, str) else value
        depth, value = depth + 1, value[0]
    assert depth == 300


def test_a_server_that_stalls_ends_by_the_idle_timeout_and_the_loop_keeps_running(server, runs_dir):
    """A read that waited for the silent server on the loop would leave one gap as long as the stall (no ticks, and no
    idle timer to end it): the loop ticks all through a 1.5 s stall, though a busy machine may pause the process."""
    handle, ticks, seconds = _drive_while_ticking(server("stall"), runs_dir, idle_timeout_s=1.5, timeout=10)
    assert seconds < 6 and len(ticks) >= 10, f"{len(ticks)} ticks in {seconds:.1f} s"
    _ended(handle, r"idle_timeout_s=1.5")
    assert [p.get("text") for p in _agui(handle) if p["kind"] == "message"] == ["before the stall"]


def test_a_long_answer_streamed_slowly_is_progress_for_the_idle_timeout(server, runs_dir):
    """With ``deltas=False`` no row is written until the message ends; each piece still tells the episode it is alive."""
    handle, _ = run("hi", AGUIAdapter(AGUIHttpAgent(server("slow_stream"))), runs_dir, idle_timeout_s=0.8, timeout=15)
    assert handle.status == "ok" and check_run(handle.run_dir) == []
    assert handle.result() == "".join(SLOW_WORDS)


def test_a_server_streaming_only_empty_pieces_still_hits_the_idle_timeout(server, runs_dir):
    handle, ticks, seconds = _drive_while_ticking(server("empty_deltas"), runs_dir, idle_timeout_s=0.6, timeout=10)
    _ended(handle, r"idle_timeout_s=0.6")
    assert [p["kind"] for p in _agui(handle) if p["kind"] != "run_started"] == ["message", "tool_call"]  # kept, partial


def test_invalid_utf8_is_replaced_as_sse_requires_and_the_run_ends_ok(server, runs_dir):
    handle, _ = run("hi", AGUIAdapter(AGUIHttpAgent(server("bad_utf8"))), runs_dir)
    assert handle.status == "ok" and check_run(handle.run_dir) == []
    assert handle.result() == "bad \ufffd\ufffd bytes"


def test_secrets_and_markup_from_the_peer_are_redacted_in_files_and_escaped_in_views(server, runs_dir):
    from noesis_nb.widgets import EpisodeView
    from noesis_nb.widgets.render import row_html
    from tests.hardening.secret_corpus import run_files

    for scenario in ("secrets", "secret_then_cut"):
        handle, _ = run("hi", AGUIAdapter(AGUIHttpAgent(server(scenario))), runs_dir)
        assert check_run(handle.run_dir) == []
        view = EpisodeView(handle)
        view.flush()
        html = [view.snapshot_html(), view.mimebundle(widget=False)["text/html"], *(row_html(e) for e in handle.events)]
        view.close()
        blobs = run_files(handle.run_dir) + [("view", h.encode()) for h in html]
        for secret in (OPENAI, GITHUB):
            leaked = [where for where, blob in blobs if secret[:12].encode() in blob or secret[-12:].encode() in blob]
            assert leaked == [], f"{scenario}: {secret[:6]}… written to {leaked}"
        assert all(b"<script>alert(1)</script>" not in h.encode() for h in html)
    assert any(p["kind"] == "tool_call" and p.get("partial") for p in _agui(handle))  # the cut call is kept, redacted


def _windows(blob: str | bytes) -> list[str]:
    """Every 8 characters of a streamed key found in ``blob``."""
    text = blob.decode("utf-8", "replace") if isinstance(blob, bytes) else blob
    return [k[n : n + 8] for k in STREAMED_KEYS for n in range(len(k) - 7) if k[n : n + 8] in text]


@pytest.mark.parametrize("deltas", [True, False], ids=["deltas", "folded"])
def test_keys_split_across_streamed_pieces_reach_no_file_and_no_view(server, runs_dir, deltas):
    """A key in 1..7-character pieces is in no single piece; recorded or shown one by one, the pieces would still
    spell it. Every file, the pieces of each stream joined in order, and the view hold no 8 characters of one."""
    from noesis_nb.widgets import EpisodeView
    from noesis_nb.widgets.render import row_html
    from tests.hardening.secret_corpus import run_files

    handle, _ = run("hi", AGUIAdapter(AGUIHttpAgent(server("split_keys")), deltas=deltas), runs_dir)
    assert handle.status == "ok" and check_run(handle.run_dir) == []
    view = EpisodeView(handle)
    view.flush()
    html = [view.snapshot_html(), view.mimebundle(widget=False)["text/html"], *(row_html(e) for e in handle.events)]
    view.close()
    leaked = [where for where, blob in run_files(handle.run_dir) + [("view", h.encode()) for h in html] if _windows(blob)]
    assert leaked == []
    rows = _agui(handle)
    streams: dict[Any, list[str]] = {}
    for p in rows:
        if p["kind"].endswith("_delta"):
            streams.setdefault((p["event_name"], p["id"]), []).append(p["delta"])
    assert sorted(streams) == (
        [("agui.REASONING_MESSAGE_CONTENT", "r1"), ("agui.TEXT_MESSAGE_CONTENT", "m1"), ("agui.TOOL_CALL_ARGS", "tc1")]
        if deltas
        else []
    )
    for pieces in streams.values():
        assert _windows("".join(pieces)) == [] and "[REDACTED]" in "".join(pieces)
    if deltas:  # prose and CJK are released as they come: both before the key, not with the message's end
        text = streams[("agui.TEXT_MESSAGE_CONTENT", "m1")]
        before_key = "".join(text[: text.index(next(p for p in text if "[REDACTED]" in p))])
        assert "The weather is fine today. \u4eca\u5929\u5929\u6c14\u5f88\u597d\u3002 Your key is " == before_key
        assert len(text) > 10
    (message,) = [p for p in rows if p["kind"] == "message"]
    assert message["text"].startswith("The weather is fine today.") and "[REDACTED]" in message["text"]


NOETIC_START = json.dumps({"source": "framework", "type": "a:turn_started", "data": {}})


@pytest.mark.parametrize(
    "content, match",
    [
        (NOETIC_START + '\n{"source":"sdk","type":"response.output_text.delta","data":{"delta":"hel', r"line 2: not JSON"),
        (NOETIC_START + '\n{"source":"framework","type":5,"data":[]}', r"line 2: expected a stream event"),
        ('{"source":"framework","type":"a:x","data":' + "[" * 100_000 + "]" * 100_000 + "}", r"line 1: JSON nested too deeply"),
        (b'{"source":"framework","type":"a:x","data":{"t":"\xff"}}', r"line 1: not UTF-8 text"),
        (None, r"a directory, not a file"),
        ("FIFO", r"a FIFO \(named pipe\), not a file"),
    ],
)
def test_a_broken_noetic_log_ends_the_replay_naming_the_line(tmp_path, runs_dir, content, match):
    from noesis_nb.integrations.noetic import noetic_replay

    path = tmp_path / "stream.jsonl"
    if content is None:
        path.mkdir()
    elif content == "FIFO":
        os.mkfifo(path)
    elif isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    began = time.monotonic()
    handle, _ = run("replay", noetic_replay(str(path)), runs_dir, timeout=10)
    assert time.monotonic() - began < 5
    _ended(handle, f"Noetic log.*{match}")


def test_odd_values_in_recorded_traces_are_kept_and_the_run_checks_out(tmp_path, runs_dir):
    from noesis_nb.integrations.noetic import noetic_replay
    from noesis_nb.integrations.taisce import MEMORY_PREFIX, taisce_replay

    log = tmp_path / "stream.jsonl"
    log.write_text(
        NOETIC_START
        + '\n{"source":"framework","type":"a:item_appended","data":{"n":NaN,"m":-Infinity,"big":1'
        + "0" * 400
        + ',"deep":'
        + '{"a":' * 500
        + "1"
        + "}" * 500
        + "}}\n"
        + json.dumps({"source": "sdk", "type": "response.output_text.delta", "data": {"delta": {"not": "text"}}})
        + '\n{"source":"framework","type":"a:turn_completed","data":{}}'  # the turn ended: a cut one is no success
    )
    handle, _ = run("replay", noetic_replay(str(log)), runs_dir)
    assert handle.status == "ok" and check_run(handle.run_dir) == []
    transcript = [
        {"role": "user", "content": MEMORY_PREFIX + '\n{"watermark":{"stored":NaN,"formed":1e999},"facts":[1]}'},
        {"role": 5, "content": {"x": [1, 2]}},
        {"role": "assistant", "content": "the answer"},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c1"}]},  # a tool-call message has no text
    ]
    handle, _ = run("replay", taisce_replay(transcript), runs_dir)
    assert handle.status == "ok" and check_run(handle.run_dir) == []
    assert handle.result() == "the answer"
    rows = [e["payload"] for e in from_source(disk_events(handle), "taisce")]
    assert [p["kind"] for p in rows] == ["memory_injection", "message", "message", "message"]
    assert rows[0]["untrusted"] is True and rows[0]["facts"] == 1 and rows[3]["text"] == ""


_OPEN = {"type": "TEXT_MESSAGE_START", "messageId": "m2", "role": "assistant"}


@pytest.mark.parametrize(
    "bad, match, kept",
    [
        (
            [{"type": "TOOL_CALL_ARGS", "toolCallId": "ghost", "delta": "{}"}],
            r"event #5 \(TOOL_CALL_ARGS\) names toolCallId 'ghost', which no TOOL_CALL_START opened",
            ["first"],
        ),
        ([{"type": "TOOL_CALL_END", "toolCallId": "ghost"}], r"event #5 \(TOOL_CALL_END\) names toolCallId 'ghost'", ["first"]),
        (
            [{"type": "TEXT_MESSAGE_CONTENT", "messageId": "unknown", "delta": "orphan"}],
            r"event #5 \(TEXT_MESSAGE_CONTENT\) names messageId 'unknown', which no TEXT_MESSAGE_START opened",
            ["first"],
        ),
        (
            [{"type": "TEXT_MESSAGE_END", "messageId": "m1"}],
            r"event #5 \(TEXT_MESSAGE_END\) names messageId 'm1', which no TEXT_MESSAGE_START opened \(or it already ended\)",
            ["first"],
        ),
        (
            [_OPEN, {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m2", "delta": "half"}, _OPEN],
            r"event #7 \(TEXT_MESSAGE_START\) reopens messageId 'm2', which is still streaming",
            ["first", "half"],
        ),
    ],
)
def test_events_out_of_order_end_the_run_naming_the_event(runs_dir, bad, match, kept):
    script = [START, *_text("first"), *bad, END]
    handle, _ = run("hi", AGUIAdapter(lambda run_input: list(script)), runs_dir)
    _ended(handle, match)
    assert [p.get("text") for p in _agui(handle) if p["kind"] == "message"] == kept


@pytest.mark.parametrize(
    "bad, match, kind",
    [
        (
            [
                {"type": "TOOL_CALL_START", "toolCallId": "tc1", "toolCallName": "rm"},
                {"type": "TOOL_CALL_ARGS", "toolCallId": "tc1", "delta": '{"path": "/tm'},
            ],
            r"event #7 \(RUN_FINISHED\) ends the run while toolCallId 'tc1' is still streaming \(no TOOL_CALL_END\)",
            "tool_call",
        ),
        (
            [_OPEN, {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m2", "delta": "half"}],
            r"event #7 \(RUN_FINISHED\) ends the run while messageId 'm2' is still streaming \(no TEXT_MESSAGE_END\)",
            "message",
        ),
    ],
)
def test_run_finished_before_a_started_message_or_tool_call_ended_ends_the_run_error_keeping_it_partial(
    runs_dir, bad, match, kind
):
    """A call cut by RUN_FINISHED must not read as a whole call of an ``ok`` run (its arguments only half sent)."""
    script = [START, *_text("first"), *bad, END]
    handle, _ = run("hi", AGUIAdapter(lambda run_input: list(script)), runs_dir)
    _ended(handle, match)
    cut = [p for p in _agui(handle) if p["kind"] == kind][-1]
    assert cut["partial"] is True and "run_finished" not in [p["kind"] for p in _agui(handle)]


def test_reused_ids_after_an_end_are_read_once_and_run_finished_twice_ends_the_run_error(server, runs_dir):
    handle, _ = run("hi", AGUIAdapter(AGUIHttpAgent(server("duplicate_ids"))), runs_dir)
    assert handle.status == "ok" and check_run(handle.run_dir) == [] and handle.result() == "second"
    script = [START, *_text("done"), END, END, {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "late"}]
    handle, _ = run("hi", AGUIAdapter(lambda run_input: list(script)), runs_dir)
    _ended(handle, r"event #6 \('RUN_FINISHED'\) came after RUN_FINISHED, where AG-UI allows only a new RUN_STARTED")
    assert [p["kind"] for p in _agui(handle)].count("run_finished") == 1


@pytest.mark.parametrize(
    "scenario, match",
    [
        ("after_finished", r"event #6 \('TEXT_MESSAGE_START'\) came after RUN_FINISHED, where AG-UI allows only a new"),
        ("error_after_finished", r"ended the run with RUN_ERROR: late error"),
    ],
)
def test_events_after_run_finished_end_the_run_error_naming_them(server, runs_dir, scenario, match):
    """AG-UI's client refuses any event after RUN_FINISHED but a new RUN_STARTED (or a RUN_ERROR): the adapter
    stopped reading at RUN_FINISHED, so a later error or message was dropped and the episode ended ok."""
    handle, _ = run("hi", AGUIAdapter(AGUIHttpAgent(server(scenario))), runs_dir)
    _ended(handle, match)


def test_a_second_run_started_on_the_same_stream_is_read_and_recorded(server, runs_dir):
    handle, _ = run("hi", AGUIAdapter(AGUIHttpAgent(server("second_run"))), runs_dir)
    assert handle.status == "ok" and check_run(handle.run_dir) == [] and handle.result() == "SECOND RUN"
    rows = _agui(handle)
    assert [p["run_id"] for p in rows if p["kind"] in ("run_started", "run_finished")] == ["r1", "r1", "r2", "r2"]


def test_a_stream_kept_open_after_run_finished_ends_the_run_ok_without_waiting_for_it(server, runs_dir):
    try:
        handle, _ = run("hi", AGUIAdapter(AGUIHttpAgent(server("open_after_finished"))), runs_dir)
        assert not _HELD_OPEN.is_set()  # the server still holds the stream open
        assert handle.status == "ok" and handle.result() == "first"
    finally:
        _HELD_OPEN.set()


def test_a_plain_iterator_blocked_after_run_finished_neither_holds_the_episode_nor_blocks_the_loop(runs_dir, monkeypatch):
    """A plain (sync) iterator whose source blocks after RUN_FINISHED (a sync SSE reader on a connection kept
    open): its next() ran on the event loop, so the bounded wait for what may follow never fired and the episode
    waited for the source (for ever if never closed). The episode ends ``ok`` while the source is still blocked."""
    from noesis_nb.integrations.agui import _adapter

    monkeypatch.setattr(_adapter, "AFTER_FINISH_S", 0.2)
    blocked, release, returned = threading.Event(), threading.Event(), threading.Event()

    def agent(run_input: Any) -> Any:
        yield START
        yield from _text("first")
        yield END
        blocked.set()
        release.wait(3)  # the held-open read: on the loop, the episode could not end before this returns
        returned.set()

    try:
        handle, _ = run("hi", AGUIAdapter(agent), runs_dir)
        assert handle.status == "ok" and handle.result() == "first"
        assert blocked.is_set() and not returned.is_set()  # read after RUN_FINISHED, and left while still blocked
    finally:
        release.set()


def test_noeta_envelopes_with_odd_call_ids_goals_and_usage_import_as_a_checked_run(runs_dir):
    from noesis_nb.integrations.noeta import import_noeta
    from noesis_nb.store import read_events

    envelopes = [
        {"type": "TaskCreated", "seq": 1, "payload": {"goal": {"not": "text"}}},
        {"type": "LLMRequestStarted", "seq": 2, "payload": {"call_id": {"id": 1}, "model": "m-1"}},
        {
            "type": "LLMRequestFinished",
            "seq": "three",
            "payload": {
                "call_id": {"id": 1},
                "usage": {
                    "uncached": 10**30,
                    "cache_read": True,
                    "cache_write": -5,
                    "output": float("nan"),
                    "reasoning_tokens": "x",
                },
                "cost_usd": float("inf"),
            },
        },
        {"type": "LLMRequestFinished", "seq": 4, "payload": {"call_id": ["a"], "usage": []}},
        {"type": "TaskCompleted", "seq": 5, "payload": {"answer": "done"}},
    ]
    episode = import_noeta(envelopes, runs_dir=runs_dir)
    run_dir = Path(runs_dir) / episode
    assert check_run(run_dir) == []
    events = read_events(run_dir / "events.jsonl")
    usage = [e["payload"] for e in events if e["phase"] == "model"]
    assert [u["model"] for u in usage] == ["m-1", None]  # the model found by a call id that is an object


@pytest.mark.parametrize(
    "mapped, match",
    [
        ([1, 2], r"input message #1 is a int \(1\); input_mapper must give messages as dicts"),
        ({"messages": "hi"}, r"input_mapper gave messages='hi'; pass a list of message dicts"),
        ({"messages": [{"role": "user"}]}, r"invalid \(messages\.0\.user\.id: Field required; messages\.0\.user\.content"),
    ],
)
def test_a_malformed_agui_input_is_named_without_blaming_the_agent(runs_dir, mapped, match):
    handle, _ = run("hi", AGUIAdapter(lambda run_input: [], input_mapper=lambda task: mapped), runs_dir)
    message = _ended(handle, match)
    assert "agent's stream" not in message and "errors.pydantic.dev" not in message


_KEY = "ghp_" + "Ab3d" * 9


@pytest.mark.parametrize(
    "mapped",
    [
        {"messages": f"{'a' * 70} {_KEY}"},  # messages not a list: its repr was cut at 80, inside the key
        [f"{'a' * 70} {_KEY}"],  # a message that is no dict: the same cut
        {"messages": [f"{'a' * 60} {_KEY}"]},
        {f"{'a' * 70} {_KEY}"},  # no input at all (a set): its whole repr was shown, the key with it
    ],
    ids=["messages-text", "message-text", "message-in-dict", "set"],
)
def test_a_malformed_agui_input_is_named_with_no_key_head(runs_dir, mapped):
    """What the input mapper gave is redacted before it is cut: cut first, a key crossing the cut lost its tail,
    no detector knew its head, and the head was in the run's error."""
    handle, _ = run("hi", AGUIAdapter(lambda run_input: [], input_mapper=lambda task: mapped), runs_dir)
    message = _ended(handle, r"input_mapper|input message #1")
    assert "a" * 40 in message, message  # what came before the key is still shown
    assert not [_KEY[:n] for n in range(6, len(_KEY) + 1) if _KEY[:n] in message], message
    written = b"".join(p.read_bytes() for p in handle.run_dir.rglob("*") if p.is_file())
    assert _KEY[:8].encode() not in written


def test_legacy_thinking_pieces_without_a_start_are_still_read(runs_dir):
    script = [
        START,
        {"type": "THINKING_START", "title": "planning"},
        {"type": "THINKING_TEXT_MESSAGE_CONTENT", "delta": "no START in the 0.1.x dialect"},
        {"type": "THINKING_END"},
        *_text("done"),
        END,
    ]
    handle, _ = run("hi", AGUIAdapter(lambda run_input: list(script)), runs_dir)
    assert handle.status == "ok" and handle.result() == "done"
    assert [p.get("text") for p in _agui(handle) if p["kind"] == "reasoning"] == ["no START in the 0.1.x dialect"]


def _key_pieces(text: str) -> list[str]:
    """Every 8 characters of ``OPENAI`` or ``GITHUB`` found in ``text``."""
    return [s[n : n + 8] for s in (OPENAI, GITHUB) for n in range(len(s) - 7) if s[n : n + 8] in text]


@pytest.mark.parametrize("pad", [40, 60, 75, 90])
def test_a_bad_event_is_quoted_in_its_error_with_no_piece_of_a_key(server, runs_dir, pad):
    """An error quotes the first 120 characters of a bad event: a key there is redacted before the cut, so no head
    of it is shown; so are an id the agent sends out of order, however long, and an event the server cuts short."""
    from noesis_nb.integrations.agui import AGUIStreamError, parse_sse

    for secret in (OPENAI, GITHUB):
        for bad in ('{"type":"TEXT_MESSAGE_CONTENT","delta":"', '["not an event", "'):
            with pytest.raises(AGUIStreamError) as caught:
                list(parse_sse([f"data: {bad}{'a' * pad} {secret} and more", ""]))
            assert "line 1: " in str(caught.value) and _key_pieces(str(caught.value)) == []
    script = [START, {"type": "TEXT_MESSAGE_CONTENT", "messageId": f"{'m' * pad} {GITHUB} {'x' * 100_000}", "delta": "x"}, END]
    handle, _ = run("hi", AGUIAdapter(lambda run_input: list(script)), runs_dir)
    message = _ended(handle, r"event #2 \(TEXT_MESSAGE_CONTENT\) names messageId 'mmm.*which no TEXT_MESSAGE_START opened")
    assert _key_pieces(message) == [] and len(message) < 400
    handle, _ = run("hi", AGUIAdapter(AGUIHttpAgent(server("key_cut_mid_event"))), runs_dir)
    message = _ended(handle, r"line 3: the stream ended in the middle of an event \('\{\"type\":\"RUN_ERROR\"")
    assert _key_pieces(message) == []


@pytest.mark.parametrize(
    "url, match",
    [
        (
            "http://127.0.0.1:8000/agent/run\n",
            r"it holds the control character '\\n' \(U\+000A\) at position 31 \(copied with a line end",
        ),
        ("http://127.0.0.1:8000/agent run", r"it holds the character ' ' \(U\+0020 SPACE\) at position 27"),
        ("http://", r"url='http://': it names no host"),
        ("http://127.0.0.1:99999/run", r"it cannot be read \(Port out of range"),
        ("http://127.0.0.1:0/run", r"its port is 0"),
        ("https://[::1/run", r"it cannot be read \(Invalid IPv6 URL\)"),
        (
            f"http://deploy:{LEARNED} x@127.0.0.1:9/run",
            r"url='http://<credentials>@127\.0\.0\.1:9/run': it holds the character ' '",
        ),
    ],
)
def test_a_url_no_request_can_go_to_is_refused_when_the_agent_is_made(url, match):
    """Before a run starts, naming the URL (never its password) and why: httpx's own error came from inside the
    episode (InvalidURL, an ExceptionGroup for a port past 65535) with neither."""
    with pytest.raises(
        ValueError, match=match + r".*pass the agent endpoint, e\.g\. 'http://127\.0\.0\.1:8000/agent/run'"
    ) as caught:
        AGUIHttpAgent(url)
    assert LEARNED not in str(caught.value)


@pytest.mark.parametrize(
    "headers, match",
    [
        (
            {"Authorization": f"Bearer {OPENAI}\n"},
            r"the value of 'Authorization' holds a line end or NUL \(read from a file\? strip",
        ),
        ({"X-Api-Key": 5}, r"the value of 'X-Api-Key' is a int, not text"),
        ({"X-Api-Key": f"{OPENAI}\u00e9"}, r"the value of 'X-Api-Key' holds a character that is not ASCII"),
        ({"Api Key": OPENAI}, r"the header name 'Api Key' is not a header name"),
        ("Authorization", r"'Authorization': pass a dict of header names to text values"),
    ],
)
def test_a_header_http_cannot_carry_is_refused_by_name_when_the_agent_is_made(headers, match):
    """httpx raised a bare TypeError or UnicodeEncodeError from inside the episode; the value (a credential) is never shown."""
    with pytest.raises(ValueError, match=r"^headers[:=].*" + match) as caught:
        AGUIHttpAgent("http://127.0.0.1:8000/agent/run", headers=headers)
    assert OPENAI not in str(caught.value) and OPENAI[3:15] not in str(caught.value)


def test_headers_as_pairs_or_bytes_are_still_taken():
    agent = AGUIHttpAgent("http://127.0.0.1:8000/agent/run", headers=[("X-Api-Key", "k1"), ("X-Raw", b"v2")])
    assert agent.headers == {"X-Api-Key": "k1", "X-Raw": b"v2"}
