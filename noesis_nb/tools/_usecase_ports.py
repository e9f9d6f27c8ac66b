"""The one place Noēsis' keywords become noesis_nb's ports, plus vault scoping and model coercion.

Each port of the use cases has two spellings (the table is in ``usecases``): the public functions
take both, and translate them here into one small set of callables the internals use.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ._base import as_json_data
from .errors import InvalidToolPayloadError, ToolRecordError
from .fingerprints import default_preflight
from .ports import call_port, port_method
from .protocols import ToolDispatcher
from .types import PayloadEvidence, ToolInvocationInput
from .vault import PROCESS_VAULT, DispatchVault

__all__ = ["Emit", "recorder_emit", "PreparePorts", "prepare_ports"]

Emit = Callable[..., Any]


def recorder_emit(event_recorder: Any, run_id: str) -> Emit:
    """An ``emit`` that forwards each event to a Noēsis ``ToolEventRecorderPort`` (or a callable)."""
    record = port_method(event_recorder, "record")
    if record is None:
        raise TypeError("event_recorder= needs a ToolEventRecorderPort (an object with record(...)) or a callable")

    def emit(event_name: str, request_id: str, **extra: Any) -> Any:
        return record(run_id=run_id, request_id=request_id, event_name=event_name, payload=extra)

    return emit


def _one(fn: str, name: str, value: Any, noesis_name: str, noesis_value: Any, *, required: bool = False) -> Any:
    """The port given under either of its two names."""
    if value is not None and noesis_value is not None:
        raise TypeError(
            f"{fn}() got both {name}= and {noesis_name}=; they name the same port (noesis_nb and Noēsis spelling), so pass one."
        )
    if required and value is None and noesis_value is None:
        raise TypeError(f"{fn}() needs {name}= (or its Noēsis name {noesis_name}=).")
    return value if value is not None else noesis_value


def _vault(repo: Any) -> DispatchVault:
    return getattr(repo, "vault", PROCESS_VAULT)


def _scope(repo: Any) -> Path:
    """Vault scope of a repository: its run directory, or (a port without one) its identity."""
    run_dir = getattr(repo, "run_dir", None)
    return Path(run_dir) if run_dir is not None else Path(f"<{type(repo).__qualname__}@{id(repo):x}>")


def _coerce(model: Any, value: Any, where: str) -> Any:
    """``value`` as the noesis_nb model (a port written for Noēsis may return its own objects)."""
    if value is None or isinstance(value, model):
        return value
    try:
        return model.model_validate(value, from_attributes=True)
    except ValidationError as exc:
        raise ToolRecordError(f"{where} returned a {type(value).__name__} that is not a {model.__name__}: {exc}") from None


@dataclass(frozen=True)
class PreparePorts:
    """What preparing a draft needs, each as one callable (the internal, noesis_nb spelling)."""

    repository: Any
    emit: Emit
    normalize: Callable[[ToolInvocationInput], dict[str, Any]]
    authenticate: Callable[..., Any] | None
    authorize: Callable[..., Any] | None
    preflight: Callable[..., Any]
    candidate: Callable[[ToolInvocationInput, PayloadEvidence], str | None]
    custom_normalizer: bool = False


def prepare_ports(
    *,
    invocation: ToolInvocationInput | None,
    request: ToolInvocationInput | None,
    prepared_repository: Any,
    emit: Emit | None,
    event_recorder: Any,
    preflight: Any,
    authn: Any,
    authenticator: Any,
    authz: Any,
    authorizer: Any,
    dispatcher: ToolDispatcher | None,
    normalizer: Any,
    emit_candidate: Any,
    candidate_emitter: Any,
) -> tuple[ToolInvocationInput, PreparePorts]:
    """``prepare_tool_invocation``'s keywords, either spelling, as the invocation and its ``PreparePorts``."""
    fn = "prepare_tool_invocation"
    inv: ToolInvocationInput = _one(fn, "invocation", invocation, "request", request, required=True)
    _one(fn, "emit", emit, "event_recorder", event_recorder, required=True)
    authn = _one(fn, "authn", authn, "authenticator", authenticator)
    authz = _one(fn, "authz", authz, "authorizer", authorizer)
    _one(fn, "emit_candidate", emit_candidate, "candidate_emitter", candidate_emitter)
    _one(fn, "dispatcher", dispatcher, "normalizer", normalizer)
    return inv, PreparePorts(
        repository=prepared_repository,
        emit=emit if emit is not None else recorder_emit(event_recorder, inv.run_id),
        normalize=lambda i: _normalize(i, dispatcher, normalizer),
        authenticate=port_method(authn, "authenticate"),
        authorize=port_method(authz, "authorize"),
        preflight=port_method(preflight, "compute") or default_preflight,
        candidate=lambda i, evidence: _candidate(i, evidence, emit_candidate, candidate_emitter),
        custom_normalizer=normalizer is not None,
    )


def _normalize(inv: ToolInvocationInput, dispatcher: ToolDispatcher | None, normalizer: Any) -> dict[str, Any]:
    if normalizer is None:
        return (dispatcher or ToolDispatcher()).normalize(inv.protocol, inv.payload)
    out = call_port(
        _required(port_method(normalizer, "validate_and_normalize"), "normalizer"),
        protocol=inv.protocol,
        tool=inv.tool,
        payload=copy.deepcopy(inv.payload),
    )
    if not isinstance(out, Mapping):
        raise InvalidToolPayloadError(
            f"the normalizer returned {type(out).__name__}, not a mapping; "
            "validate_and_normalize must return the normalised payload as a dict."
        )
    return as_json_data(dict(out), "normalized payload")


def _candidate(inv: ToolInvocationInput, evidence: PayloadEvidence, emit_candidate: Any, candidate_emitter: Any) -> str | None:
    """The candidate id a candidate emitter gives (it sees the stored, secret-free payload), or None."""
    if candidate_emitter is not None:
        got = call_port(
            _required(port_method(candidate_emitter, "emit_candidate"), "candidate_emitter"),
            request=inv,
            normalized_payload=copy.deepcopy(evidence.normalized_payload),
            candidate_id=inv.governance.candidate_id,
        )
        return str(got) if got else None
    if emit_candidate is not None:
        got = emit_candidate(inv, copy.deepcopy(evidence.redacted_payload))
        return str(got) if got else None
    return None


def _required(method: Callable[..., Any] | None, name: str) -> Callable[..., Any]:
    if method is None:
        raise TypeError(f"{name}= is neither a callable nor an object with the port's method")
    return method
