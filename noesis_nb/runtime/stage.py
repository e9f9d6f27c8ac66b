"""Where an unsealed run stands in Noēsis' lifecycle, read from its log, and which lifecycle call each stage takes.

Noēsis' lifecycle goes ``running → interrupted → paused → resuming`` (``run.interrupt``, ``run.checkpoint``,
``run.resume``). A run on disk that no live process writes is in one of these stages:

=================  ===============================================  =====================================
stage              its last lifecycle event                         the calls it takes
=================  ===============================================  =====================================
``running``        none (its process stopped while it ran: lost),   ``ns.interrupt``, ``ns.checkpoint``
                   or a ``run.resume`` the run went on past: a
                   policy's pause, one whose tool then ran, or a
                   veto's whose adapter then ran again
``interrupted``    ``run.interrupt``                                ``ns.checkpoint``
``paused``         ``run.checkpoint``                               ``ns.resume``
``resumed``        ``run.resume`` of ``ns.resume``, the log's last  none of the three: it still waits for
                   line (evidence only: the run stays paused)       its decision and ``resume_run``
``lost_resuming``  ``run.resume`` of ``resume_run`` or of the       none of the three: ``resume_run``
                   live episode, or ``ns.resume``'s followed by     continues it
                   what a ``resume_run`` wrote; its process gone
=================  ===============================================  =====================================

Every stage takes ``resume_run`` (it continues or settles the run), and a run paused on a draft or a veto takes
``approve_draft`` / ``reject_draft`` in ``paused`` and ``resumed`` alike. A call a stage does not take is refused
with :class:`RunLifecycleTransitionError` naming the stage and the call to make, before anything is written: an
interrupt or checkpoint there would leave the run paused on nothing, so that ``resume_run`` could only seal it lost.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import RunLifecycleTransitionError
from ..secrets.quoted import quoted
from ..store.vocab import (
    POLICY_PAUSE_KEY,
    RUN_CHECKPOINT,
    RUN_INTERRUPT,
    RUN_RESUME,
    TERMINAL_EXECUTION_EVENTS,
    TOOL_APPROVAL_ABANDONED,
    TOOL_APPROVAL_PENDING,
    TOOL_EXECUTION_OUTCOME_UNKNOWN,
    TOOL_REJECTED_GOVERNANCE,
)
from .position import Pause, last_pause, payload_of

__all__ = ["Stage", "stage_of", "refuse_unless", "pause_continued"]

#: what a resumed draft ends with: its tool ran (or was refused, or its call given up), and the run went on
_OUTCOMES = (*TERMINAL_EXECUTION_EVENTS, TOOL_EXECUTION_OUTCOME_UNKNOWN, TOOL_REJECTED_GOVERNANCE, TOOL_APPROVAL_ABANDONED)

#: what a veto's resume writes before its adapter runs again: the override's candidate and its allow
_OVERRIDE = ("action_candidate", "governance")

#: the stages each evidence call of the ``ns`` facade is valid from
TAKES = {"interrupt": ("running",), "checkpoint": ("running", "interrupted"), "resume": ("paused",)}


@dataclass(frozen=True)
class Stage:
    """An unsealed run's lifecycle stage, the checkpoint of its last pause, and what that pause waits on."""

    name: str  # running | interrupted | paused | resumed | lost_resuming
    checkpoint_id: str | None
    waits_on: str | None  # "draft <id>", "a governance veto", or None (paused through ns.interrupt + ns.checkpoint)


def pause_continued(pause: Pause, events: list[dict[str, Any]]) -> bool:
    """Whether something continued the run after ``pause`` (``events``: its log): a ``run.resume`` of ``resume_run``
    or of the live episode, or anything written after the evidence-only ``run.resume`` of ``ns.resume`` (which
    leaves the run paused: only a ``resume_run`` writes after it). A pause nothing continued waits for its decision."""
    if pause.resume_event is None:
        return False
    return payload_of(pause.resume_event).get("resumed_by") != "resume" or pause.resume_index != len(events) - 1


