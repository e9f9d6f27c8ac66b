"""Approvals another system asked for: an AG-UI interrupt, a Noeta suspension, a LangGraph ``interrupt()``.

Such a request is a python-tool draft whose function gives the answer to the system that asked. That system
waits in the process that ran the episode (its client, its graph, its conversation): the answer can reach it
only there, while the request waits. The draft calls :func:`answer_asked`, a top-level function (no closure
only one process could import), which finds the request's answer by the key the draft carries. Where nobody
waits for it (the process ended), nothing can continue the run: ``approve_draft`` refuses before it records,
and ``resume_run`` seals an approval recorded earlier ``error`` with that reason.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ..errors import AskerGoneError
from ..secrets.quoted import quoted
from ..store.ownership import holder
from ..tools.repositories import ApprovalDecisionRepository, PreparedInvocationRepository

__all__ = ["ASKED_KEY", "AskerGoneError", "answer_asked", "asked", "asker_gone", "refuse_unanswerable"]

#: the payload key (of ``kwargs``) naming the request this process waits on
ASKED_KEY = "asked_as"
#: the functions an integration's approval draft calls: this module's, and the closure earlier releases recorded
_REFS = frozenset((f"{__name__}:answer_asked", "noesis_nb.integrations._approvals:request_approval.<locals>.approved"))
_SYSTEMS = {"agui": "AG-UI agent", "noeta": "Noeta agent", "langgraph": "LangGraph graph", "crewai": "CrewAI crew"}
_WAITING: dict[str, Callable[[], Any]] = {}
_COUNT = itertools.count(1)


@contextlib.contextmanager
def asked(on_approve: Callable[[], Any], episode_id: str) -> Iterator[str]:
    """The key of a request of episode ``episode_id`` waiting in this process for as long as the block lasts;
    ``answer_asked`` calls ``on_approve`` for it. The key holds the episode's id (unique to that run): a process id
    and a count alone come again in a later process (the same pid after a container's restart, each process's count
    starting at 1), whose own waiting request an old run's approval would then answer."""
    key = f"{episode_id}-{next(_COUNT)}"
    _WAITING[key] = on_approve
    try:
        yield key
    finally:
        _WAITING.pop(key, None)


def answer_asked(*_: Any, **details: Any) -> Any:
    """Give an approved request's answer to the system waiting for it in this process (the draft's function)."""
    on_approve = _WAITING.get(str(details.get(ASKED_KEY)))
    if on_approve is None:
        raise AskerGoneError(
            "the approval is recorded, but the system that asked for it no longer waits for an answer (it waited in "
            "the process that ran the episode, which has ended): it was not told, and the run cannot continue"
        )
    return on_approve()


def _asks_elsewhere(prepared: Any) -> bool:
    """Whether a draft is a request another system asked for, whose answer waits in no process here."""
    ref = getattr(prepared, "x_callable", None)
    if ref is None or ref.ref not in _REFS:
        return False
    kwargs = prepared.payload.normalized_payload.get("kwargs") or {}
    return str(kwargs.get(ASKED_KEY)) not in _WAITING


def _system(prepared: Any) -> str:
    namespace = str(getattr(prepared.tool, "namespace", "") or "")
    return _SYSTEMS.get(namespace, f"{namespace or 'external'} system")


def asker_gone(prepared: Any) -> str | None:
    """Why an approved draft cannot go on here (the system that asked is gone), or None when it can."""
    if not _asks_elsewhere(prepared):
        return None
    return (
        f"the approval of {prepared.tool.namespace}.{prepared.tool.name} is recorded, but the {_system(prepared)} that "
        "asked for it waited in the process that ran the episode, which has ended: it was not told, and the run cannot "
        "continue from another process"
    )


def refuse_unanswerable(run_dir: Path, draft_id: str) -> None:
    """Refuse, before anything is recorded, to approve a request whose asker is gone: no process holds the run, the
    answer waits nowhere here, and no decision is recorded yet (deciding again gives the stored one back)."""
    prepared = PreparedInvocationRepository(run_dir).get(None, draft_id)
    if prepared is None or not _asks_elsewhere(prepared) or holder(run_dir) is not None:
        return
    if ApprovalDecisionRepository(run_dir).get(None, draft_id) is not None:
        return
    run = quoted(run_dir.name)
    raise AskerGoneError(
        f"run {run_dir.name} waits on an approval the {_system(prepared)} asked for (tool "
        f"{prepared.tool.namespace}.{prepared.tool.name}, draft {quoted(draft_id)}); the {_system(prepared)} waited for "
        "the answer in the process that ran the episode, which has ended, so an approval recorded now could never reach "
        "it and the run could not continue (nothing was recorded). To end the run: "
        f"reject_draft({run}, reason=...) then resume_run({run}) seals it vetoed (the agent is not told). Decide such "
        "approvals while the episode runs: start(...) in a process that stays up, then its buttons or handle.approve()"
    )
