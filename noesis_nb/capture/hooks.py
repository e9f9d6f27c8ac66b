"""The SDK hooks: ``request`` of the ``openai`` and ``anthropic`` base clients, wrapped once per process.

Both SDKs send every API call through ``SyncAPIClient.request`` / ``AsyncAPIClient.request``, which
holds their retry loop and returns the parsed response or the ``Stream``. Wrapping that one method
sees each logical call once (retries included), on every client class (Azure, ``with_options``
copies), with no change to the event loop. The wrapper is a pass-through when no episode is current,
returns the SDK's own object, and re-raises the SDK's own exception. A stream is watched by putting
an observing generator in front of the stream's private ``_iterator`` (the same ``Stream`` object is
returned, and yields the same items). A raw-response wrapper whose body is not read yet is watched
until the caller parses, closes or drops it (``raw``).

The SDKs are never imported here: a module already imported is patched at once, and one imported
later is patched right after its own import (a finder on ``sys.meta_path`` that watches the two
``_base_client`` modules and nothing else). ``uninstall()`` undoes both.
"""

from __future__ import annotations

import functools
import importlib.abc
import importlib.machinery
import sys
import threading
import weakref
from collections.abc import AsyncIterator, Callable, Iterator
from types import FunctionType, ModuleType
from typing import Any

from .. import _forks
from ..secrets.names import hunted, looks_like_credential
from . import dropped, raw
from .billing import billed_provider
from .calls import _APIS, _UNSEEN, ABANDONED, CLOSED, PARSED, ModelCall, Retrieval, endpoint
from .late import began_late
from .scope import _CURRENT, IN_SDK_CALL

__all__ = ["ensure_installed", "uninstall", "installed"]

_TARGETS = {"openai._base_client": "openai", "anthropic._base_client": "anthropic"}
_ORIGINAL = "__noesis_nb_original__"
_lock = threading.RLock()
_patched: list[tuple[type, Callable[..., Any]]] = []
_bases: list[tuple[type, Any, str, tuple[Any, Any]]] = []  # (base client, its wrap, provider, stream classes)
_finder: _AfterImport | None = None


def ensure_installed() -> None:
    """Patch the SDKs already imported and watch for the others (idempotent, cheap after the first call).

    Each call also patches a client class that has its own ``request`` since (another library's wrapper of the
    method set on ``OpenAI`` itself, as OpenInference's instrumentation does): it would hide the base class's."""
    global _finder
    if _finder is not None:
        _patch_overrides()
        return
    with _lock:
        if _finder is not None:
            return
        for name, provider in _TARGETS.items():
            module = sys.modules.get(name)
            if module is not None:
                _patch(module, provider)
        _finder = _AfterImport()
        sys.meta_path.insert(0, _finder)


def uninstall() -> None:
    """Restore the SDKs' own methods and stop watching imports."""
    global _finder
    with _lock:
        for cls, original in reversed(_patched):
            cls.request = original
        _patched.clear()
        _bases.clear()
        if _finder is not None and _finder in sys.meta_path:
            sys.meta_path.remove(_finder)
        _finder = None


def installed() -> list[str]:
    """The patched classes, as ``module.Class`` (for diagnostics and tests)."""
    return [f"{cls.__module__}.{cls.__qualname__}" for cls, _ in _patched]


def _patch(module: ModuleType, provider: str) -> None:
    """Wrap ``request`` of the module's two base clients, and of every subclass that defines its own."""
    with _lock:
        streaming = sys.modules.get(f"{provider}._streaming")
        streams = (getattr(streaming, "Stream", None), getattr(streaming, "AsyncStream", None))
        for name, wrap in (("SyncAPIClient", _wrap_sync), ("AsyncAPIClient", _wrap_async)):
            base = getattr(module, name, None)
            if not isinstance(base, type):
                continue
            _bases.append((base, wrap, provider, streams))
            for cls in (base, *_subclasses(base)):
                _patch_class(cls, wrap, provider, streams)


