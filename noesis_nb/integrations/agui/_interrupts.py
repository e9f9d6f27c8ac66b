"""Whether one AG-UI run's ending can be answered: one decision per interrupt, each sent back under its own id.

AG-UI sends decisions back as ``resume: [{interruptId, …}]`` (or a map of ids under ``forwardedProps``), so two
interrupts sharing an id, one without an id, or several where one came without an id of its own (its id made
here, unknown to the agent) would reach the agent as answers it cannot tell apart; an interrupt
naming a ``toolCallId`` the agent gave to two different calls would have someone approve one call and the agent run
the other. An outcome that is done or cancelled yet carries interrupts, or an interrupt outcome naming none, says
two things at once. Each is refused before anyone is asked.
"""

from __future__ import annotations

from typing import Any

from ...secrets.display import shown_cut
from ._events import AGUIFolder

__all__ = ["unanswerable"]


def _shown(value: Any) -> str:
    return shown_cut(repr(value), 80)  # the peer's text, in an error: redacted, then cut


def unanswerable(folder: AGUIFolder, number: int) -> str | None:
    """Why the interrupts run ``number`` ended with cannot each get their own answer (None when they can)."""
    outcome, interrupts = folder.outcome, folder.interrupts
    ended = f"run {number} ended with RUN_FINISHED outcome {_shown(outcome)}"
    if folder.stray_interrupts or (outcome == "cancelled" and interrupts):
        count = folder.stray_interrupts or len(interrupts)
        return (
            f"{ended} carrying {count} interrupt(s), which only an interrupt outcome may carry: the run would be both "
            "ended and waiting for a decision; the agent must end it with outcome interrupt, or without interrupts"
        )
    if outcome == "interrupt" and not interrupts:
        return (
            f"{ended} listing no interrupts: it waits for a decision but names nothing to decide (AG-UI 1.0 asks for "
            "at least one); the agent must list what it waits for"
        )
    made = [n for n, interrupt in enumerate(interrupts, 1) if interrupt.get("id") in folder.made_ids]
    if made and len(interrupts) > 1:
        return (
            f"{len(interrupts)} interrupts of run {number} are pending and #{made[0]} came without an id of its own "
            "(a legacy CUSTOM on_interrupt value without 'id', or no object), so no answer can be addressed to it; give "
            "each interrupt its own id, or raise them one at a time"
        )
    seen: dict[str, int] = {}
    for n, interrupt in enumerate(interrupts, 1):
        ident = interrupt.get("id")
        if not isinstance(ident, str) or not ident:
            return (
                f"interrupt #{n} of run {number} has the id {_shown(ident)}, not a text, so no answer can be addressed "
                "to it; give each interrupt its own id"
            )
        if ident in seen:
            return (
                f"interrupts #{seen[ident]} and #{n} of run {number} share the id {_shown(ident)}, so the agent would "
                "get both answers under one id and could not tell which belongs to which action; give each interrupt "
                "its own id"
            )
        seen[ident] = n
        call_id = interrupt.get("toolCallId")
        clashes = folder.clashes(call_id)
        if clashes:
            named = ", ".join(_shown(name) for name in clashes)
            return (
                f"interrupt #{n} ({_shown(ident)}) of run {number} names toolCallId {_shown(call_id)}, which the agent "
                f"gave to {len(clashes)} different tool calls ({named}), so whoever decides could not tell which call "
                "they approve; give each tool call its own id"
            )
    return None
