"""Scripted AG-UI agents for tests: the same scripts in process and behind a real HTTP server.

``agui_script(behaviour, body)`` gives the events one run answers with (``HANG`` for a run
that never ends). ``ScriptedAGUIAgent`` yields them in process; ``AGUITestServer`` serves
them as SSE on 127.0.0.1 at ``POST /agent/<behaviour>`` (Idun's ``/agent/run`` shape), plus
hand-written raw SSE bodies at ``/raw/<name>``.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

HOSTILE = "<script>alert(1)</script> <img src=x onerror=alert(1)>"
HANG = "HANG"


def _text(text: str, mid: str = "m1") -> list[dict[str, Any]]:
    return [
        {"type": "TEXT_MESSAGE_START", "messageId": mid, "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": mid, "delta": text},
        {"type": "TEXT_MESSAGE_END", "messageId": mid},
    ]


def _tool_call() -> list[dict[str, Any]]:
    return [
        {"type": "TOOL_CALL_START", "toolCallId": "tc1", "toolCallName": "delete_file", "parentMessageId": "m1"},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "tc1", "delta": '{"path": '},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "tc1", "delta": '"x.txt"}'},
        {"type": "TOOL_CALL_END", "toolCallId": "tc1"},
    ]


def _decision_text(payload: Any) -> str:
    if isinstance(payload, dict) and payload.get("approved"):
        return "approved: deleted x.txt"
    reason = payload.get("reason") if isinstance(payload, dict) else None
    return f"rejected: {reason}"


def agui_script(behaviour: str, body: dict[str, Any]) -> Any:
    tid, rid = body["threadId"], body["runId"]
    start = {"type": "RUN_STARTED", "threadId": tid, "runId": rid}
    end = {"type": "RUN_FINISHED", "threadId": tid, "runId": rid}
    users = [m for m in body.get("messages", []) if m.get("role") == "user"]
    if behaviour == "answer":
        return [
            start,
            {"type": "STEP_STARTED", "stepName": "agent"},
            *_text("hello from agui"),
            {"type": "STEP_FINISHED", "stepName": "agent"},
            end,
        ]
    if behaviour == "echo":
        return [start, *_text(f"you said: {users[-1]['content']}"), end]
    if behaviour == "raise":
        return [start, {"type": "RUN_ERROR", "message": "boom", "code": "FRAMEWORK_ERROR"}]
    if behaviour == "usage":
        return [
            start,
            *_text("counted"),
            {
                **end,
                "usage": [
                    {
                        "model": "gpt-4o-mini",
                        "provider": "openai",
                        "inputTokens": 120,
                        "outputTokens": 20,
                        "totalTokens": 140,
                        "cachedInputTokens": 100,
                    }
                ],
            },
        ]
    if behaviour == "hostile":
        return [start, *_text(HOSTILE), end]
    if behaviour == "hang":
        return HANG
    if behaviour == "tool":
        if not body.get("resume"):
            return [
                start,
                *_text("I will delete x.txt"),
                *_tool_call(),
                {
                    **end,
                    "outcome": {
                        "type": "interrupt",
                        "interrupts": [{"id": "i1", "reason": "tool_call", "toolCallId": "tc1", "message": "Delete x.txt?"}],
                    },
                },
            ]
        payload = body["resume"][0]["payload"]
        return [
            start,
            {"type": "TOOL_CALL_RESULT", "messageId": "t1", "toolCallId": "tc1", "content": json.dumps(payload)},
            *_text(_decision_text(payload), "m2"),
            end,
        ]
    if behaviour == "legacy_tool":  # ag-ui 0.1.x / Idun: THINKING_*, CUSTOM on_interrupt, forwardedProps.command.resume
        command = (body.get("forwardedProps") or {}).get("command") or {}
        if "resume" not in command:
            return [
                start,
                {"type": "THINKING_START", "title": "planning"},
                {"type": "THINKING_TEXT_MESSAGE_START"},
                {"type": "THINKING_TEXT_MESSAGE_CONTENT", "delta": "the user wants a deletion"},
                {"type": "THINKING_TEXT_MESSAGE_END"},
                {"type": "THINKING_END"},
                *_tool_call(),
                {
                    "type": "CUSTOM",
                    "name": "on_interrupt",
                    "value": json.dumps({"message": "Delete x.txt?", "toolCallId": "tc1"}),
                },
                end,
            ]
        return [start, *_text(_decision_text(command["resume"]), "m2"), end]
    raise ValueError(f"unknown behaviour {behaviour!r}")


class ScriptedAGUIAgent:
    """An in-process AG-UI agent: ``run(run_input)`` yields the script's events (ag_ui models accepted too)."""

    def __init__(self, behaviour: str, *, pace: float = 0.0):
        self.behaviour = behaviour
        self.pace = pace  # seconds between two events (a run that takes a while)
        self.inputs: list[dict[str, Any]] = []

    async def run(self, run_input: Any):
        body = run_input.model_dump(by_alias=True, exclude_none=True, mode="json")
        self.inputs.append(body)
        if self.behaviour == "raise":
            yield {"type": "RUN_STARTED", "threadId": body["threadId"], "runId": body["runId"]}
            raise RuntimeError("boom")
        events = agui_script(self.behaviour, body)
        if events == HANG:
            yield {"type": "RUN_STARTED", "threadId": body["threadId"], "runId": body["runId"]}
            await asyncio.sleep(3600)
        for event in events:
            await asyncio.sleep(self.pace)
            yield event


