"""Protocol dispatch: a small registry of handlers the runtime can extend.

Built in: ``subprocess`` (``SubprocessProtocol``) and ``python`` (``PythonCallableProtocol``).
``http`` and ``mcp`` are valid protocols with no handler; register one to use them.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from noesis_nb._threads import run_in_thread

from ._base import ProtocolHandler, execution_id_for, make_result
from .cutoff import cutoff_scope
from .errors import UnsupportedToolProtocolError
from .python_tool import PythonCallableProtocol, callable_reference, import_callable
from .subprocess_tool import SubprocessProtocol, render_command_line
from .types import PreparedToolInvocation, ToolExecutionResult, ToolProtocol

__all__ = [
    "ProtocolHandler",
    "ToolDispatcher",
    "SubprocessProtocol",
    "PythonCallableProtocol",
    "render_command_line",
    "callable_reference",
    "import_callable",
    "execution_id_for",
    "make_result",
]


class ToolDispatcher:
    """Maps each ``ToolProtocol`` to the handler that validates and executes its payloads."""

    def __init__(self, handlers: Iterable[ProtocolHandler] | None = None):
        self._handlers: dict[ToolProtocol, ProtocolHandler] = {}
        for handler in (SubprocessProtocol(), PythonCallableProtocol()) if handlers is None else handlers:
            self.register(handler)

    def register(self, handler: ProtocolHandler, *, replace: bool = False) -> None:
        protocol = ToolProtocol(handler.protocol)
        if protocol in self._handlers and not replace:
            raise ValueError(f"a handler for {protocol.value!r} is already registered; pass replace=True to swap it.")
        self._handlers[protocol] = handler

    @property
    def protocols(self) -> tuple[ToolProtocol, ...]:
        return tuple(self._handlers)

    def handler_for(self, protocol: ToolProtocol | str) -> ProtocolHandler:
        try:
            return self._handlers[ToolProtocol(protocol)]
        except (KeyError, ValueError):
            known = ", ".join(p.value for p in self._handlers) or "none"
            raise UnsupportedToolProtocolError(
                f"no handler for protocol {getattr(protocol, 'value', protocol)!r}; registered: {known}. "
                "Register one with ToolDispatcher.register(handler)."
            ) from None

    def normalize(self, protocol: ToolProtocol | str, payload: Mapping[str, Any]) -> dict[str, Any]:
        """Validate and normalise a raw payload; raises before anything is dispatched."""
        return self.handler_for(protocol).normalize(payload)

    def restore(self, protocol: ToolProtocol | str, stored: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
        """Rebuild a dispatchable payload from a stored (redacted) one: (payload, refilled paths)."""
        handler = self.handler_for(protocol)
        return handler.restore(stored) if hasattr(handler, "restore") else (stored, [])

    async def dispatch(
        self, prepared: PreparedToolInvocation, payload: dict[str, Any], func: Callable[..., Any] | None = None
    ) -> ToolExecutionResult:
        """Run the handler: awaited when ``async``, otherwise on a thread of its own (never a shared pool)."""
        handler = self.handler_for(prepared.protocol)
        if inspect.iscoroutinefunction(handler.execute):
            done: ToolExecutionResult = await handler.execute(prepared, payload, func)
            return done
        with cutoff_scope() as calls:
            try:
                result = await run_in_thread(handler.execute, prepared, payload, func, name="noesis_nb-tool")
            except BaseException:  # cancelled (an interrupt, Stop): its processes die before the cancellation goes on
                await calls.cut()  # to record the outcome unknown and seal the run: nothing of it outlives the seal
                raise
        finished: ToolExecutionResult = await result if inspect.isawaitable(result) else result
        return finished