def _patch_class(cls: type, wrap: Any, provider: str, streams: tuple[Any, Any]) -> None:
    """Wrap ``cls.request`` when the class defines one that does not go through capture yet.

    A wrapper of ours anywhere inside it (another library's wrapper made after ours, which hands attribute
    reads to what it wraps) shows in ``_ORIGINAL``: that chain is left as it is."""
    method = cls.__dict__.get("request")
    if method is None or hasattr(method, _ORIGINAL):
        return
    wrapped = wrap(method, provider, streams)
    setattr(wrapped, _ORIGINAL, method)
    cls.request = wrapped  # type: ignore[attr-defined]
    _patched.append((cls, method))


def _patch_overrides() -> None:
    """Patch the subclasses of the patched base clients that defined their own ``request`` since (one walk of a
    few classes, at each episode's start)."""
    for base, wrap, provider, streams in _bases:
        for cls in _subclasses(base):
            method = cls.__dict__.get("request")
            if method is not None and not hasattr(method, _ORIGINAL):
                with _lock:
                    _patch_class(cls, wrap, provider, streams)


def _subclasses(base: type) -> list[type]:
    """Every subclass of ``base``, at any depth (``OpenAI``, ``AzureOpenAI``, a user's own)."""
    found: list[type] = []
    stack: list[type] = list(base.__subclasses__())
    while stack:
        cls = stack.pop()
        if cls not in found:
            found.append(cls)
            stack.extend(cls.__subclasses__())
    return found


def _caller(original: Any) -> Callable[..., Any]:
    """``original`` called for an instance: a plain function with the instance first; another library's wrapper of
    the method (wrapt's, a descriptor) bound to the instance first, as reading ``instance.request`` would."""
    if type(original) is FunctionType:  # (not isinstance: wrapt's wrappers pass for the function they wrap)
        plain: Callable[..., Any] = original
        return plain

    def bound(self: Any, *args: Any, **kwargs: Any) -> Any:
        return original.__get__(self, type(self))(*args, **kwargs)

    return bound


def _wrap_sync(original: Callable[..., Any], provider: str, streams: tuple[Any, Any]) -> Callable[..., Any]:
    call_original = _caller(original)

    @functools.wraps(original)
    def request(self: Any, *args: Any, **kwargs: Any) -> Any:
        call = _begin(provider, args, kwargs, self)
        if call is None:
            return call_original(self, *args, **kwargs)
        inside = IN_SDK_CALL.set(True)
        try:
            result = call_original(self, *args, **kwargs)
        except BaseException as exc:
            call.failed(exc)
            raise
        finally:
            IN_SDK_CALL.reset(inside)
        _returned(call, result, streams)
        return result

    return request


def _wrap_async(original: Callable[..., Any], provider: str, streams: tuple[Any, Any]) -> Callable[..., Any]:
    call_original = _caller(original)

    @functools.wraps(original)
    async def request(self: Any, *args: Any, **kwargs: Any) -> Any:
        call = _begin(provider, args, kwargs, self)
        if call is None:
            return await call_original(self, *args, **kwargs)
        inside = IN_SDK_CALL.set(True)
        try:
            result = await call_original(self, *args, **kwargs)
        except BaseException as exc:
            call.failed(exc)
            raise
        finally:
            IN_SDK_CALL.reset(inside)
        _returned(call, result, streams)
        return result

    return request