def stage_of(events: list[dict[str, Any]]) -> Stage:
    """The stage of the run whose log is ``events`` (its last ``run.interrupt`` / ``checkpoint`` / ``resume``)."""
    last = next((e for e in reversed(events) if e.get("event_type") in (RUN_INTERRUPT, RUN_CHECKPOINT, RUN_RESUME)), None)
    pause = last_pause(events)
    checkpoint_id = None if pause is None else payload_of(pause.checkpoint_event).get("checkpoint_id")
    waits_on = None
    if pause is not None and pause.cause is not None:
        if pause.cause.get("phase") == "governance":
            waits_on = "a governance veto"
        elif payload_of(pause.cause).get("event_name") == TOOL_APPROVAL_PENDING:
            waits_on = f"draft {quoted(payload_of(pause.cause).get('draft_id'))}"
    kind = None if last is None else last.get("event_type")
    if kind is None:
        name = "running"
    elif kind == RUN_INTERRUPT:
        name = "interrupted"
    elif kind == RUN_CHECKPOINT:
        name = "paused"
    elif _resume_done(last or {}, pause, events):
        name = "running"  # the pause was over (a policy's, or its tool ran): the run went on, and was lost later
    else:
        evidence = payload_of(last or {}).get("resumed_by") == "resume" and last is events[-1]
        name = "resumed" if evidence else "lost_resuming"  # after ns.resume, only resume_run writes
    return Stage(name, None if checkpoint_id is None else str(checkpoint_id), waits_on)


def _resume_done(resume: dict[str, Any], pause: Pause | None, events: list[dict[str, Any]]) -> bool:
    """Whether the run went on past ``resume`` (its last ``run.resume``): the resume of a pause an approver policy
    decided (written whole, in one breath), one whose draft's tool then reached its outcome, or a veto's whose
    adapter then ran again (anything past the override's candidate and allow, as ``resume_run`` tells it)."""
    if isinstance(payload_of(resume).get(POLICY_PAUSE_KEY), str):
        return True
    if pause is None or pause.resume_event is not resume or pause.resume_index is None or pause.cause is None:
        return False
    if pause.cause.get("phase") == "governance":  # a veto resumed: past its override's candidate and allow, it went on
        return any(e.get("phase") not in _OVERRIDE for e in events[pause.resume_index + 1 :])
    draft = payload_of(pause.cause).get("draft_id")
    if payload_of(pause.cause).get("event_name") != TOOL_APPROVAL_PENDING or draft is None:
        return False
    return any(
        payload_of(e).get("event_name") in _OUTCOMES and payload_of(e).get("draft_id") == draft
        for e in events[pause.resume_index + 1 :]
    )


def refuse_unless(call: str, events: list[dict[str, Any]], episode_id: str) -> Stage:
    """``ns.<call>``'s stage check: the run's stage if it takes ``call``; else ``RunLifecycleTransitionError``
    saying what the run is and the call to make (nothing was written)."""
    stage = stage_of(events)
    if stage.name in TAKES[call]:
        return stage
    raise RunLifecycleTransitionError(
        f"ns.{call}({quoted(episode_id)}) refused: run {episode_id} {_what(stage)}. {_next(stage, episode_id)}; "
        "nothing was written"
    )


def _what(stage: Stage) -> str:
    on = f" on {stage.waits_on}" if stage.waits_on else " (through ns.interrupt and ns.checkpoint)"
    chk = quoted(stage.checkpoint_id)
    return {
        "running": "is running: its process stopped while it ran (lost), and it was never paused",
        "interrupted": "is interrupted (ns.interrupt), with no checkpoint since",
        "paused": f"is already paused at a checkpoint{on} (checkpoint {chk} already binds it)",
        "resumed": f"is still paused{on}: ns.resume wrote evidence only, nothing continued it, and checkpoint {chk} "
        "already binds it",
        "lost_resuming": f"was being resumed from checkpoint {chk} when its process stopped (lost mid-resume)",
    }[stage.name]


def _next(stage: Stage, episode_id: str) -> str:
    run = quoted(episode_id)
    if stage.name == "running":
        return f"Pause it with ns.interrupt({run}) then ns.checkpoint({run}), or settle it with resume_run({run})"
    if stage.name == "interrupted":
        return f"Pause it with ns.checkpoint({run}), or settle it with resume_run({run})"
    if stage.name == "lost_resuming":
        return f"resume_run({run}) continues it from there"
    if stage.waits_on is None:
        return f"resume_run({run}) settles it (nothing runs its adapter any more: it is sealed error, process_lost)"
    resume = f"resume_run({run}, using=<its adapter>)" if stage.waits_on == "a governance veto" else f"resume_run({run})"
    return f"Decide it, if not yet, with approve_draft({run}, approver_id=...) or reject_draft({run}), then {resume}"
