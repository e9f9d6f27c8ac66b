"""Raw-response wrappers (``with_raw_response``, ``with_streaming_response``) whose body is unread when ``request`` returns.

The SDK hands back a wrapper and the caller reads the body later, or never: ``parse()`` (a model,
or a ``Stream`` for a streamed call), ``read()`` / ``json()``, the raw ``iter_lines()``. The call's
one event waits for the first of the wrapper's ``_parse`` (the step every ``parse()`` takes), its
``close()`` (the end of a ``with`` block), the wrapper being dropped, or the episode's end, so
the tokens parsed are the tokens recorded. Only the instance's methods are replaced; its class,
and what each method returns or raises, are the SDK's own.
"""

from __future__ import annotations

import inspect
import weakref
from collections.abc import Callable
from typing import Any

from . import dropped
from .calls import ModelCall

__all__ = ["defer"]

_PLAIN: set[type] = set()  # classes that are no raw-response wrapper


def defer(call: ModelCall, result: Any, on_parsed: Callable[[ModelCall, Any, Any], None], extra: Any) -> bool:
    """Watch a wrapper whose body is not read yet (True), or leave ``result`` alone (False: read it now).

    ``on_parsed(call, parsed, extra)`` is told what the wrapper's ``parse()`` returned."""
    kind = type(result)
    if kind in _PLAIN:
        return False
    parse = getattr(kind, "_parse", None)  # the class first: a parsed model's own lookup of a missing name is slow
    if not callable(parse):
        _PLAIN.add(kind)  # each call's response is of a few classes: asked once each (the hot path)
        return False
    raw = getattr(result, "http_response", None)
    close = getattr(kind, "close", None)
    if raw is None or not hasattr(raw, "headers") or _is_read(raw):
        return False
    ref = weakref.ref(result)  # the instance's methods must not keep the instance alive (a cycle delays its finalizer)

    def _parse(*args: Any, **kwargs: Any) -> Any:
        parsed = parse(ref(), *args, **kwargs)
        on_parsed(call, parsed, extra)
        return parsed

    if not callable(close):  # ``with_raw_response``'s wrapper has none: its ``http_response`` is closed directly
        pass
    elif inspect.iscoroutinefunction(close):

        async def aclose() -> None:
            try:
                await close(ref())
            finally:
                call.closed(raw, explicit=True)

        result.close = aclose
    else:

        def sclose() -> None:
            try:
                close(ref())
            finally:
                call.closed(raw, explicit=True)

        result.close = sclose
    result._parse = _parse
    call.waiting(raw)
    dropped.when_dropped(result, lambda at: call.closed(raw, explicit=False, at=at))
    return True


def _is_read(raw: Any) -> bool:
    try:
        raw.content  # noqa: B018 - raises when the body was not read
    except Exception:
        return False
    return True
