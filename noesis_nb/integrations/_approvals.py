"""Turn another system's approval request into a pending draft of the episode (the buttons).

The request becomes a python-protocol tool call that requires approval. Approving it runs
``on_approve`` (the system's own "approve/resume" step, or the answer it expects); rejecting it
returns the human's reason so the adapter can send the system's deny. Either way the decision
is persisted in ``tool_invocations/`` like any other draft. The draft calls a top-level function
(``runtime.asked.answer_asked``), never a closure: the system waits in this process, so a run whose
process ended cannot be continued, and ``approve_draft`` / ``resume_run`` say so by name.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from .._jsonio import to_jsonable
from ..errors import ToolRejected
from ..runtime.asked import ASKED_KEY, answer_asked, asked

__all__ = ["request_approval", "tool_name", "default_answer"]

_UNSAFE = re.compile(r"[^A-Za-z0-9_\-]+")


def default_answer(request: Any, approved: bool, reason: str | None) -> dict[str, Any]:
    """What a system gets back for an approval request (an AG-UI interrupt's resume payload, the value
    a LangGraph ``interrupt()`` returns): ``{"approved": bool}``, plus the reason of a rejection."""
    return {"approved": True} if approved else {"approved": False, **({"reason": reason} if reason else {})}


def tool_name(source: str, name: Any) -> str:
    """``"<source>.<name>"`` with characters a tool name cannot hold replaced by ``_``."""
    cleaned = _UNSAFE.sub("_", str(name or "approval")).strip("_") or "approval"
    return f"{source}.{cleaned[:80]}"


async def request_approval(
    ctx: Any, tool: str, details: dict[str, Any], *, on_approve: Callable[[], Any], risk: str = "high", timeout_s: float = 3600.0
) -> tuple[bool, Any, str | None]:
    """Wait for a decision on ``details``; returns ``(approved, value of on_approve, reject reason)``.

    ``on_approve`` runs only after approval, in a worker thread; its Python value is returned
    as is (the draft's recorded output is its JSON form). ``timeout_s`` bounds that call.
    """

    box: dict[str, Any] = {}

    def approved() -> Any:
        box["value"] = on_approve()
        return box["value"]

    with asked(approved, ctx.episode_id) as key:
        try:
            await ctx.tool_async(
                tool,
                {"args": [], "kwargs": {**to_jsonable(details), ASKED_KEY: key}},
                protocol="python",
                fn=answer_asked,
                effect="write",
                risk=risk,
                requires_approval=True,
                timeout_ms=int(timeout_s * 1000),
            )
        except ToolRejected as exc:
            return False, None, exc.reason
    return True, box.get("value"), None