def _begin(provider: str, args: tuple[Any, ...], kwargs: dict[str, Any], client: Any = None) -> ModelCall | Retrieval | None:
    """The call to record when an episode's capture is on here, else None; a draining episode refuses
    a new call at this point (``EpisodeStopping``), before anything is sent."""
    if dropped.PENDING:  # streams collected since the last call: their events are written here, outside the collector
        dropped.run()
    scope = _CURRENT.get()  # (``current()``, inline: asked at every SDK call)
    if scope is not None and scope.generation != _forks.generation:  # a forked child writes nothing to the parent's run
        scope = None
    if scope is None or scope.closed or IN_SDK_CALL.get():  # (inside a captured call: the same call, a layer down)
        if scope is not None and scope.closed and not IN_SDK_CALL.get():  # a task the adapter left running
            began_late(scope.episode_id, provider, args[1] if len(args) > 1 else kwargs.get("options"), client, endpoint)
        return None
    if scope.learn is not None:  # (``_learn_credentials``'s own test, inline: a client's keys are told at its first call)
        try:
            key, token = getattr(client, "api_key", None), getattr(client, "auth_token", None)
            told = (key if isinstance(key, str) else None, token if isinstance(token, str) else None) in scope.keys_told
        except Exception:
            told = False
        if not told:
            _learn_credentials(scope, client)
    options: Any = args[1] if len(args) > 1 else kwargs.get("options")  # (``request(cast_to, options, …)``)
    try:  # (``ModelCall.begin``, inline; and ``endpoint``'s memo of a request's method and path read here, without a call)
        api: Any
        try:
            method, url = options.method, options.url
            api = _APIS.get((provider, method, url), _UNSEEN) if type(method) is str and type(url) is str else _UNSEEN
        except Exception:  # options of another shape: ``endpoint`` reads them
            api = _UNSEEN
        if api is _UNSEEN:
            api = endpoint(provider, options)
        call = None if api is None else ModelCall(scope, provider, api, options)
    except Exception:
        call = None
    if call is None:
        return Retrieval.of(scope, provider, options)  # None unless a background response may end here
    call.billed = billed = billed_provider(client, provider)
    # the scope's watcher told the call starts (its refusal, an episode that drains, raises to the caller), and the
    # call counted as sent (made here, not in a method of the call: one Python call fewer on every call's path)
    watcher = scope.watcher
    if watcher is not None:
        call.token = watcher.model_started(billed or provider, call.requested_model)
    with scope.lock:
        scope.sent_calls.add(call)
        call.began = scope.calls_started = scope.calls_started + 1
    parser = getattr(options, "post_parser", None)
    if callable(parser):  # a parse helper's (plain calls have none)
        call.watch_parser(options, parser)
    return call


def _learn_credentials(scope: Any, client: Any) -> None:
    """Tell the episode the key the client calls with: a server's error or a model's answer that echoes it
    (a key of no known shape, a proxy's own) is then redacted like any value the run has learned."""
    if scope.learn is None:
        return
    try:
        key, token = getattr(client, "api_key", None), getattr(client, "auth_token", None)
        keys = (key if isinstance(key, str) else None, token if isinstance(token, str) else None)
        if keys in scope.keys_told:  # a client's keys told already (all its calls but the first)
            return
        scope.learn([k for k in keys if k is not None and _a_real_key(k)])
        scope.keys_told.add(keys)
    except Exception:  # capture never breaks the call it watches
        pass


def _a_real_key(key: str) -> bool:
    """A provider's key, not a local server's placeholder (``"ollama"``, ``"lm-studio"``, ``"sk-no-key-required"``,
    ``"EMPTY"``: ``names.hunted``, the rule every learned value passes): learned, a placeholder would be redacted
    wherever the run names the server or the model."""
    key = key.strip()
    return hunted(key) and len(key) >= 12 and looks_like_credential(key) and any(c.isdigit() or c.isupper() for c in key)


def _returned(call: ModelCall | Retrieval, result: Any, streams: tuple[Any, Any]) -> None:
    """Record a response now, or watch a stream until it ends (or is dropped), or a raw response until it is read."""
    if isinstance(call, Retrieval):  # a background response's retrieve: read when parsed (a stream: its events)
        call.returned(result, streams)
        return
    try:
        if type(result) in PARSED:  # most calls: a parsed response of a class seen before, neither stream nor wrapper
            call.returned(result)
            return
        if _watch_stream(call, result, streams) or raw.defer(call, result, _parsed, streams):
            return
        call.returned(result)
    except Exception:
        call.finish()


