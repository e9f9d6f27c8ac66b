"""Where an http(s) source's server may move a request: one rule for its index pages and its file reads.

A move (a 3xx answer) is followed on the same server only (its host and port, or that host's https), never to a URL
holding a user part, and at most ``MAX_REDIRECTS`` times. File reads go through aiohttp, which follows moves itself
(to any host, ten times); ``guard`` is the trace that makes it keep this rule, refusing any other move with
``MoveRefused`` naming where it led: a file moved to another host is no file of the source, and a move is no way to
hand the source's headers or the user's credentials to someone else.
"""

from __future__ import annotations

import functools
from types import SimpleNamespace
from typing import Any
from urllib.parse import urljoin, urlsplit

from ..secrets.quoted import quoted_text

__all__ = ["MAX_REDIRECTS", "MoveRefused", "guard", "same_server", "shown", "refused_move"]

#: moves one request may make before it is refused (a loop, or a chain no server needs)
MAX_REDIRECTS = 5
_PORTS = {"http": 80, "https": 443}


class MoveRefused(Exception):
    """A move of a request that was not followed: ``why`` says where it led and why not."""

    def __init__(self, why: str):
        super().__init__(why)
        self.why = why


def same_server(url: str, target: str) -> bool:
    """Whether ``target`` is on ``url``'s server: the same host and port, or its https (an upgrade, never a downgrade),
    with no user part."""
    old, new = urlsplit(url), urlsplit(target)
    if new.scheme not in _PORTS or old.scheme not in _PORTS or (old.scheme, new.scheme) == ("https", "http"):
        return False
    if (old.hostname or "").lower() != (new.hostname or "").lower() or new.username or new.password:
        return False
    old_port, new_port = old.port or _PORTS[old.scheme], new.port or _PORTS[new.scheme]
    upgraded = old.scheme != new.scheme and (old_port, new_port) == (80, 443)
    return old_port == new_port or upgraded


def refused_move(url: str, target: str, status: int) -> str | None:
    """Why a file's move from ``url`` (the URL first asked) to ``target`` is not followed; None when it is."""
    if same_server(url, target):
        return None
    parts = urlsplit(target)
    where = "a URL holding a user part" if parts.username or parts.password else "another server"
    return f"the server answered HTTP {status}, moving it to {shown(target)}; not followed ({where})"


def shown(url: str) -> str:
    """A URL as a problem names it: no user part, query or fragment (they may hold a token)."""
    parts = urlsplit(url)
    host = parts.netloc.rsplit("@", 1)[-1]
    return quoted_text(f"{parts.scheme}://{host}{parts.path}", 120)


@functools.cache
def guard() -> Any:
    """An aiohttp ``TraceConfig`` holding every request of a session to the rule above: a move past
    ``MAX_REDIRECTS``, to another server or to a URL with a user part raises ``MoveRefused`` before it is followed.
    One for all sessions (its state is per request), so fsspec's cache of file systems keys on the same options."""
    import aiohttp

    async def started(session: Any, ctx: SimpleNamespace, params: Any) -> None:
        ctx.first, ctx.moves = str(params.url), 0

    async def moved(session: Any, ctx: SimpleNamespace, params: Any) -> None:
        response = params.response
        target = urljoin(str(response.url), response.headers.get("Location", "")).split("#", 1)[0]
        ctx.moves += 1
        if ctx.moves > MAX_REDIRECTS:
            raise MoveRefused(f"the server moved it more than {MAX_REDIRECTS} times (last to {shown(target)}); not followed")
        if (why := refused_move(ctx.first, target, response.status)) is not None:
            raise MoveRefused(why)

    config = aiohttp.TraceConfig()
    config.on_request_start.append(started)
    config.on_request_redirect.append(moved)
    config.freeze()
    return config
