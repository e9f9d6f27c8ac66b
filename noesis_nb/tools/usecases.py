"""Prepare and execute tool invocations (the Noēsis ADR-016 use cases).

Every port has its noesis_nb spelling (what the runtime passes) and its Noēsis spelling (what
the Noēsis "Integrate adapters" guide passes; protocols in ``ports.py``). Pass one of a pair;
passing both is a TypeError.

    noesis_nb                                   Noēsis
    prepare_tool_invocation(invocation, ...)    prepare_tool_invocation(request=..., ...)
    emit(name, request_id, **extra) -> id       event_recorder.record(*, run_id, request_id, event_name, payload)
    dispatcher (its ``normalize``)              normalizer.validate_and_normalize(*, protocol, tool, payload)
    authn / authz                               authenticator / authorizer
    emit_candidate(invocation, redacted)        candidate_emitter.emit_candidate(*, request, normalized_payload, candidate_id)
    idempotency_repository                      idempotency_store (evaluate/record with ``invocation=``)
    dispatcher (its ``dispatch``)               dispatch.execute(*, invocation)

``emit`` is supplied by the runtime; it writes one event with phase ``tool``, agent
``tool_contract`` and payload ``{event_name, request_id, **extra}``. Event payloads carry ids,
names and hashes only, never payload values.

``execute_prepared_tool_invocation`` is synchronous, as in Noēsis. Async code (the runtime)
awaits ``execute_prepared_tool_invocation_async`` instead: the sync function, called while an
event loop runs in this thread (a notebook cell), runs the work on a worker thread with its own
loop and blocks the caller's loop until the tool has finished.
"""

from __future__ import annotations

from ._usecase_ports import Emit, recorder_emit
from .execute import (
    execute_prepared_tool_invocation,
    execute_prepared_tool_invocation_async,
)
from .prepare import prepare_tool_invocation
from .types import ToolInvocationInput

# ``noesis.usecases.tool_invocation`` exports these three; ``from noesis_nb.tools.usecases import`` them.
__all__ = [
    "ToolInvocationInput",
    "prepare_tool_invocation",
    "execute_prepared_tool_invocation",
    "execute_prepared_tool_invocation_async",
    "recorder_emit",
    "Emit",
]