def _parsed(call: ModelCall, parsed: Any, streams: tuple[Any, Any]) -> None:
    """A raw response's ``parse()`` result: a stream to watch, or the response itself (the first one counts)."""
    if call.done or call.watching:
        return
    try:
        if not _watch_stream(call, parsed, streams):
            call.returned(parsed)
    except Exception:
        call.finish()


def _watch_stream(call: ModelCall, result: Any, streams: tuple[Any, Any]) -> bool:
    stream_cls, async_stream_cls = streams
    if stream_cls is not None and isinstance(result, stream_cls):
        call.streaming(result.response)
        result._iterator = _observe(result._iterator, call)
        _on_close(result.response, weakref.ref(result._iterator), call)
    elif async_stream_cls is not None and isinstance(result, async_stream_cls):
        call.streaming(result.response)
        result._iterator = _observe_async(result._iterator, call)
        _on_aclose(result.response, weakref.ref(result._iterator), call)
    else:
        return False
    dropped.when_dropped(result, call.dropped)
    return True


def _on_close(response: Any, observer: Callable[[], Any], call: ModelCall) -> None:
    """The caller closing the stream before its end (``close()``, leaving a helper's ``with`` block) ends the call then.

    Every ``close`` of a stream and of the SDKs' stream helpers closes this HTTP response. The SDK also closes it at
    the stream's own end, from inside the observer (running then), and when the collector takes a dropped stream
    (the observer is gone then): those closes are left to the observer and to ``dropped``.
    """
    close = response.close

    def closing() -> None:
        try:
            close()
        finally:
            gen = observer()  # None: the collector is taking the stream (written later, as dropped)
            if gen is not None and not gen.gi_running:
                call.stream_stopped(abandoned=True, reason=CLOSED)

    response.close = closing


def _on_aclose(response: Any, observer: Callable[[], Any], call: ModelCall) -> None:
    """``_on_close`` for an async stream (its response's ``aclose``)."""
    aclose = response.aclose

    async def aclosing() -> None:
        try:
            await aclose()
        finally:
            gen = observer()
            if gen is not None and not gen.ag_running:
                call.stream_stopped(abandoned=True, reason=CLOSED)

    response.aclose = aclosing


def _observe(iterator: Iterator[Any], call: ModelCall) -> Iterator[Any]:
    try:
        for item in iterator:
            call.see(item)
            yield item
    except GeneratorExit:  # mostly the collector closing a dropped stream: the event is written after it (``dropped``)
        dropped.later(call.dropped)
        close = getattr(iterator, "close", None)
        if close is not None:
            close()  # the SDK's own generator closes its response now, as it would have
        raise
    except BaseException as exc:
        call.stream_stopped(error=exc)
        raise
    call.stream_stopped()


async def _observe_async(iterator: AsyncIterator[Any], call: ModelCall) -> AsyncIterator[Any]:
    try:
        async for item in iterator:
            call.see(item)
            yield item
    except GeneratorExit:
        call.stream_stopped(abandoned=True, reason=ABANDONED)
        raise
    except BaseException as exc:
        call.stream_stopped(error=exc)
        raise
    call.stream_stopped()


class _AfterImport(importlib.abc.MetaPathFinder):
    """Finds only the two ``_base_client`` modules (with the normal path finder) and patches them once loaded."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        provider = _TARGETS.get(fullname)
        if provider is None:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return None
        spec.loader = _PatchingLoader(spec.loader, provider)
        return spec


class _PatchingLoader(importlib.abc.Loader):
    def __init__(self, loader: Any, provider: str):
        self._loader = loader
        self._provider = provider

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        module: ModuleType | None = self._loader.create_module(spec)
        return module

    def exec_module(self, module: ModuleType) -> None:
        self._loader.exec_module(module)
        try:
            _patch(module, self._provider)
        except Exception:  # never break the SDK's import
            pass

    def __getattr__(self, name: str) -> Any:  # get_source, get_resource_reader … of the real loader
        return getattr(self._loader, name)
