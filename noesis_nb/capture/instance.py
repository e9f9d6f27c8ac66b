"""A ``request`` set on one client (``client.request = traced(original)``, ``mock.patch.object(client, "request")``).

An attribute of the instance hides the class's ``request`` that capture wraps, so the SDKs' base clients get a
``__setattr__`` that wraps a ``request`` set on an instance (clients nobody patches pay nothing per call). The
wrapper records the call once the SDK builds its HTTP request (the instance's ``_build_request``, shimmed at the
same time): a replacement that answers by itself (a mock, a cache) never reaches the provider and is no model call,
and one that calls the class's wrapped ``request`` is recorded there, once.

A ``request`` set on an instance before capture was installed in the process (before the first episode that
captures) is wrapped when capture is installed (``adopt``). Limit: one written into the instance's ``__dict__``
directly once capture is installed is not seen: such a call is not recorded unless it goes through the class's
``request``.
"""

from __future__ import annotations

import contextvars
import functools
import gc
import weakref
from typing import Any

from .calls import ModelCall
from .scope import IN_SDK_CALL

__all__ = ["install", "adopt", "uninstall"]

_MARK = "__noesis_nb_instance__"
_installed: list[tuple[type, Any]] = []  # (base client, the ``__setattr__`` it defined itself, or None)


class _Pending:
    """One call through an instance's ``request``: the call, once the SDK built its request."""

    __slots__ = ("client", "options", "call", "inside")

    def __init__(self, client: Any, args: tuple[Any, ...], kwargs: dict[str, Any]):
        self.client = client
        # the options the replacement was called with, as the class's ``request`` is (before a Bedrock or Vertex
        # client's ``_prepare_options`` turns ``/v1/messages`` into the platform's path): they name the call
        self.options = args[1] if len(args) > 1 else kwargs.get("options")
        self.call: Any = None
        self.inside: Any = None  # IN_SDK_CALL's token, set when the call began


_PENDING: contextvars.ContextVar[_Pending | None] = contextvars.ContextVar("noesis_nb_instance_call", default=None)


def install(base: type, provider: str, streams: tuple[Any, Any], is_async: bool, begin: Any, returned: Any) -> None:
    """Give ``base`` a ``__setattr__`` that wraps a ``request`` set on its instances (``begin``/``returned``: the
    hooks' own start and end of a call)."""
    own = base.__dict__.get("__setattr__")
    if own is not None and getattr(own, _MARK, False):
        return
    previous = own if own is not None else object.__setattr__

    def __setattr__(self: Any, name: str, value: Any) -> None:
        if name == "request":
            value = _watched(self, value, provider, streams, is_async, begin, returned)
        previous(self, name, value)

    setattr(__setattr__, _MARK, True)
    base.__setattr__ = __setattr__  # type: ignore[assignment]
    _installed.append((base, own))


def adopt(bases: list[tuple[type, str, tuple[Any, Any], bool]], begin: Any, returned: Any) -> None:
    """Wrap the ``request`` of clients given one before capture was installed (a tracer set up in an earlier cell),
    as ``__setattr__`` wraps one set later: ``bases`` are (base client, provider, stream classes, async).

    The clients are found among the referrers of their classes: one pass over the process's objects, made once,
    when capture is first installed in a process that had imported the SDK (tens of milliseconds on a large heap)."""
    classes: list[type] = []
    for base, *_ in bases:
        stack = [base]
        while stack:
            cls = stack.pop()
            if cls not in classes:
                classes.append(cls)
                stack.extend(cls.__subclasses__())
    try:
        found = [obj for obj in gc.get_referrers(*classes) if isinstance(obj, tuple(b for b, *_ in bases))]
    except Exception:
        return
    for client in found:
        value = getattr(client, "__dict__", {}).get("request")
        if value is None:
            continue
        for base, provider, streams, is_async in bases:
            if isinstance(client, base):
                client.__dict__["request"] = _watched(client, value, provider, streams, is_async, begin, returned)
                break


