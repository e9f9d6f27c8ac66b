"""A decision a person already made, as a recorded trace holds it, written as the live path writes a person's.

An imported trace (Noeta, Noetic, AG-UI) records who approved or denied a tool call, and when. Its call becomes a
draft like a live one, and its decision the pause a person's decision makes (``run.interrupt`` →
``run.checkpoint`` → decision record → ``run.resume``, Noēsis' lineage of a tool that needed approval): the pause
opens when the call was asked for and closes when the recorded person decided, so ``tools_df.wait_s``,
``approver_id`` and ``runs_df.waiting_s`` read what the trace says. Nothing waits: the trace's rows up to its
decision are written meanwhile (``RecordedDecision`` comes from ``ask``), each at its recorded time.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .. import tools as tc
from .gate import Decision, to_decision

if TYPE_CHECKING:
    from .context import RequestChain
    from .episode import Episode
    from .gate import PendingApproval

__all__ = ["RecordedDecision", "decide_recorded"]


@dataclass(frozen=True)
class RecordedDecision:
    """A recorded person's decision: ``approver_id`` (who, as the trace names them), ``decided_at`` (ISO 8601, or
    None when the trace gives no time: the time of writing), and the reason given with a denial."""

    approved: bool
    approver_id: str
    decided_at: str | None = None
    reason: str | None = None


async def decide_recorded(
    episode: Episode, pending: PendingApproval, chain: RequestChain, ask: Callable[[], RecordedDecision]
) -> Decision:
    """Write the pause of ``pending`` now (the time it was asked for), call ``ask`` in a worker thread (it writes the
    trace's rows up to the decision, which move the run's clock to its time), then the decision and the resume."""
    rec = episode.recorder
    paused_on = chain.tail
    checkpoint = rec.pause(f"tool approval recorded: {pending.tool} ({pending.draft_id})", paused_on)
    said = await asyncio.to_thread(ask)
    record, created = tc.decide(
        rec.run_dir,
        pending.draft_id,
        approve=said.approved,
        approver_id=said.approver_id,
        reason=said.reason,
        decided_at=said.decided_at,
    )
    decision = to_decision(record, created)
    episode.gate.record(decision)
    chain.tail = rec.resume_pause(checkpoint, paused_on)["id"]
    return decision
