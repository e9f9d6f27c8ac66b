"""The error of a resume whose python tool has no function here: which tool, why, and how to give it.

A run paused on a ``python`` tool records the function's import name, not the function; a resume in
another process (a restarted kernel, a script) finds it by importing that name, or takes it from
``resume_run(…, tools=…)``. When neither works nothing runs, and the approved draft waits.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from .._safetext import safe_repr
from ..secrets.quoted import quoted
from ..tools.errors import CallableResolutionError, UnsealedCallableError
from ..tools.python_tool import callable_reference, import_problem
from ..tools.types import CallableRef

__all__ = ["missing_tool_error"]


def missing_tool_error(
    exc: CallableResolutionError,
    *,
    episode_id: str,
    tool: str,
    key: str,
    short: str,
    draft_id: str,
    ref: CallableRef | None,
    given: Any,
    tools: Mapping[Any, Any] | None,
) -> CallableResolutionError:
    """One error naming ``tool`` (``key`` or ``short`` in ``tools``), why its function cannot be had here, and
    the ``resume_run(…, tools=…)`` that gives it: the tool contract's fix names ``callables=``, not taken here."""
    call = f"resume_run({quoted(episode_id)}, tools={{{quoted(key)}: <the function>}})"
    waits = f"tool {tool} did not run; its approved draft {draft_id} waits for a resume"
    if given is not None:
        said = f"tools= gives {callable_reference(given).ref} for tool {tool}, but its draft was prepared and reviewed "
        said += f"for {ref.ref if ref is not None else 'another function'}"
        return _error(exc, said, waits, f"Give that function: {call}")
    if ref is None:
        said, fix = f"the draft of tool {tool} records no function to import", f"Give it: {call}"
    elif isinstance(exc, UnsealedCallableError):
        said = (
            f"the draft names {quoted(ref.ref, 120)} as its function, but not as noesis_nb stored it under your seal "
            "key (the record was edited, or written by another user or an older noesis_nb), so it is not imported"
        )
        fix = f"If that is the function you approved, give it: {call}"
    elif not ref.importable:
        said = f"the draft calls {ref.ref}, which cannot be re-imported (a lambda, a __main__ or a local function)"
        if "<" in ref.ref.partition(":")[2]:  # a lambda or a local function: only its own process has it
            fix = (
                "It exists only in the process that prepared it: resume the run there (the kernel that ran it), "
                "and give ctx.tool_async a function defined at the top level of a cell or module next time"
            )
        else:
            fix = f"Resume the run in the process that prepared it, or define the same function here and give it: {call}"
    else:
        module = ref.ref.partition(":")[0]
        try:
            importlib.import_module(module)
        except Exception as problem:  # not only ImportError: a module may fail as it runs
            said = (
                f"the draft calls {ref.ref}, but its module {quoted(module)} cannot be imported here ({import_problem(problem)})"
            )
            fix = f"Resume where it imports (install it, or put its folder on sys.path), or give the function: {call}"
        else:
            said, fix = f"the draft calls {ref.ref}, which module {quoted(module)} no longer has", f"Give the function: {call}"
    if tools:
        said += f"; tools= names {', '.join(safe_repr(k, 60) for k in tools)}, neither {quoted(key)} nor {quoted(short)}"
    return _error(exc, said, waits, fix)


def _error(exc: CallableResolutionError, said: str, waits: str, fix: str) -> CallableResolutionError:
    return CallableResolutionError(f"{said} ({waits}). {fix}", reason_code=exc.reason_code)
