"""AG-UI: a scripted in-process agent and a real HTTP/SSE server on 127.0.0.1 (no other network)."""

from __future__ import annotations

import asyncio
import sys

import pytest

pytest.importorskip("ag_ui.core")
pytest.importorskip("httpx")

from noesis_nb.integrations import MissingExtraError
from noesis_nb.integrations.agui import AGUIAdapter, AGUIHttpAgent, agui_rows, parse_sse
from noesis_nb.store import verify_manifest

from .helpers import disk_events, from_source, names, run, run_tags
from .scripted_agui import AGUITestServer, ScriptedAGUIAgent

DOC_FIXTURE = """\
data: {"type":"RUN_STARTED","threadId":"t1","runId":"r1"}
data: {"type":"STEP_STARTED","stepName":"agent"}
data: {"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}
data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Checking"}
data: {"type":"TEXT_MESSAGE_END","messageId":"m1"}
data: {"type":"TOOL_CALL_START","toolCallId":"tc1","toolCallName":"delete_file","parentMessageId":"m1"}
data: {"type":"TOOL_CALL_ARGS","toolCallId":"tc1","delta":"{\\"path\\":\\"x.txt\\"}"}
data: {"type":"TOOL_CALL_END","toolCallId":"tc1"}
data: {"type":"STEP_FINISHED","stepName":"agent"}
data: {"type":"RUN_FINISHED","threadId":"t1","runId":"r1","outcome":{"type":"interrupt","interrupts":[{"id":"i1","reason":"tool_approval","toolCallId":"tc1"}]},"usage":[{"model":"m","inputTokens":120,"outputTokens":20,"totalTokens":140,"cachedInputTokens":100}]}
"""


@pytest.fixture(scope="module")
def server():
    with AGUITestServer() as srv:
        yield srv


def _kinds(events):
    return [e["payload"]["kind"] for e in from_source(events, "agui")]


def test_recorded_fixture_rows_without_running_anything():
    rows = agui_rows(parse_sse(DOC_FIXTURE.replace("\n", "\n\n").splitlines()))
    kinds = [p["kind"] for _, p in rows]
    assert kinds == [
        "run_started",
        "step_started",
        "message",
        "tool_call",
        "step_finished",
        "run_finished",
        "usage",
        "approval_requested",
    ]
    approval = rows[-1][1]
    assert approval["tool_call_id"] == "tc1" and approval["tool"] == "delete_file" and approval["interrupt_id"] == "i1"
    usage = rows[-2][1]
    assert (usage["input_tokens"], usage["cached_input_tokens"], usage["output_tokens"]) == (120, 100, 20)
    assert usage["cache_write_input_tokens"] is None and usage["reasoning_tokens"] is None  # unknown, not 0
    assert rows[3][1]["args"] == {"path": "x.txt"} and all(p["source"] == "agui" for _, p in rows)


def test_unknown_and_legacy_types_never_break_the_importer():
    rows = agui_rows(
        [
            {"type": "FOO", "x": 1},
            {"type": "THINKING_START", "title": "t"},
            {"type": "THINKING_TEXT_MESSAGE_CONTENT", "delta": "hm"},
            {"type": "THINKING_TEXT_MESSAGE_END"},
            {"type": "THINKING_END"},
        ]
    )
    assert [(ph, p["kind"]) for ph, p in rows] == [
        ("integration", "custom"),
        ("reason", "reasoning_start"),
        ("reason", "reasoning"),
        ("reason", "reasoning_end"),
    ]
    assert rows[0][1]["raw"] == {"type": "FOO", "x": 1} and rows[2][1]["text"] == "hm"


def test_in_process_interrupt_becomes_a_button_and_resumes_with_resume_entries(runs_dir):
    agent = ScriptedAGUIAgent("tool")
    handle, pending = run("delete x.txt", AGUIAdapter(agent), runs_dir, decide="approve")
    assert handle.status == "ok" and handle.result() == "approved: deleted x.txt"
    assert len(pending) == 1 and pending[0].tool == "agui.delete_file" and pending[0].risk_tier == "high"
    assert pending[0].redacted_payload["kwargs"]["tool_call"] == {"id": "tc1", "name": "delete_file", "args": {"path": "x.txt"}}
    first, second = agent.inputs
    for body in (first, second):  # always the full RunAgentInput
        assert {"threadId", "runId", "state", "messages", "tools", "context", "forwardedProps"} <= set(body)
    assert first["threadId"] == second["threadId"] and first["runId"] != second["runId"] and "resume" not in first
    assert second["resume"] == [{"interruptId": "i1", "status": "resolved", "payload": {"approved": True}}]
    assert [m["role"] for m in second["messages"]] == ["user", "assistant"]
    assert second["messages"][1]["toolCalls"][0]["function"] == {"name": "delete_file", "arguments": '{"path": "x.txt"}'}
    events = disk_events(handle)
    assert _kinds(events) == [
        "run_started",
        "message",
        "tool_call",
        "run_finished",
        "approval_requested",
        "approval_resolved",
        "run_started",
        "tool_result",
        "message",
        "run_finished",
    ]
    all_names = names(events)
    assert all_names.index("agui.INTERRUPT") < all_names.index("tool.approval.pending") < all_names.index("tool.approved")
    assert run_tags(handle) == {"source": "agui"}
    assert verify_manifest(handle.run_dir).ok


