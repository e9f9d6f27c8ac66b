"""What executing a draft needs besides its record: the real payload and the callable.

In the process that prepared the draft both come from memory (the vault). Elsewhere the payload is
rebuilt from the stored, redacted one: the protocol handler refills what it can (``env`` from
``os.environ``), then the secrets given back (``secret_supply``), and the result must match the draft's
keyed seal (``payload_seal``); a ``python`` draft's callable is the one supplied, remembered, or re-imported
by reference.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from noesis_nb.secrets import for_run as secrets_for_run
from noesis_nb.secrets.names import REDACTED_VALUE
from noesis_nb.secrets.quoted import quoted

from ._usecase_ports import _scope, _vault
from .callable_seal import reference_holds
from .errors import (
    CallableResolutionError,
    PayloadIntegrityError,
    SecretUnavailableError,
    UnsealedCallableError,
)
from .fingerprints import request_fingerprint
from .payload_seal import seal_holds
from .protocols import ToolDispatcher, callable_reference, import_callable
from .redaction import secret_values
from .secret_supply import fill_repeats, fill_secrets, missing_message, supplied_secrets
from .shown_check import check_shown
from .types import PreparedToolInvocation, ToolProtocol

__all__ = ["dispatch_material", "require_secrets"]


def _restore(
    dispatcher: ToolDispatcher | None, protocol: ToolProtocol, stored: dict[str, Any]
) -> tuple[dict[str, Any], list[str]]:
    """Refill redacted values through the protocol handler; with a dispatch port, only when a
    built-in handler knows the protocol."""
    if dispatcher is None:
        dispatcher = ToolDispatcher()
        if protocol not in dispatcher.protocols:
            return stored, []
    return dispatcher.restore(protocol, stored)


def dispatch_material(
    prepared: PreparedToolInvocation,
    repo: Any,
    dispatcher: ToolDispatcher | None,
    callables: Mapping[str, Any] | None,
    *,
    need_callable: bool,
    secrets: Mapping[str, Any] | None = None,
) -> tuple[dict[str, Any], Any, list[str]]:
    """(real payload, callable, secret strings to scrub from output): from memory, else rebuilt from disk
    with the redacted values given back (``secrets``, ``supply_secrets``, environment variables). A draft that
    does not show what it runs (``shown_check``) is refused first, wherever its payload would come from."""
    check_shown(prepared, _where(repo, prepared))
    fingerprint = prepared.payload.request_fingerprint
    entry = _vault(repo).get(_scope(repo), prepared.key, fingerprint)
    if entry is not None:
        payload, func = entry.payload, entry.func
    else:
        stored = dict(prepared.payload.normalized_payload)
        payload, filled = _restore(dispatcher, prepared.protocol, stored)
        payload, given, missing = fill_secrets(payload, {**supplied_secrets(), **(secrets or {})})
        func = None
        if missing:
            repeated = fill_repeats(
                stored, payload, [*filled_paths(filled), *given], missing, lambda trial: _is_reviewed(prepared, trial)
            )
            if repeated is None:
                tried = [*filled_paths(filled), *given]
                raise SecretUnavailableError(
                    missing_message(prepared.key, prepared.run_id, missing)
                    + (
                        f" (The value(s) given for {', '.join(tried)} were tried there too and do not fit: either they "
                        "differ from the originals, or these paths hold other secrets.)"
                        if tried
                        else ""
                    )
                )
            payload = repeated
        if not _is_reviewed(prepared, payload):
            filled = [*filled, *given]
            if filled:
                why = f"the value(s) given for {', '.join(filled)} differ from those the draft was prepared with"
                if prepared.x_payload_seal is not None:
                    why += " (or the draft was prepared by another user, whose seal key this process does not hold)"
            elif _redacted_key(stored):
                why = (
                    "a key of its payload held a secret and was stored redacted; secrets given back fill values, "
                    "not keys, so such a draft runs only in the process that prepared it"
                )
            else:
                why = "the record was edited after it was prepared"
            raise PayloadIntegrityError(
                f"the stored payload of draft {prepared.key!r} does not match its "
                f"request_fingerprint: {why}. Supply the original values, or prepare the call again."
            )
    if prepared.protocol is ToolProtocol.PYTHON and need_callable:
        func = _resolve_callable(prepared, callables, func)
    found = secret_values(payload, prepared.payload.normalized_payload)
    secrets_for_run(_scope(repo)).learn(found)
    return payload, func, found


def _where(repo: Any, prepared: PreparedToolInvocation) -> object:
    """The draft's file when the repository says where it is, else the repository's type (a port of another program)."""
    path_for = getattr(repo, "path_for", None)
    try:
        return path_for(prepared.key, prepared.protocol) if callable(path_for) else type(repo).__name__
    except (TypeError, ValueError):
        return type(repo).__name__


def _is_reviewed(prepared: PreparedToolInvocation, payload: Mapping[str, Any]) -> bool:
    """Whether ``payload`` (rebuilt from disk) is the one prepared: it has the stored fingerprint and, when
    secrets were redacted, fits the keyed seal of the real payload. A draft without a seal whose fingerprint
    was taken over the real payload (written before seals existed) is checked by that fingerprint."""
    seal, fingerprint = prepared.x_payload_seal, prepared.payload.request_fingerprint
    if seal is not None:
        return seal_holds(seal, prepared.run_id, payload)
    return request_fingerprint(payload) == fingerprint


def _redacted_key(value: Any) -> bool:
    """True when a dict key anywhere in ``value`` was redacted (a secret used as a key)."""
    if isinstance(value, dict):
        return any(REDACTED_VALUE in str(k) or _redacted_key(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_redacted_key(v) for v in value)
    return False


def filled_paths(filled: list[str]) -> list[str]:
    """Dotted payload paths of what a protocol handler's ``restore`` filled (``env.NAME``)."""
    return [p if "." in p else f"env.{p}" for p in filled]


def require_secrets(
    prepared_repository: Any, prepared: PreparedToolInvocation, *, secrets: Mapping[str, Any] | None = None
) -> None:
    """Raise SecretUnavailableError (or PayloadIntegrityError) now if executing this draft here would;
    reads only, so a caller can check before it writes anything."""
    dispatch_material(prepared, prepared_repository, None, None, need_callable=False, secrets=secrets)


def _resolve_callable(prepared: PreparedToolInvocation, callables: Mapping[str, Any] | None, func: Any) -> Any:
    ref = prepared.x_callable
    supplied = None
    if callables:
        supplied = callables.get(prepared.key) or (callables.get(ref.ref) if ref else None)
    if supplied is not None:
        got = callable_reference(supplied).ref
        if ref is not None and got != ref.ref:
            raise CallableResolutionError(
                f"callables gives {got} for draft {prepared.key!r}, but it was prepared and "
                f"reviewed for {ref.ref}; pass that function."
            )
        return supplied
    if func is not None:
        return func
    if ref is None:
        raise CallableResolutionError(f"draft {prepared.key!r} records no x-callable; pass callables={{draft_id: func}}.")
    if ref.importable and not reference_holds(prepared.run_id, prepared.key, ref):
        raise UnsealedCallableError(
            f"draft {prepared.key!r} names {quoted(ref.ref, 120)} as its function, but that name is not the one "
            "noesis_nb stored for it under your seal key (the record was edited, or written by another user or an "
            "older noesis_nb); it is not imported. If that is the function you approved, pass it: "
            "callables={draft_id: func}."
        )
    return import_callable(ref)
