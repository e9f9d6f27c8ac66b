"""The ``python`` protocol (noesis_nb): call an in-process function as a governed tool.

Payload contract: ``{"args": [...], "kwargs": {...}}`` of JSON data. The function itself is
not part of the payload: it is passed as ``ToolInvocationInput.func`` and its import
reference ``module:qualname`` is stored in the prepared record under ``x-callable`` so
another process can re-import it. Lambdas, ``__main__`` and ``<locals>`` functions are
marked ``importable: false`` and run only in the process that prepared them (or when passed
again through ``callables=``). Async functions are awaited; sync ones run in a worker thread.
Output: ``{"result": <JSON form of the return value>}`` or ``{"error", "error_type"}``.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import sys
from collections.abc import Callable, Mapping
from typing import Any

from noesis_nb._exits import HeldExit, being_cancelled, held_exits
from noesis_nb._jsonio import to_jsonable
from noesis_nb._safetext import error_text
from noesis_nb._threads import run_in_thread
from noesis_nb._unstarted import to_await
from noesis_nb.secrets import SCAN_MARGIN, quoted, shown_cut

from . import codes
from ._base import as_json_data, check_keys, make_result
from .cutoff import cutoff_scope, held_thread
from .errors import CallableResolutionError, InvalidToolPayloadError
from .types import (
    CallableRef,
    ExecutionStatus,
    PreparedToolInvocation,
    ToolExecutionResult,
    ToolProtocol,
)

__all__ = ["PythonCallableProtocol", "callable_reference", "import_callable"]


def callable_reference(func: Callable[..., Any]) -> CallableRef:
    """``module:qualname`` of ``func`` and whether importing that name gives ``func`` back."""
    module = getattr(func, "__module__", None) or "?"
    qualname = str(getattr(func, "__qualname__", None) or getattr(type(func), "__qualname__", "?"))
    ref = f"{module}:{qualname}"
    importable = module != "__main__" and "<" not in qualname and _lookup(module, qualname) is func
    return CallableRef(ref=ref, importable=importable)


def _lookup(module: str, qualname: str) -> Any:
    target: Any = sys.modules.get(module)
    for part in qualname.split("."):
        target = getattr(target, part, None)
    return target


def import_problem(exc: BaseException) -> str:
    """Why a module would not import, shown redacted and cut (its error may quote a setting)."""
    text = str(exc) if isinstance(exc, ImportError) else f"{type(exc).__name__}: {exc}"
    return shown_cut(text, 300)


def import_callable(ref: CallableRef) -> Callable[..., Any]:
    """Import the function a draft was prepared with, or raise CallableResolutionError."""
    if not ref.importable:
        raise CallableResolutionError(
            f"the draft calls {ref.ref}, which cannot be re-imported (a lambda, a __main__ or a local function). "
            "Execute it in the process that prepared it, or pass callables={draft_id: func}."
        )
    module, _, qualname = ref.ref.partition(":")
    try:
        importlib.import_module(module)
    except Exception as exc:  # not only ImportError: a module may fail as it runs (a KeyError for a missing setting)
        raise CallableResolutionError(
            f"cannot import module {quoted(module)} of {ref.ref}: {import_problem(exc)}. "
            "Install it or pass callables={draft_id: func}."
        ) from None
    func = _lookup(module, qualname)
    if not callable(func):
        raise CallableResolutionError(f"{ref.ref} no longer names a callable; pass callables={{draft_id: func}}.")
    found: Callable[..., Any] = func
    return found


class PythonCallableProtocol:
    """Handler for ``ToolProtocol.PYTHON``."""

    protocol = ToolProtocol.PYTHON

    def normalize(self, payload: Mapping[str, Any]) -> dict[str, Any]:
        payload = check_keys(payload, ("args", "kwargs"), "python")
        args, kwargs = payload.get("args", []), payload.get("kwargs", {})
        if not isinstance(args, (list, tuple)):
            raise InvalidToolPayloadError(f"'args' must be a list, got {type(args).__name__}.")
        if not isinstance(kwargs, Mapping):
            raise InvalidToolPayloadError(f"'kwargs' must be a dict, got {type(kwargs).__name__}.")
        return {"args": as_json_data(list(args), "args"), "kwargs": as_json_data(dict(kwargs), "kwargs")}

    async def execute(
        self, prepared: PreparedToolInvocation, payload: dict[str, Any], func: Callable[..., Any] | None
    ) -> ToolExecutionResult:
        if func is None:
            raise CallableResolutionError(f"draft {quoted(prepared.key)} uses the python protocol but no callable was given.")
        args, kwargs = payload.get("args", []), payload.get("kwargs", {})
        timeout = prepared.execution.timeout_ms / 1000 if prepared.execution.timeout_ms > 0 else None
        try:
            if inspect.iscoroutinefunction(func):
                value = await asyncio.wait_for(held_exits(func(*args, **kwargs)), timeout)
            else:  # a timed-out thread keeps running in the background; its result is ignored
                value = await _on_thread(func, args, kwargs, timeout)
        except TimeoutError:
            return make_result(
                prepared,
                ExecutionStatus.FAILED,
                codes.TOOL_TIMEOUT,
                {"error": f"no result within {prepared.execution.timeout_ms} ms", "error_type": "TimeoutError"},
            )
        except asyncio.CancelledError as exc:
            if being_cancelled():  # the stop of the task running it (an interrupt, a cancel)
                raise
            return _failed(prepared, exc)  # the tool's own (it awaited a task another cancelled): it failed
        except BaseException as exc:  # a tool's own SystemExit/KeyboardInterrupt fails the tool, not the event loop
            return _failed(prepared, exc.exit if isinstance(exc, HeldExit) else exc)
        return make_result(prepared, ExecutionStatus.SUCCEEDED, None, {"result": to_jsonable(value)})


def _failed(prepared: PreparedToolInvocation, exc: BaseException) -> ToolExecutionResult:
    return make_result(
        prepared,
        ExecutionStatus.FAILED,
        codes.TOOL_EXECUTION_FAILED,
        {
            "error": shown_cut(f"{type(exc).__name__}: {error_text(exc, 2000 + SCAN_MARGIN)}", 2000),
            "error_type": type(exc).__name__,
        },
    )


async def _on_thread(func: Callable[..., Any], args: list[Any], kwargs: dict[str, Any], timeout: float | None) -> Any:
    """``func`` called on a thread of its own; cancelled (an interrupt, Stop), the processes it started there die
    with all they started before the cancellation goes on, as a ``subprocess`` tool's do (``cutoff``)."""
    with cutoff_scope() as calls:
        try:
            call = run_in_thread(_holding_thread, func, args, kwargs, name="noesis_nb-python-tool")
            value = await asyncio.wait_for(held_exits(call), timeout)
        except asyncio.CancelledError:
            if being_cancelled():  # not the tool's own CancelledError, which fails it (``execute``)
                await calls.cut()  # to record the outcome unknown and seal the run: nothing of it outlives the seal
            raise
    if to_await(value):  # the id a nested solve(...) returned is kept as the tool's value
        value = await asyncio.wait_for(held_exits(value), timeout)
    return value


def _holding_thread(func: Callable[..., Any], args: list[Any], kwargs: dict[str, Any]) -> Any:
    with held_thread(str(getattr(func, "__name__", None) or "the python tool")):
        return func(*args, **kwargs)