def test_rejection_is_sent_as_a_resolved_denial(runs_dir):
    agent = ScriptedAGUIAgent("tool")
    handle, _ = run("delete x.txt", AGUIAdapter(agent), runs_dir, decide="reject", reason="not today")
    assert handle.result() == "rejected: not today"
    assert agent.inputs[1]["resume"][0]["payload"] == {"approved": False, "reason": "not today"}
    assert "tool.rejected.governance" in names(disk_events(handle))


def test_usage_maps_parts_of_totals(runs_dir):
    handle, _ = run("count", AGUIAdapter(ScriptedAGUIAgent("usage")), runs_dir)
    [model] = [e for e in disk_events(handle) if e["phase"] == "model"]
    p = model["payload"]
    assert (p["input_tokens"], p["cached_input_tokens"], p["output_tokens"], p["model"], p["provider"]) == (
        120,
        100,
        20,
        "gpt-4o-mini",
        "openai",
    )
    assert p["cache_write_input_tokens"] is None and p["event_name"] == "model.call" and p["source"] == "agui"
    assert model["agent_id"] == "model:openai" and handle.usage["input_tokens"] == 120


def test_http_agent_streams_sse_and_resumes(server, runs_dir):
    agent = AGUIHttpAgent(server.url("agent/tool"))
    handle, pending = run("delete x.txt", AGUIAdapter(agent), runs_dir, decide="approve")
    assert handle.result() == "approved: deleted x.txt" and len(pending) == 1
    posted = [r for r in server.requests if r["body"]["threadId"] == f"thread-{handle.episode_id}"]
    assert len(posted) == 2 and all(r["accept"] == "text/event-stream" for r in posted)
    assert posted[1]["body"]["resume"][0]["interruptId"] == "i1"


def test_idun_style_legacy_stream_and_forwarded_props_resume(server, runs_dir):
    adapter = AGUIAdapter(AGUIHttpAgent(server.url("agent/legacy_tool")), resume_style="forwarded_props")
    handle, pending = run("delete x.txt", adapter, runs_dir, decide="reject", reason="too risky")
    assert handle.result() == "rejected: too risky" and len(pending) == 1
    body = adapter.agent.requests[1]
    assert body["forwardedProps"]["command"]["resume"] == {"approved": False, "reason": "too risky"} and "resume" not in body
    events = from_source(disk_events(handle), "agui")
    reasoning = [e["payload"] for e in events if e["phase"] == "reason"]
    assert [p["kind"] for p in reasoning] == ["reasoning_start", "reasoning", "reasoning_end"]
    assert reasoning[1]["text"] == "the user wants a deletion"
    approval = next(e["payload"] for e in events if e["payload"]["kind"] == "approval_requested")
    assert approval["legacy"] is True and approval["tool"] == "delete_file"


def test_malformed_sse_event_ends_the_episode_with_the_line_and_keeps_the_run(server, runs_dir):
    handle, _ = run("hi", AGUIAdapter(AGUIHttpAgent(server.url("raw/malformed"))), runs_dir)
    assert handle.status == "error"
    with pytest.raises(Exception, match=r"line 9: the event is not valid JSON"):
        handle.result()
    events = disk_events(handle)
    agui = from_source(events, "agui")
    assert [e["payload"]["kind"] for e in agui] == ["run_started", "message"]
    assert agui[1]["payload"]["text"] == "partial answer" and agui[1]["payload"]["partial"] is True
    assert events[-1]["phase"] == "memory" and (handle.run_dir / "final.json").exists()
    assert verify_manifest(handle.run_dir).ok


@pytest.mark.parametrize(
    "raw, message",
    [
        ("invalid_event", r"event #2 \(TEXT_MESSAGE_CONTENT\) is not a valid AG-UI 1.0 event: messageId"),
        ("no_end", r"ended after 1 event\(s\) without RUN_FINISHED"),
    ],
)
def test_stream_errors_are_named(server, runs_dir, raw, message):
    handle, _ = run("hi", AGUIAdapter(AGUIHttpAgent(server.url(f"raw/{raw}"))), runs_dir)
    assert handle.status == "error"
    with pytest.raises(Exception, match=message):
        handle.result()