RAW = {  # hand-built SSE bodies
    "malformed": (
        'data: {"type":"RUN_STARTED","threadId":"t1","runId":"r1"}\n\n'
        ": keep-alive comment\n\n"
        'data: {"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}\n\n'
        'data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"partial answer"}\n\n'
        'data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta": oops}\n\n'
        'data: {"type":"TEXT_MESSAGE_END","messageId":"m1"}\n\n'
        'data: {"type":"RUN_FINISHED","threadId":"t1","runId":"r1"}\n\n'
    ),
    "invalid_event": (
        'data: {"type":"RUN_STARTED","threadId":"t1","runId":"r1"}\n\n'
        'data: {"type":"TEXT_MESSAGE_CONTENT","delta":"no message id"}\n\n'
    ),
    "no_end": 'data: {"type":"RUN_STARTED","threadId":"t1","runId":"r1"}\n\n',
    "multiline": (
        'data: {"type":"RUN_STARTED",\ndata: "threadId":"t1","runId":"r1"}\n\n'
        'event: message\nid: 7\ndata: {"type":"TEXT_MESSAGE_CHUNK","messageId":"m1","role":"assistant","delta":"one "}\n\n'
        'data: {"type":"TEXT_MESSAGE_CHUNK","delta":"piece"}\n\n'
        'data: {"type":"RUN_FINISHED","threadId":"t1","runId":"r1","result":{"ok":true}}'
    ),
    # the multiline stream with CR-only line ends (SSE allows CRLF, LF or CR)
    "cr_only": (
        'data: {"type":"RUN_STARTED",\rdata: "threadId":"t1","runId":"r1"}\r\r'
        ": keep-alive\r\r"
        'event: message\rid: 7\rdata: {"type":"TEXT_MESSAGE_CHUNK","messageId":"m1","role":"assistant","delta":"one "}\r\r'
        'data: {"type":"TEXT_MESSAGE_CHUNK","delta":"piece"}\r\r'
        'data: {"type":"RUN_FINISHED","threadId":"t1","runId":"r1","result":{"ok":true}}\r\r'
    ),
    # sent in these pieces, each flushed on its own: a CRLF and a CR CR split between two of them
    "split_line_ends": [
        'data: {"type":"RUN_STARTED","threadId":"t1","runId":"r1"}\r',
        "\n\r\n",
        'data: {"type":"TEXT_MESSAGE_CHUNK","messageId":"m1","role":"assistant","delta":"one "}\r',
        "\r",
        'data: {"type":"TEXT_MESSAGE_CHUNK","delta":"piece"}\r\n\r',
        '\ndata: {"type":"RUN_FINISHED","threadId":"t1","runId":"r1","result":{"ok":true}}\n\r',
    ],
}


class _Handler(BaseHTTPRequestHandler):
    server: AGUITestServer._Server

    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        self.server.requests.append({"path": self.path, "body": body, "accept": self.headers.get("Accept")})
        kind, _, name = self.path.strip("/").partition("/")
        if kind not in ("agent", "raw") or (kind == "raw" and name not in RAW):
            self.send_error(404, f"no scenario {self.path}")
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        try:
            if kind == "raw":
                raw = RAW[name]
                for piece in [raw] if isinstance(raw, str) else raw:
                    self.wfile.write(piece.encode())
                    self.wfile.flush()
                    if not isinstance(raw, str):
                        time.sleep(0.05)  # so the client reads each piece on its own
                return
            events = agui_script(name, body)
            if events == HANG:
                self._write({"type": "RUN_STARTED", "threadId": body["threadId"], "runId": body["runId"]})
                deadline = time.monotonic() + 30
                while time.monotonic() < deadline:  # keep-alives until the client goes away
                    time.sleep(0.05)
                    self.wfile.write(b": ping\n\n")
                    self.wfile.flush()
                return
            for event in events:
                self._write(event)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _write(self, event: dict[str, Any]) -> None:
        self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
        self.wfile.flush()


class AGUITestServer:
    """``with AGUITestServer() as server: server.url("agent/tool")`` — a real HTTP server on 127.0.0.1."""

    class _Server(ThreadingHTTPServer):
        daemon_threads = True
        requests: list[dict[str, Any]]

    def __enter__(self) -> AGUITestServer:
        self.httpd = self._Server(("127.0.0.1", 0), _Handler)
        self.httpd.requests = []
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    @property
    def requests(self) -> list[dict[str, Any]]:
        return self.httpd.requests

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/{path}"
