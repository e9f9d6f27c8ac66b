"""The interrupts a graph run stopped at, and the ``Command(resume=…)`` value that answers them.

LangGraph matches answers to pending interrupts by id: several pending interrupts take only an
id-keyed map, and a bare resume value of None (or a dict whose keys all look like interrupt ids)
is read as "no answer" (or as such a map). So answers go out id-keyed whenever the ids are
LangGraph's own, and interrupts LangGraph could not tell apart (a shared id, or several without
LangGraph ids) are refused before anyone is asked: one answer would silently stand for both.
"""

from __future__ import annotations

import re
from typing import Any

from ...errors import NoesisNbError
from .._preview import json_preview

__all__ = [
    "LangGraphResumeError",
    "LangGraphRunError",
    "brief",
    "pending_interrupts",
    "resume_value",
    "stored_value",
    "unanswerable",
]

_LANGGRAPH_ID = re.compile(r"[0-9a-f]{32}")  # xxh3-128 hex, what interrupt() gives and Command(resume={id: …}) takes
_CUT_WORD = re.compile(r'[^\s",\[\]{}()]+\Z')  # the word a cut ends in: part of a secret would slip past redaction


class LangGraphRunError(NoesisNbError):
    """The graph ended in a way the adapter cannot record as a result (odd output, a node that exited)."""


class LangGraphResumeError(LangGraphRunError):
    """The graph interrupted but cannot be resumed (no checkpointer, ambiguous interrupts), or interrupts never stop."""


def brief(value: Any, limit: int = 80) -> str:
    """A short ``repr`` for an error message; a cut never ends inside a word (no half secret escapes redaction)."""
    try:
        text = repr(value)
    except Exception:  # a hostile __repr__ must not hide the real error
        return f"<{type(value).__name__}>"
    return text if len(text) <= limit else _CUT_WORD.sub("", text[:limit]) + "…"


def pending_interrupts(result: Any, types: Any) -> list[Any]:
    """The interrupts in what ``graph.invoke`` returned (``__interrupt__``, or ``GraphOutput.interrupts``); [] if none."""
    output_type = getattr(types, "GraphOutput", None)
    if output_type is not None and isinstance(result, output_type):
        found = result.interrupts
    elif isinstance(result, dict) and "__interrupt__" in result:
        found = result["__interrupt__"]
    else:
        return []  # any other value is the graph's output, even one with an ``interrupts`` attribute
    if not found:
        return []
    items = list(found) if isinstance(found, (list, tuple)) else [found]
    for n, item in enumerate(items, 1):
        if not isinstance(item, types.Interrupt):
            raise LangGraphRunError(
                f"the graph returned __interrupt__={brief(found)}, whose item #{n} is a {type(item).__name__} "
                f"({brief(item)}), not a langgraph.types.Interrupt; only LangGraph puts values under '__interrupt__' "
                "(raise them with langgraph.types.interrupt()), so rename that key of the graph's output"
            )
    return items


def unanswerable(interrupts: list[Any]) -> str | None:
    """Why LangGraph could not take one answer per interrupt (None when it can)."""
    seen: dict[Any, int] = {}
    for n, interrupt in enumerate(interrupts, 1):
        ident = getattr(interrupt, "id", None)
        if ident in seen:
            return (
                f"interrupts #{seen[ident]} and #{n} share the id {brief(ident)}, so LangGraph would take one answer "
                "for both and the other decision would be lost; give each interrupt its own id "
                "(langgraph.types.interrupt() does)"
            )
        seen[ident] = n
    if len(interrupts) > 1:
        for n, interrupt in enumerate(interrupts, 1):
            if not _is_langgraph_id(interrupt.id):
                return (
                    f"{len(interrupts)} interrupts are pending and #{n} has the id {brief(interrupt.id)}, not a LangGraph "
                    "interrupt id (32 hex digits), so no answer can be addressed to it; raise them with "
                    "langgraph.types.interrupt(), or one at a time"
                )
    return None


def resume_value(interrupts: list[Any], answers: list[Any]) -> Any:
    """What ``Command(resume=…)`` carries: ``{interrupt_id: answer}``, or the bare answer of one non-LangGraph-id interrupt."""
    if all(_is_langgraph_id(i.id) for i in interrupts):
        return {i.id: answer for i, answer in zip(interrupts, answers)}
    [interrupt], [answer] = interrupts, answers  # unanswerable() let only a single one through
    if answer is None or (isinstance(answer, dict) and all(_is_langgraph_id(k) for k in answer)):
        read_as = "no answer (it would ask again)" if answer is None else "a map of interrupt ids"
        raise LangGraphResumeError(
            f"answer() returned {brief(answer)} for interrupt {brief(interrupt.id)}, which LangGraph reads as {read_as} "
            "because that interrupt has no LangGraph id; return another value (e.g. {'approved': False}), "
            "or raise the interrupt with langgraph.types.interrupt()"
        )
    return answer


def stored_value(value: Any, limit: int) -> Any:
    """``value`` as written to the run and shown on the approval: as is, or a preview when its JSON is over ``limit`` chars.

    It is handled on the event loop, so only the value's head is read (``json_preview``): a multi-megabyte value
    costs the loop what a ``limit``-sized one does; the graph itself keeps the whole value in its checkpoint.
    """
    return json_preview(value, limit)


def _is_langgraph_id(value: Any) -> bool:
    return isinstance(value, str) and _LANGGRAPH_ID.fullmatch(value) is not None
