"""A loopback server that answers like the OpenAI and Anthropic HTTP APIs, in their documented shapes.

Each reply's token counts come from the request (``extra_body={"stub_usage": {...}}``, or defaults),
so concurrent callers each get their own numbers; ``script`` queues replies for a path (an error
status, a retry, a stream cut short). Every request is kept in ``requests``.
"""

from __future__ import annotations

import base64
import json
import secrets
import string
import struct
import threading
import time
from collections import defaultdict, deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs

from noesis_nb.capture import bill_endpoint

DEFAULT = {"input": 1200, "cached": 1000, "cache_write": 0, "output": 90, "reasoning": 64}
ANTHROPIC_DEFAULT = {"uncached": 200, "cache_read": 1000, "cache_write": 300, "output": 80}


_ID_CHARS = string.ascii_letters + string.digits


@dataclass
class Reply:
    status: int = 200
    body: Any = None  # a JSON body, or None for the default answer to the request
    headers: dict[str, str] = field(default_factory=dict)
    cut_after: int | None = None  # a stream: stop after this many events, without the end
    delay: float = 0.0  # seconds to wait before answering (a slow model call)


def chat_completion(model: str, n: dict[str, int], rid: str) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-{rid}",
        "object": "chat.completion",
        "created": 1764460800,
        "model": f"{model}-2024-07-18",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "Done.", "refusal": None},
                "finish_reason": "stop",
                "logprobs": None,
            }
        ],
        "usage": {
            "prompt_tokens": n["input"],
            "completion_tokens": n["output"],
            "total_tokens": n["input"] + n["output"],
            "prompt_tokens_details": {"cached_tokens": n["cached"], "audio_tokens": 0},
            "completion_tokens_details": {
                "reasoning_tokens": n["reasoning"],
                "audio_tokens": 0,
                "accepted_prediction_tokens": 0,
                "rejected_prediction_tokens": 0,
            },
        },
        "system_fingerprint": "fp_stub",
    }


def chat_chunks(model: str, n: dict[str, int], rid: str, include_usage: bool) -> list[dict[str, Any]]:
    base = {"id": f"chatcmpl-{rid}", "object": "chat.completion.chunk", "created": 1764460800, "model": f"{model}-2024-07-18"}
    chunks = [
        {**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}], "usage": None},
        *(
            {**base, "choices": [{"index": 0, "delta": {"content": w}, "finish_reason": None}], "usage": None}
            for w in ("Do", "ne.")
        ),
        {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}], "usage": None},
    ]
    if include_usage:
        chunks.append({**base, "choices": [], "usage": chat_completion(model, n, rid)["usage"]})
    return chunks


def response_object(model: str, n: dict[str, int], rid: str, status: str = "completed") -> dict[str, Any]:
    return {
        "id": f"resp_{rid}",
        "object": "response",
        "created_at": 1764460800,
        "status": status,
        "model": f"{model}-2025-04-16",
        "output": [
            {
                "type": "message",
                "id": f"msg_{rid}",
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "Done.", "annotations": []}],
            }
        ],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "incomplete_details": None,
        "error": None,
        "usage": None
        if status in ("queued", "in_progress", "cancelled")
        else {
            "input_tokens": n["input"],
            "input_tokens_details": {"cached_tokens": n["cached"]},
            "output_tokens": n["output"],
            "output_tokens_details": {"reasoning_tokens": n["reasoning"]},
            "total_tokens": n["input"] + n["output"],
        },
    }


def response_events(model: str, n: dict[str, int], rid: str) -> list[dict[str, Any]]:
    return [
        {"type": "response.created", "sequence_number": 0, "response": response_object(model, n, rid, "in_progress")},
        {"type": "response.output_text.delta", "sequence_number": 1, "item_id": f"msg_{rid}", "output_index": 0,
         "content_index": 0, "delta": "Done.", "logprobs": []},
        {"type": "response.completed", "sequence_number": 2, "response": response_object(model, n, rid)},
    ]  # fmt: skip


def anthropic_message(model: str, n: dict[str, int], rid: str) -> dict[str, Any]:
    return {
        "id": f"msg_{rid}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [{"type": "text", "text": "Done."}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {
            "input_tokens": n["uncached"],
            "cache_creation_input_tokens": n["cache_write"],
            "cache_read_input_tokens": n["cache_read"],
            "output_tokens": n["output"],
        },
    }