def test_multiline_data_chunks_and_run_result(server, runs_dir):
    handle, _ = run("hi", AGUIAdapter(AGUIHttpAgent(server.url("raw/multiline"))), runs_dir)
    assert handle.status == "ok" and handle.result() == {"ok": True}
    messages = [e["payload"] for e in from_source(disk_events(handle), "agui") if e["payload"]["kind"] == "message"]
    assert [m["text"] for m in messages] == ["one piece"]


@pytest.mark.parametrize("stream", ["cr_only", "split_line_ends"])
def test_cr_and_crlf_line_ends_split_events_also_across_chunks(server, runs_dir, stream):
    """SSE lines end in CRLF, LF or CR; a CRLF or a CR CR split between two network reads is still read right."""
    handle, _ = run("hi", AGUIAdapter(AGUIHttpAgent(server.url(f"raw/{stream}"))), runs_dir)
    assert handle.status == "ok" and handle.result() == {"ok": True}
    messages = [e["payload"] for e in from_source(disk_events(handle), "agui") if e["payload"]["kind"] == "message"]
    assert [m["text"] for m in messages] == ["one piece"]


def test_parse_sse_splits_line_ends_left_inside_the_lines_it_is_given():
    import io

    body = DOC_FIXTURE.replace("\n", "\n\n")
    want = list(parse_sse(body.splitlines()))
    assert len(want) == 10
    for text in (body.replace("\n", "\r"), body.replace("\n", "\r\n")):
        assert list(parse_sse(io.StringIO(text, newline=""))) == want  # as read without universal newlines
        assert list(parse_sse([text])) == want
        assert list(parse_sse(text.split("\n"))) == want


@pytest.mark.parametrize("cut", range(1, 40))
def test_sse_lines_split_on_every_line_end_wherever_a_chunk_ends(cut):
    from noesis_nb.integrations.agui._http import _lines

    body = b"a\r\nb\rc\n\r\nd\r\re\n\nf\r"
    body = body * 2

    class Response:
        async def aiter_bytes(self):
            for start in range(0, len(body), cut):
                yield body[start : start + cut]

    async def lines():
        return [line async for line in _lines(Response(), 1000, "u")]

    once = ["a", "b", "c", "", "d", "", "e", "", "f"]
    assert asyncio.run(lines()) == once + once


def test_http_errors_say_what_to_check(server, runs_dir):
    handle, _ = run("hi", AGUIAdapter(AGUIHttpAgent(server.url("nowhere/x"))), runs_dir)
    with pytest.raises(Exception, match="answered HTTP 404"):
        handle.result()
    handle, _ = run("hi", AGUIAdapter(AGUIHttpAgent("http://127.0.0.1:9/agent/run")), runs_dir)
    with pytest.raises(Exception, match="is the agent server running"):
        handle.result()


def test_deltas_option_and_input_mapper(runs_dir):
    agent = ScriptedAGUIAgent("echo")
    adapter = AGUIAdapter(
        agent, deltas=True, input_mapper=lambda t: {"messages": [{"id": "u", "role": "user", "content": t}], "state": {"n": 1}}
    )
    handle, _ = run("hello", adapter, runs_dir)
    assert handle.result() == "you said: hello" and agent.inputs[0]["state"] == {"n": 1}
    assert "agui.TEXT_MESSAGE_CONTENT" in names(disk_events(handle))


def test_missing_extra_gives_the_install_line(monkeypatch):
    monkeypatch.setitem(sys.modules, "ag_ui.core", None)
    with pytest.raises(MissingExtraError, match=r"pip install 'noesis_nb\[agui\]'"):
        AGUIAdapter(ScriptedAGUIAgent("answer"))


def test_bad_options_are_named():
    with pytest.raises(ValueError, match="resume_style='2.0'"):
        AGUIAdapter(ScriptedAGUIAgent("answer"), resume_style="2.0")
    with pytest.raises(TypeError, match="not an AG-UI agent"):
        AGUIAdapter(42)


def test_run_error_keeps_the_agents_code(runs_dir):
    from noesis_nb.integrations.agui import AGUIRunError

    def agent(run_input):
        return [
            {"type": "RUN_STARTED", "threadId": run_input.thread_id, "runId": run_input.run_id},
            {"type": "RUN_ERROR", "message": "boom", "code": "FRAMEWORK_ERROR"},
        ]

    handle, _ = run("hi", AGUIAdapter(agent), runs_dir)
    assert handle.status == "error"
    with pytest.raises(AGUIRunError, match="boom") as caught:
        handle.result()
    assert caught.value.code == "FRAMEWORK_ERROR"


