"""An AG-UI agent behind HTTP: POST the full ``RunAgentInput``, read the SSE answer (httpx).

This is how Idun's engine (``POST /agent/run``) and every AG-UI server is driven. The read
timeout is off on purpose: a silent server is the episode's ``idle_timeout_s``'s business.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlsplit

from ..._safetext import unseen_said
from ...secrets import shown, shown_cut
from ...secrets.quoted import quoted
from .._extras import require
from .._lines import LineSplitter
from ._sse import AGUIStreamError, SSEDecoder, decode_event

__all__ = ["AGUIHttpAgent", "MAX_LINE_BYTES"]

REQUESTS_KEPT = 20  # request bodies an agent keeps for inspection: the runs of one episode (``max_runs`` by default)
MAX_LINE_BYTES = 16 * 1024 * 1024  # one SSE line, or one event over several data: lines, larger than this is refused


class AGUIHttpAgent:
    """``AGUIHttpAgent(url)`` is an AG-UI agent: ``agent.run(run_input)`` yields event dicts.

    ``headers`` go on every request (e.g. auth); ``transport`` is an httpx transport (tests use
    ``httpx.MockTransport``); ``connect_timeout`` bounds connecting, not streaming;
    ``max_line_bytes`` caps one SSE line, one event (all its ``data:`` lines) and, for :class:`AGUIAdapter`, one
    message or tool call folded from its streamed pieces, and all those open at once together (in characters), so a
    runaway server cannot fill memory.
    """

    def __init__(
        self,
        url: str,
        *,
        headers: dict[str, str] | None = None,
        connect_timeout: float = 10.0,
        transport: Any = None,
        max_line_bytes: int = MAX_LINE_BYTES,
    ):
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise ValueError(f"url={shown_cut(repr(url), 120)}: pass the agent endpoint, e.g. 'http://127.0.0.1:8000/agent/run'")
        _check_url(url)
        self.url = url
        # how the agent is named in its repr and in every error: a token in the query or a password before
        # the host (``https://user:<token>@host/run?key=…``) is redacted there, and the request keeps it
        self.shown_url = shown(url)
        self.headers = _checked_headers(headers)
        self.connect_timeout = connect_timeout
        self.transport = transport
        self.max_line_bytes = max_line_bytes
        # the last REQUESTS_KEPT bodies sent, newest last (for inspection): one agent serves every episode of a
        # batch, and each body holds its whole conversation, so all of them would grow without end
        self.requests: deque[dict[str, Any]] = deque(maxlen=REQUESTS_KEPT)

    def __repr__(self) -> str:
        return f"AGUIHttpAgent({self.shown_url!r})"

    async def run(self, run_input: Any) -> AsyncIterator[dict[str, Any]]:
        httpx = require("httpx", "agui", "AGUIHttpAgent")
        body = (
            run_input.model_dump(by_alias=True, exclude_none=True, mode="json")
            if hasattr(run_input, "model_dump")
            else dict(run_input)
        )
        self.requests.append(body)
        timeout = httpx.Timeout(None, connect=self.connect_timeout)
        headers = {"Accept": "text/event-stream", **self.headers}
        count = 0
        async with httpx.AsyncClient(transport=self.transport, timeout=timeout) as client:
            try:
                async with client.stream("POST", self.url, json=body, headers=headers) as response:
                    await _check_response(response, self.shown_url)
                    decoder = SSEDecoder(self.max_line_bytes, where=f"POST {self.shown_url}")
                    async for line in _lines(response, self.max_line_bytes, self.shown_url):
                        got = decoder.feed(line)
                        if got:
                            count += 1
                            yield decode_event(*got, where=self.shown_url)
                    got = decoder.close()
                    if got:
                        try:
                            event = decode_event(*got, where=self.shown_url)
                        except AGUIStreamError as exc:
                            raise AGUIStreamError(
                                f"{self.shown_url}, line {got[0]}: the stream ended in the middle of an event "
                                f"({shown_cut(got[1], 120)!r}); the server closed the connection early",
                                line=got[0],
                            ) from exc
                        yield event
            except (httpx.TransportError, httpx.DecodingError) as exc:
                raise _broken(exc, count, self.shown_url, isinstance(exc, httpx.DecodingError)) from exc

    __call__ = run


_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")  # a header name (RFC 9110 token)


def _checked_headers(headers: Any) -> dict[str, str]:
    """``headers`` as given, or ValueError naming the header (never its value: it is most often a credential) that
    HTTP cannot carry; httpx would raise a bare TypeError or UnicodeEncodeError from inside the episode."""
    try:
        given = dict(headers or {})  # a mapping, or (name, value) pairs
    except (TypeError, ValueError):
        raise ValueError(f"headers={quoted(headers, 60)}: pass a dict of header names to text values") from None
    for name, value in given.items():
        problem = _header_problem(name, value)
        if problem:
            raise ValueError(f"headers: {problem}; e.g. headers={{'Authorization': 'Bearer ' + token.strip()}}")
    return given


def _header_problem(name: Any, value: Any) -> str | None:
    """What makes one header unsendable, or None."""
    if not isinstance(name, str) or not _TOKEN.fullmatch(name):
        return f"the header name {quoted(name, 60)} is not a header name (letters, digits and -, no blanks)"
    if isinstance(value, bytes):  # sent as given
        value = value.decode("latin-1")
    elif not isinstance(value, str):
        return f"the value of {name!r} is a {type(value).__name__}, not text: pass str(…) of it"
    elif not value.isascii():
        return f"the value of {name!r} holds a character that is not ASCII, which HTTP headers cannot carry"
    if any(c in value for c in "\r\n\0"):
        return f"the value of {name!r} holds a line end or NUL (read from a file? strip() it)"
    return None


def _check_url(url: str) -> None:
    """Refuse a URL no request can go to (a blank or control character, no host, a bad port), naming why, before a
    run starts: httpx would raise its own error from inside the episode, without the URL or the fix."""
    at = next((i for i, c in enumerate(url) if c.isspace() or not c.isprintable()), None)
    try:
        parts = urlsplit(url)
        port = parts.port  # past 65535, or not a number: ValueError
        problem = None if parts.hostname else "it names no host"
    except ValueError as exc:
        problem, port = f"it cannot be read ({exc})", None
    if at is not None:
        problem = f"it {unseen_said(url[at], at)} (copied with a line end or a blank?)"
    elif port == 0:
        problem = "its port is 0"
    if problem:
        masked = re.sub(r"(?<=://)[^/?#]*@", "<credentials>@", url)  # a password is shown by no error
        raise ValueError(
            f"url={shown_cut(repr(masked), 120)}: {problem}; pass the agent endpoint, e.g. 'http://127.0.0.1:8000/agent/run'"
        )


def _broken(exc: Exception, count: int, url: str, undecodable: bool) -> AGUIStreamError:
    """The error for a request that failed: the connection (or, ``undecodable``, the body's compression) broke."""
    what = f"{type(exc).__name__}: {shown(str(exc))}"
    if undecodable:  # Content-Encoding says gzip, deflate…, and the bytes are not that
        after = f" after {count} event(s)" if count else ""
        kept = "; the events received before were kept" if count else ""
        return AGUIStreamError(
            f"POST {url}: the answer's body could not be decoded as its Content-Encoding says{after} ({what}); the "
            f"server, or a proxy in between, sends a broken compressed stream: check its compression settings{kept}"
        )
    if count:
        return AGUIStreamError(
            f"POST {url}: the connection broke after {count} event(s) ({what}); the events received before were kept"
        )
    return AGUIStreamError(f"POST {url} failed: {what}; is the agent server running?")


async def _check_response(response: Any, url: str) -> None:
    """Refuse anything but a 2xx ``text/event-stream`` answer, naming what came instead."""
    status, ctype = response.status_code, response.headers.get("content-type", "")
    if 300 <= status < 400:
        raise AGUIStreamError(
            f"POST {url} answered HTTP {status}, a redirect to {shown(repr(response.headers.get('location')))}; "
            "pass the URL it names to AGUIHttpAgent, with your own credentials if it needs them (redirects are not "
            "followed for a POST)"
        )
    if not 200 <= status < 300 or (ctype and not ctype.lower().startswith("text/event-stream")):
        head = bytearray()
        async for chunk in response.aiter_bytes():  # the start of the body only: it may be huge
            head += chunk
            if len(head) >= 300:
                break
        text = shown_cut(head.decode("utf-8", "replace"), 300)  # a server may echo the request's credentials
        if not 200 <= status < 300:
            raise AGUIStreamError(f"POST {url} answered HTTP {status}: {text!r}; {_status_fix(status)}")
        raise AGUIStreamError(
            f"POST {url} answered HTTP {status} with Content-Type {quoted(ctype, 80)}, not an SSE stream: {text!r}; "
            "check the URL is the AG-UI endpoint (it must answer text/event-stream)"
        )


def _status_fix(status: int) -> str:
    """What to do about an HTTP error status: credentials for 401/403, the server's log for 5xx, else the URL and input."""
    if status in (401, 403, 407):
        return (
            "the server refused this request's credentials; give AGUIHttpAgent the token it expects with headers= "
            "(e.g. an Authorization header) and check that it is valid for this endpoint"
        )
    if status >= 500:
        return "the agent server failed while answering: see its log, then run the episode again"
    return "check the URL and that the server accepts this RunAgentInput"


async def _lines(response: Any, limit: int, url: str) -> AsyncIterator[str]:
    """SSE lines from the body in linear time, each at most ``limit`` bytes (undecodable bytes become U+FFFD, as SSE says).

    A line ends in CRLF, LF or CR (the SSE spec allows each); a CRLF split between two reads is one line end.
    """
    splitter = LineSplitter()
    async for chunk in response.aiter_bytes():
        for line in splitter.feed(chunk):
            yield line.decode("utf-8", "replace")
        if splitter.pending > limit:
            raise AGUIStreamError(
                f"POST {url}: one SSE line is over {limit} bytes ({splitter.pending} received, no line end yet); "
                "the server sends an oversized event, or pass max_line_bytes= a larger number"
            )
    rest = splitter.close()
    if rest is not None:
        yield rest.decode("utf-8", "replace")