def anthropic_events(model: str, n: dict[str, int], rid: str) -> list[dict[str, Any]]:
    start = anthropic_message(model, n, rid)
    start.update(content=[], stop_reason=None, usage={**start["usage"], "output_tokens": 1})
    return [
        {"type": "message_start", "message": start},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "ping"},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Done."}},
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn", "stop_sequence": None},
            "usage": {"output_tokens": n["output"]},
        },
        {"type": "message_stop"},
    ]


def embedding_list(model: str, n: dict[str, int], body: dict[str, Any]) -> dict[str, Any]:
    """An Embeddings answer: a vector per input (floats, or base64 float32 as the SDK asks by default); its usage
    counts ``prompt_tokens`` and a ``total_tokens`` equal to it (an embedding writes no tokens)."""
    given = body.get("input")
    inputs = given if isinstance(given, list) else [given]
    vector = [0.25, -0.5, 0.125]
    as_base64 = body.get("encoding_format") == "base64"
    packed = base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode()
    return {
        "object": "list",
        "data": [{"object": "embedding", "index": i, "embedding": packed if as_base64 else vector} for i in range(len(inputs))],
        "model": model,
        "usage": {"prompt_tokens": n["input"], "total_tokens": n["input"]},
    }


class ProviderStub:
    """``base_url`` for ``openai.OpenAI(base_url=stub.openai_url)`` and ``anthropic.Anthropic(base_url=stub.url)``."""

    def __init__(self, keep_alive: bool = False) -> None:
        """``keep_alive``: JSON replies leave the connection open (HTTP/1.1, no Nagle delay), as providers and local
        model servers do, so an SDK client reuses one connection; by default each reply closes its connection."""
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.scripts: dict[str, deque[Reply]] = defaultdict(deque)
        self._lock = threading.Lock()
        self._counter = 0
        self.connections = 0  # TCP connections accepted
        # background responses (``background: true``): id -> (model, counts, polls answered ``in_progress`` before the end)
        self.background: dict[str, list[Any]] = {}
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1" if keep_alive else "HTTP/1.0"
            disable_nagle_algorithm = keep_alive  # headers and body go out in two writes: no 40 ms wait for an ACK

            def setup(self) -> None:
                super().setup()
                with stub._lock:
                    stub.connections += 1

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                stub.answer(self, self.path, body)

            def do_GET(self) -> None:  # a background response polled: ``GET /v1/responses/{id}``, or streamed
                path, _, query = self.path.partition("?")
                stub.answer(self, path, {"method": "GET", "query": {k: v[-1] for k, v in parse_qs(query).items()}})

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.openai_url = self.url + "/v1"
        # it stands in for the providers' own hosts: calls to it are billed as OpenAI's (under /v1) and Anthropic's
        bill_endpoint(self.openai_url, "openai")
        bill_endpoint(self.url, "anthropic")
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        bill_endpoint(self.openai_url, None)
        bill_endpoint(self.url, None)
        self.server.shutdown()
        self.server.server_close()

    def script(self, path: str, *replies: Reply) -> None:
        self.scripts[path].extend(replies)

    def hits(self, path: str) -> int:
        return sum(1 for p, _ in self.requests if p == path)

    # -- answering ------------------------------------------------------------------------------
    def answer(self, handler: BaseHTTPRequestHandler, path: str, body: dict[str, Any]) -> None:
        with self._lock:
            self.requests.append((path, body))
            self._counter += 1
            # as long and random as the providers' ids, mixing cases and digits as theirs do (``msg_01XFDUDYJgAACzvn…``)
            rid = f"{self._counter:04d}" + "".join(secrets.choice(_ID_CHARS) for _ in range(24))
            reply = self.scripts[path].popleft() if self.scripts[path] else Reply()
        if reply.delay:
            time.sleep(reply.delay)
        anthropic = path.startswith("/v1/messages")
        headers = {"request-id" if anthropic else "x-request-id": f"req_{rid}", **reply.headers}
        if reply.body is not None or reply.status != 200:
            return self._json(handler, reply.status, reply.body or {"error": {"message": "stub error"}}, headers)
        model = body.get("model", "unknown")
        wanted = body.get("stub_usage")  # sent with extra_body={"stub_usage": {...}}
        n = {**(ANTHROPIC_DEFAULT if anthropic else DEFAULT), **(wanted if isinstance(wanted, dict) else {})}
        stream = bool(body.get("stream"))
        if path == "/v1/chat/completions":
            if not stream:
                return self._json(handler, 200, chat_completion(model, n, rid), headers)
            include = bool((body.get("stream_options") or {}).get("include_usage"))
            return self._sse(handler, [(None, c) for c in chat_chunks(model, n, rid, include)], headers, reply, done=True)
        if path.startswith("/v1/responses/"):
            return self._background(handler, path, headers, body.get("query") or {}, reply)
        if path == "/v1/responses":
            if body.get("background") is True and not stream:  # answered at once, queued; its end is polled for
                with self._lock:
                    self.background[f"resp_{rid}"] = [model, n, int(n.get("polls", 1))]
                return self._json(handler, 200, response_object(model, n, rid, status="queued"), headers)
            if body.get("background") is True:  # streamed from its start: the events a streamed retrieve sends
                with self._lock:
                    self.background[f"resp_{rid}"] = [model, n, -1]
                return self._sse(handler, self._retrieve_events(model, n, f"resp_{rid}", {}), headers, reply)
            if not stream:
                return self._json(handler, 200, response_object(model, n, rid), headers)
            return self._sse(handler, [(e["type"], e) for e in response_events(model, n, rid)], headers, reply)
        if path == "/v1/embeddings":
            return self._json(handler, 200, embedding_list(model, n, body), headers)
        if path == "/v1/messages":
            if not stream:
                return self._json(handler, 200, anthropic_message(model, n, rid), headers)
            return self._sse(handler, [(e["type"], e) for e in anthropic_events(model, n, rid)], headers, reply)
        return self._json(handler, 404, {"error": {"message": f"no route {path}"}}, headers)

    def _background(
        self, handler: BaseHTTPRequestHandler, path: str, headers: dict[str, str], query: dict[str, str], reply: Reply
    ) -> None:
        """``GET /v1/responses/{id}`` (``in_progress`` for its first polls, then ``completed`` with its usage),
        ``GET /v1/responses/{id}?stream=true[&starting_after=N]`` (the response's events from N on, to its
        ``response.completed``) and ``POST /v1/responses/{id}/cancel`` (``cancelled``, no usage)."""
        response_id, _, action = path.removeprefix("/v1/responses/").partition("/")
        streamed = query.get("stream") == "true" and not action
        with self._lock:
            known = self.background.get(response_id)
            if known is not None and action != "cancel":
                known[2] = -1 if streamed else known[2] - 1  # a stream runs to the end: later polls see it ended
        if known is None:
            return self._json(handler, 404, {"error": {"message": f"no response {response_id}"}}, headers)
        model, n, polls = known
        if streamed:
            return self._sse(handler, self._retrieve_events(model, n, response_id, query), headers, reply)
        status = "cancelled" if action == "cancel" else "in_progress" if polls >= 0 else "completed"
        return self._json(handler, 200, response_object(model, n, response_id.removeprefix("resp_"), status), headers)

    @staticmethod
    def _retrieve_events(model: str, n: dict[str, int], response_id: str, query: dict[str, str]) -> list[tuple[str | None, Any]]:
        """A background response's events as a streamed retrieve sends them (``response.created`` and
        ``response.queued`` of the queued response, ``response.in_progress``, the output's events,
        ``response.completed``), those after ``starting_after``."""
        rid = response_id.removeprefix("resp_")
        done = response_events(model, n, rid)
        events = [
            {"type": "response.created", "response": response_object(model, n, rid, "queued")},
            {"type": "response.queued", "response": response_object(model, n, rid, "queued")},
            {"type": "response.in_progress", "response": response_object(model, n, rid, "in_progress")},
            *done[1:],
        ]
        after = int(query.get("starting_after", -1))
        numbered = [{**e, "sequence_number": i} for i, e in enumerate(events)]
        return [(e["type"], e) for e in numbered if e["sequence_number"] > after]

    @staticmethod
    def _json(handler: BaseHTTPRequestHandler, status: int, body: Any, headers: dict[str, str]) -> None:
        data = json.dumps(body).encode()
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        for key, value in headers.items():
            handler.send_header(key, value)
        handler.end_headers()
        try:
            handler.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (a cancelled call)
            pass

    @staticmethod
    def _sse(handler: BaseHTTPRequestHandler, events: list[tuple[str | None, Any]], headers: dict[str, str], reply: Reply,
             done: bool = False) -> None:  # fmt: skip
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.send_header("Connection", "close")
        for key, value in headers.items():
            handler.send_header(key, value)
        handler.end_headers()
        if reply.cut_after is not None:
            events, done = events[: reply.cut_after], False
        for name, data in events:
            prefix = f"event: {name}\n" if name else ""
            handler.wfile.write(f"{prefix}data: {json.dumps(data)}\n\n".encode())
            handler.wfile.flush()
            time.sleep(0.001)
        if done:
            handler.wfile.write(b"data: [DONE]\n\n")
        handler.close_connection = True