def test_a_steer_sent_during_a_run_joins_the_next_run_as_a_user_message(runs_dir):
    import noesis_nb

    agent = ScriptedAGUIAgent("tool", pace=0.02)

    async def main():
        handle = noesis_nb.start("delete x.txt", using=AGUIAdapter(agent), runs_dir=runs_dir)
        await asyncio.sleep(0.05)
        handle.steer("only x.txt, nothing else")
        await handle  # paused at the interrupt
        handle.approve()
        await handle.wait()
        return handle

    handle = asyncio.run(main())
    assert handle.status == "ok"
    first, second = agent.inputs
    assert [m["role"] for m in first["messages"]] == ["user"]
    assert [m["role"] for m in second["messages"]] == ["user", "assistant", "user"]
    assert second["messages"][-1]["content"] == "only x.txt, nothing else"
    assert names(disk_events(handle)).count("steer.applied") == 1


PLAIN_KEY = "plain0key0no0pattern0finds0it"  # an x-api-key of no known shape


class _Echoing:
    """An AG-UI server on 127.0.0.1 that echoes the x-api-key it is sent: in a 401 body, or in its streamed answer."""

    def __init__(self, refuse: bool) -> None:
        import json
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
                key = self.headers.get("x-api-key")
                if refuse:
                    text = f"invalid key {key}".encode()
                    self.send_response(401)
                    self.send_header("Content-Length", str(len(text)))
                    self.end_headers()
                    self.wfile.write(text)
                    return
                ids = {"threadId": body["threadId"], "runId": body["runId"]}
                events = [
                    {"type": "RUN_STARTED", **ids},
                    {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
                    {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": f"you called with {key}"},
                    {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
                    {"type": "RUN_FINISHED", **ids, "result": {"echo": key}},
                ]
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                for event in events:
                    self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/agent"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.mark.parametrize("refuse", [True, False], ids=["401-body", "streamed"])
def test_a_server_echoing_the_agents_key_writes_it_to_no_file(runs_dir, refuse):
    """A 401 body quoting the x-api-key (no pattern knows its shape) went whole into the episode's error, in
    events.jsonl and state.json; a stream echoing it went into the rows."""
    server = _Echoing(refuse)
    try:
        agent = AGUIHttpAgent(server.url, headers={"x-api-key": PLAIN_KEY, "Accept-Language": "en-GB-oxendict"})
        handle, _ = run("hi", AGUIAdapter(agent, output=lambda result: result), runs_dir)
    finally:
        server.close()
    if refuse:
        with pytest.raises(Exception, match="answered HTTP 401") as raised:
            handle.result()
        assert PLAIN_KEY not in str(raised.value)
    else:
        assert handle.status == "ok"  # the result object is the agent's own, in memory; its files are screened
    written = {p.name: p.read_bytes() for p in handle.run_dir.rglob("*") if p.is_file()}
    assert "events.jsonl" in written and not [n for n, data in written.items() if PLAIN_KEY.encode() in data]
    assert b"[REDACTED]" in written["events.jsonl"]
    assert not [n for n, data in written.items() if b"[REDACTED]-oxendict" in data], "a header that is no secret is kept"


def _many_open_streams(body):
    """Forty messages opened at once, each streamed in turn far below the cap, none ended until all have grown."""
    ids = {"threadId": body["threadId"], "runId": body["runId"]}
    yield {"type": "RUN_STARTED", **ids}
    for m in range(40):
        yield {"type": "TEXT_MESSAGE_START", "messageId": f"m{m}", "role": "assistant"}
    for _ in range(10):
        for m in range(40):
            yield {"type": "TEXT_MESSAGE_CONTENT", "messageId": f"m{m}", "delta": "x" * 3000}
    for m in range(40):
        yield {"type": "TEXT_MESSAGE_END", "messageId": f"m{m}"}
    yield {"type": "RUN_FINISHED", **ids}


def test_many_messages_open_at_once_are_capped_together_not_only_each(runs_dir):
    """The cap on a message folded from its pieces held for each alone: a server opening many at once and growing
    them all, each under the cap, held their sum in memory (forty at 16 MB each is 640 MB)."""
    import json
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            try:
                for event in _many_open_streams(body):
                    self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
            except (BrokenPipeError, ConnectionResetError):
                pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        agent = AGUIHttpAgent(f"http://127.0.0.1:{httpd.server_address[1]}/agent", max_line_bytes=1 << 18)
        handle, _ = run("hi", AGUIAdapter(agent), runs_dir)
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert handle.status == "error"
    with pytest.raises(Exception, match=r"the 40 messages and tool calls streaming at once hold over 262144 characters"):
        handle.result()
    kept = [e["payload"] for e in from_source(disk_events(handle), "agui") if e["payload"].get("kind") == "message"]
    assert len(kept) == 40 and all(p.get("partial") is True for p in kept), "what arrived is kept, marked partial"
