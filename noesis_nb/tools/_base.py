"""Shared pieces of protocol handlers: the handler protocol, result building, payload checks."""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol, TypeVar, runtime_checkable

from .errors import InvalidToolPayloadError, UnknownToolFieldError
from .types import (
    ExecutionStatus,
    PreparedToolInvocation,
    ToolExecutionResult,
    ToolProtocol,
)

__all__ = ["ProtocolHandler", "execution_id_for", "make_result", "check_keys", "as_json_data"]


@runtime_checkable
class ProtocolHandler(Protocol):
    """One transport. ``execute`` may be sync (run in a worker thread) or ``async``.

    Optional ``restore(stored_payload) -> (payload, filled_keys)`` refills redacted values
    when a draft runs in a process that did not prepare it.
    """

    protocol: ToolProtocol

    def normalize(self, payload: Mapping[str, Any]) -> dict[str, Any]: ...

    def execute(
        self, prepared: PreparedToolInvocation, payload: dict[str, Any], func: Callable[..., Any] | None
    ) -> ToolExecutionResult | Awaitable[ToolExecutionResult]: ...


T = TypeVar("T")


def execution_id_for(prepared: PreparedToolInvocation) -> str:
    """Noēsis execution id: ``exec:<run_id>:<draft_id or request_id>``."""
    return f"exec:{prepared.run_id}:{prepared.key}"


def make_result(
    prepared: PreparedToolInvocation,
    status: ExecutionStatus,
    reason_code: str | None = None,
    output: dict[str, Any] | None = None,
) -> ToolExecutionResult:
    return ToolExecutionResult(
        request_id=prepared.request_id,
        execution_id=execution_id_for(prepared),
        status=status,
        reason_code=reason_code,
        output=output,
        preflight=prepared.preflight,
    )


def check_keys(payload: Any, allowed: tuple[str, ...], protocol: str) -> Mapping[str, Any]:
    """Reject a non-mapping payload or unknown keys (before anything is dispatched)."""
    if not isinstance(payload, Mapping):
        raise InvalidToolPayloadError(f"a {protocol} payload must be a dict, got {type(payload).__name__}.")
    unknown = tuple(sorted(str(k) for k in payload if k not in allowed))
    if unknown:
        raise UnknownToolFieldError(
            f"{protocol} payload has unknown field(s) {', '.join(map(repr, unknown))}; "
            f"allowed fields are {', '.join(allowed)}. Remove or rename them.",
            fields=unknown,
        )
    return payload


def as_json_data(value: T, where: str) -> T:
    """``value`` as plain JSON data (tuples become lists), or InvalidToolPayloadError naming the spot."""
    bad = _first_non_json(value, where, 0)
    if bad:
        path, kind = bad
        shown = path if len(path) <= 120 else path[:60] + " … " + path[-40:]
        if kind.startswith(_SURROGATE):
            raise InvalidToolPayloadError(
                f"{shown} holds {kind}, which is not valid Unicode text; payloads are fingerprinted and stored as "
                "UTF-8, so remove or replace it (decode bytes with errors='replace', or pass them as base64 text)."
            )
        if kind == _TOO_DEEP:
            raise InvalidToolPayloadError(
                f"{shown} is nested deeper than {MAX_PAYLOAD_DEPTH} levels (or holds itself); payloads are "
                "fingerprinted and stored as JSON, so pass a flatter value (or the deep part as text)."
            )
        raise InvalidToolPayloadError(
            f"{shown} has type {kind}, which is not JSON data; payloads are fingerprinted and stored as JSON, "
            "so pass str/int/float/bool/None/list/dict values (keep other objects in the callable)."
        )
    plain: T = json.loads(json.dumps(value, allow_nan=False))
    return plain


MAX_PAYLOAD_DEPTH = 100  # lists and dicts within one another: far past any real tool's arguments
_TOO_DEEP = "<too deep>"
_SURROGATE = "a lone surrogate"
_SURROGATES = re.compile("[\ud800-\udfff]")


def _surrogate(text: str) -> str | None:
    found = _SURROGATES.search(text)
    return None if found is None else f"{_SURROGATE} (U+{ord(found.group()):04X} at index {found.start()})"


def _first_non_json(value: Any, path: str, depth: int) -> tuple[str, str] | None:
    if isinstance(value, str):
        return None if (odd := _surrogate(value)) is None else (path, odd)
    if value is None or isinstance(value, (bool, int)):
        return None
    if depth > MAX_PAYLOAD_DEPTH and isinstance(value, (list, tuple, Mapping)):
        return path, _TOO_DEEP
    if isinstance(value, float):
        return None if value == value and value not in (float("inf"), float("-inf")) else (path, f"non-finite float {value}")
    if isinstance(value, (list, tuple)):
        return next((b for i, v in enumerate(value) if (b := _first_non_json(v, f"{path}[{i}]", depth + 1))), None)
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                return f"{path} key {key!r}", f"{type(key).__name__} (keys must be str)"
            if (odd := _surrogate(key)) is not None:
                return f"{path} key {key!r}", odd
            if bad := _first_non_json(item, f"{path}[{key!r}]", depth + 1):
                return bad
        return None
    return path, type(value).__name__