def _watched(client: Any, value: Any, provider: str, streams: Any, is_async: bool, begin: Any, returned: Any) -> Any:
    """``value`` set as ``client.request``, wrapped to record the calls it sends (itself when it cannot be)."""
    if not callable(value) or getattr(value, _MARK, False):
        return value
    try:
        wrapped = _wrap(client, value, provider, streams, is_async, begin, returned)
        _shim_build(client, provider, begin)
    except Exception:  # capture never breaks the patch it watches
        return value
    return wrapped


def uninstall() -> None:
    """Give the base clients their own ``__setattr__`` back; wrappers already set become pass-throughs."""
    for base, own in reversed(_installed):
        if own is None:
            del base.__setattr__
        else:
            base.__setattr__ = own
    _installed.clear()


def _wrap(client: Any, value: Any, provider: str, streams: Any, is_async: bool, begin: Any, returned: Any) -> Any:
    """``value`` called as the instance's ``request``, with the SDK call it reaches recorded."""
    if is_async:

        @functools.wraps(value, updated=())
        async def arequest(*args: Any, **kwargs: Any) -> Any:
            if not _installed:
                return await value(*args, **kwargs)
            pending = _Pending(weakref.ref(client), args, kwargs)
            token = _PENDING.set(pending)
            try:
                result = await value(*args, **kwargs)
            except BaseException as exc:
                _failed(pending, exc)
                raise
            finally:
                _leave(pending, token)
            if pending.call is not None:
                returned(pending.call, result, streams)
            return result

        wrapper: Any = arequest
    else:

        @functools.wraps(value, updated=())
        def request(*args: Any, **kwargs: Any) -> Any:
            if not _installed:
                return value(*args, **kwargs)
            pending = _Pending(weakref.ref(client), args, kwargs)
            token = _PENDING.set(pending)
            try:
                result = value(*args, **kwargs)
            except BaseException as exc:
                _failed(pending, exc)
                raise
            finally:
                _leave(pending, token)
            if pending.call is not None:
                returned(pending.call, result, streams)
            return result

        wrapper = request
    setattr(wrapper, _MARK, True)
    return wrapper


def _failed(pending: _Pending, exc: BaseException) -> None:
    if pending.call is not None:
        pending.call.failed(exc)


def _leave(pending: _Pending, token: contextvars.Token[Any]) -> None:
    _PENDING.reset(token)
    if pending.inside is not None:
        try:
            IN_SDK_CALL.reset(pending.inside)
        except ValueError:  # the replacement ran the SDK in another context (a task of its own): it ended there
            pass


def _shim_build(client: Any, provider: str, begin: Any) -> None:
    """Put on the instance a ``_build_request`` that begins the call of the ``request`` wrapper running (the first
    attempt; a retry builds again) when no wrapper of the class's ``request`` has begun it."""
    current = client.__dict__.get("_build_request")
    if current is not None and getattr(current, _MARK, False):
        return
    ref = weakref.ref(client)

    def _build_request(options: Any, *args: Any, **kwargs: Any) -> Any:
        me: Any = ref()
        pending = _PENDING.get()
        if pending is not None and pending.client() is me and me is not None and not IN_SDK_CALL.get():
            asked = pending.options if pending.options is not None else options
            pending.call = begin(provider, (None, asked), {}, me)
            if pending.call is not None:
                pending.inside = IN_SDK_CALL.set(True)
                if asked is not options and isinstance(pending.call, ModelCall):
                    pending.call.watch_parser(options)  # the copy the SDK parses the answer with
        elif pending is not None and isinstance(pending.call, ModelCall) and pending.client() is me:
            pending.call.watch_parser(options)  # a retry builds from a fresh copy of the options
        build = current if current is not None else type(me)._build_request.__get__(me)
        return build(options, *args, **kwargs)

    setattr(_build_request, _MARK, True)
    client.__dict__["_build_request"] = _build_request
