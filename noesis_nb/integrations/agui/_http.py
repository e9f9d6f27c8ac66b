"""An AG-UI agent behind HTTP: POST the full ``RunAgentInput``, read the SSE answer (httpx).

This is how Idun's engine (``POST /agent/run``) and every AG-UI server is driven. The read
timeout is off on purpose: a silent server is the episode's ``idle_timeout_s``'s business.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from .._extras import require
from ._sse import AGUIStreamError, SSEDecoder, decode_event

__all__ = ["AGUIHttpAgent"]


class AGUIHttpAgent:
    """``AGUIHttpAgent(url)`` is an AG-UI agent: ``agent.run(run_input)`` yields event dicts.

    ``headers`` go on every request (e.g. auth); ``transport`` is an httpx transport (tests use
    ``httpx.MockTransport``); ``connect_timeout`` bounds connecting, not streaming.
    """

    def __init__(self, url: str, *, headers: dict[str, str] | None = None, connect_timeout: float = 10.0, transport: Any = None):
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise ValueError(f"url={url!r}: pass the agent endpoint, e.g. 'http://127.0.0.1:8000/agent/run'")
        self.url = url
        self.headers = dict(headers or {})
        self.connect_timeout = connect_timeout
        self.transport = transport
        self.requests: list[dict[str, Any]] = []  # bodies sent, newest last (for inspection)

    def __repr__(self) -> str:
        return f"AGUIHttpAgent({self.url!r})"

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
        async with httpx.AsyncClient(transport=self.transport, timeout=timeout) as client:
            try:
                async with client.stream("POST", self.url, json=body, headers=headers) as response:
                    if response.status_code >= 400:
                        text = (await response.aread()).decode("utf-8", "replace")
                        raise AGUIStreamError(
                            f"POST {self.url} answered HTTP {response.status_code}: {text[:300]!r}; "
                            "check the URL and that the server accepts this RunAgentInput"
                        )
                    decoder = SSEDecoder()
                    async for line in response.aiter_lines():
                        got = decoder.feed(line)
                        if got:
                            yield decode_event(*got, where=self.url)
                    got = decoder.close()
                    if got:
                        yield decode_event(*got, where=self.url)
            except httpx.TransportError as exc:
                raise AGUIStreamError(
                    f"POST {self.url} failed: {type(exc).__name__}: {exc}; is the agent server running?"
                ) from exc

    __call__ = run
