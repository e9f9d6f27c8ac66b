"""Who bills a captured call: the provider read from the SDK client that made it, never guessed from the model id.

The same model id is billed at different rates by different providers (``claude-3-5-sonnet-20241022`` through
Anthropic, Amazon Bedrock or Google Vertex; ``gpt-4o`` through OpenAI, Azure or a gateway), and a server that
speaks the OpenAI protocol may be any provider, or a local model. So a call's ``provider`` comes from its client:

- the SDK's platform clients: ``AnthropicBedrock`` → ``aws-bedrock``, ``AnthropicVertex`` → ``google-vertex``,
  ``AzureOpenAI`` → ``azure`` (wherever their ``base_url`` points: a private endpoint bills the same);
- a client calling the SDK's own host (``api.openai.com``, ``api.anthropic.com``) → ``openai`` / ``anthropic``;
- a client calling any other host (``base_url=`` OpenRouter, Together, a gateway, a local server) → that
  endpoint itself, as ``scheme://host[:port][/path]`` (no credentials, no query). Pricing asks genai-prices
  which provider serves that address; an address it does not know (a local server) leaves the cost unknown.

``bill_endpoint(base_url, provider)`` says that calls through one address (a proxy or gateway in front of a
provider) are billed as that provider.
"""

from __future__ import annotations

import contextlib
import inspect
import threading
import weakref
from typing import Any
from urllib.parse import urlsplit

__all__ = ["billed_provider", "bill_endpoint", "endpoint_text"]

#: the SDK's own host: calls to it are billed by the SDK's provider
_OWN_HOSTS = {"openai": "api.openai.com", "anthropic": "api.anthropic.com"}
#: the SDKs' platform clients, by class name (subclasses of them too)
_PLATFORM_CLIENTS = {
    "AnthropicBedrock": "aws-bedrock",
    "AsyncAnthropicBedrock": "aws-bedrock",
    "AnthropicVertex": "google-vertex",
    "AsyncAnthropicVertex": "google-vertex",
    "AzureOpenAI": "azure",
    "AsyncAzureOpenAI": "azure",
}
#: the SDKs' own ``base_url`` properties (their getters' module and name) that answer the client's own field
#: (``_base_url``, or ``_configured_base_url`` in ``openai`` 3.x), so the field is the address
_SDK_PROPERTIES = {
    ("openai._base_client", "BaseClient.base_url"),
    ("openai._client", "OpenAI.base_url"),
    ("openai._client", "AsyncOpenAI.base_url"),
    ("anthropic._base_client", "BaseClient.base_url"),
    ("anthropic.lib.bedrock._client", "BaseBedrockClient.base_url"),
}
_MAX_ENDPOINT = 200

_lock = threading.Lock()
_told: dict[str, str] = {}  # endpoint text (no trailing slash) → provider, from ``bill_endpoint``
_seen: dict[tuple[type, str, str], str] = {}  # (client class, SDK, base URL text) → the provider it bills as
_sdk_property: dict[type, bool] = {}  # client class → its ``base_url`` is one of ``_SDK_PROPERTIES``
_by_client: weakref.WeakKeyDictionary[Any, tuple[Any, str]] = weakref.WeakKeyDictionary()  # client → (its URL, that)
#: ``_by_client``'s own table (a weak reference to the client → its row): read at each call without ``get``'s call
_by_ref: dict[weakref.ref[Any], tuple[Any, str]] = _by_client.data  # type: ignore[attr-defined]


def bill_endpoint(base_url: str, provider: str | None) -> None:
    """Bill the calls of clients whose ``base_url`` is ``base_url`` (or under it) as ``provider`` (a genai-prices
    provider id such as ``"openai"``, or a price table's provider); ``None`` forgets it."""
    key = endpoint_text(base_url)
    if key is None:
        raise ValueError(f"base_url={base_url!r} is no http(s) address; pass the base_url the client is given")
    with _lock:
        if provider is None:
            _told.pop(key, None)
        else:
            _told[key] = str(provider)
        _seen.clear()
        _by_client.clear()


def billed_provider(client: Any, sdk: str) -> str:
    """The provider that bills ``client``'s calls (module rules); ``sdk`` (``openai`` / ``anthropic``) when the client
    has no readable ``base_url`` (a client of another shape: the SDK's own provider, as before).

    Asked at every captured call: a client seen before, whose address is the same object (the SDK's own field, or
    what its class's own ``base_url`` property answers), is answered from ``_by_client`` without making its URL text
    again."""
    try:
        url, own = None, _sdk_property.get(type(client))
        if own is None:
            own = _learn_property(type(client))
        if own:
            fields = client.__dict__  # the SDK's own field, read without its property (``openai`` 3.x imports in it)
            url = fields.get("_base_url")
            if url is None:
                url = fields.get("_configured_base_url")  # (``openai`` 3.x keeps it there)
        if url is None:  # any other client: the property's object, the same while the address is unchanged
            url = client.base_url
        mine = _by_ref.get(weakref.ref(client))  # (``WeakKeyDictionary.get``'s own lookup, without its call)
    except Exception:  # no instance dict, no readable base_url, or a client that cannot be weakly referenced
        url, mine = None, None
    if mine is not None and url is not None and mine[0] is url:
        return mine[1]
    try:
        base = str(client.base_url)
    except Exception:
        return sdk
    key = (type(client), sdk, base)
    found = _seen.get(key)
    if found is None:
        found = _resolve(type(client), sdk, base)
        with _lock:
            if len(_seen) >= 256:
                _seen.clear()
            _seen[key] = found
    if url is not None:
        with _lock, contextlib.suppress(TypeError):
            _by_client[client] = (url, found)
    return found


def _learn_property(cls: type) -> bool:
    """Whether ``cls.base_url`` is one of the SDKs' own properties, which answer the field they set: a class that
    defines its own (``openai``'s module-level client answers the module's ``openai.base_url``) is read through it."""
    getter = getattr(inspect.getattr_static(cls, "base_url", None), "fget", None)
    own = (getattr(getter, "__module__", None), getattr(getter, "__qualname__", None)) in _SDK_PROPERTIES
    with _lock:
        if len(_sdk_property) >= 256:
            _sdk_property.clear()
        _sdk_property[cls] = own
    return own


def _resolve(cls: type, sdk: str, base: str) -> str:
    for klass in cls.__mro__:
        platform = _PLATFORM_CLIENTS.get(klass.__name__)
        if platform is not None:
            return platform
    text = endpoint_text(base)
    if text is None:
        return "unknown"
    with _lock:
        told = sorted(_told.items(), key=lambda kv: -len(kv[0]))
    for prefix, provider in told:
        if text == prefix or text.startswith(prefix + "/"):
            return provider
    if urlsplit(text).hostname == _OWN_HOSTS.get(sdk):
        return sdk
    return text


def endpoint_text(url: Any) -> str | None:
    """``scheme://host[:port][/path]`` of an http(s) URL, lower-cased host, no user, password, query or trailing
    slash; None for anything else."""
    try:
        parts = urlsplit(str(url).strip())
        host = parts.hostname
        port = parts.port
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not host:
        return None
    netloc = f"[{host}]" if ":" in host else host
    if port is not None:
        netloc += f":{port}"
    return f"{parts.scheme.lower()}://{netloc}{parts.path.rstrip('/')}"[:_MAX_ENDPOINT]
