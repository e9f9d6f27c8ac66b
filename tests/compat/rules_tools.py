"""Tool-contract events and records: Noēsis' runtime bridge and its tests (``usecases/tool_invocation/runtime_bridge.py``,
``tests/runtime/test_tool_invocation_runtime_bridge.py``) and its file repositories
(``infrastructure/tool_invocation/repositories.py``).

The bridge links each tool event to the one before it (``caused_by``); after a pause the first event
links to the latest event, so walking back from ``tool.execution.started`` passes ``run.resume``,
``run.checkpoint``, ``run.interrupt``, ``tool.approval.pending``, ``action.candidate_emitted`` and the
``action_candidate`` event. Its repository reads ``prepared/*.json`` with enum constructors that raise
on an unknown protocol, status, effect kind or risk tier, and skips records of another run.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from .rundata import Run, Violation, parent, payload_of, text

PROTOCOLS = ("subprocess", "http", "mcp")
PREPARED_STATUSES = ("prepared", "pending_approval", "approved")
EFFECT_KINDS = ("read", "write")
RISK_TIERS = ("low", "medium", "high", "critical")
APPROVAL_STATUSES = ("approved", "rejected")
_SETTLED = frozenset(
    {
        "tool.approved",
        "tool.replayed",
        "tool.execution.started",
        "tool.execution.succeeded",
        "tool.execution.failed",
        "tool.rejected.governance",
    }
)


def prepared_records(run: Run) -> list[tuple[str, Any]]:
    """``(relative name, parsed object or error text)`` for each ``tool_invocations/prepared/*.json``, as Noēsis globs them."""
    return _records(run, "prepared")


def _records(run: Run, folder: str) -> list[tuple[str, Any]]:
    root = run.path / "tool_invocations" / folder
    out: list[tuple[str, Any]] = []
    for path in sorted(root.glob("*.json")) if root.is_dir() else []:
        name = f"tool_invocations/{folder}/{path.name}"
        try:
            out.append((name, json.loads(path.read_bytes().decode("utf-8"))))
        except (UnicodeDecodeError, ValueError) as exc:
            out.append((name, f"not valid UTF-8 JSON ({exc})"))
    return out


def check(run: Run) -> Iterator[Violation]:
    yield from _prepared(run)
    yield from _approvals(run)
    yield from _events(run)


# -- records ------------------------------------------------------------------------------------
def _prepared(run: Run) -> Iterator[Violation]:
    for name, doc in prepared_records(run):
        for problem in _prepared_problems(run, name, doc):
            yield Violation("records.prepared", name, problem)


def _prepared_problems(run: Run, name: str, doc: Any) -> Iterator[str]:
    if not isinstance(doc, dict):
        yield doc if isinstance(doc, str) else f"expected a JSON object, found {type(doc).__name__}"
        return
    for key, allowed, default in (("protocol", PROTOCOLS, "subprocess"), ("status", PREPARED_STATUSES, "prepared")):
        if str(doc.get(key, default)) not in allowed:
            yield f"{key} {doc.get(key)!r} is not one of {list(allowed)}: Noēsis' reader raises ValueError on this record"
    governance = doc.get("governance") if isinstance(doc.get("governance"), dict) else {}
    for key, allowed, default in (("effect_kind", EFFECT_KINDS, "read"), ("risk_tier", RISK_TIERS, "low")):
        if str(governance.get(key, default)) not in allowed:
            yield f"governance.{key} {governance.get(key)!r} is not one of {list(allowed)}: Noēsis' reader raises ValueError"
    execution = doc.get("execution") if isinstance(doc.get("execution"), dict) else {}
    for key in ("timeout_ms", "retry_limit"):
        try:
            int(execution.get(key, 0))
        except (TypeError, ValueError):
            yield f"execution.{key} {execution.get(key)!r} is not an integer: Noēsis' reader raises"
    for section, key in (("security", "scopes"), ("governance", "tags")):
        value = (doc.get(section) or {}).get(key, ()) if isinstance(doc.get(section), dict) else ()
        if not isinstance(value, (list, tuple, str)):
            yield f"{section}.{key} must be a list, got {value!r}"
    if str(doc.get("run_id")) != run.episode_id:
        yield f"run_id {doc.get('run_id')!r} is not this run's ({run.episode_id!r}): Noēsis' repository ignores the record"
    stem = name.rsplit("/", 1)[1][:-5]
    key = doc.get("draft_id") or doc.get("request_id")
    if key != stem:
        yield f"file name {stem!r} differs from draft_id {doc.get('draft_id')!r}: Noēsis loads <draft_id>.json"


def _approvals(run: Run) -> Iterator[Violation]:
    for name, doc in _records(run, "approvals"):
        if not isinstance(doc, dict):
            yield Violation("records.approvals", name, doc if isinstance(doc, str) else "expected a JSON object")
            continue
        if str(doc.get("status", "approved")) not in APPROVAL_STATUSES:
            yield Violation(
                "records.approvals",
                name,
                f"status {doc.get('status')!r} is not one of {list(APPROVAL_STATUSES)}: Noēsis' reader raises ValueError",
            )
        if str(doc.get("run_id")) != run.episode_id:
            yield Violation("records.approvals", name, f"run_id {doc.get('run_id')!r} is not this run's ({run.episode_id!r})")


# -- events -------------------------------------------------------------------------------------
def _events(run: Run) -> Iterator[Violation]:
    index_by_id = run.index_by_id
    requests: dict[str, list[int]] = {}
    draft_request: dict[str, str] = {}
    for i, payload in run.tool_events():
        request = payload.get("request_id")
        if isinstance(request, str):
            requests.setdefault(request, []).append(i)
            if isinstance(payload.get("draft_id"), str):
                draft_request.setdefault(payload["draft_id"], request)
        cause = parent(run.events[i])
        if cause is None or index_by_id.get(cause, i) >= i:
            yield Violation(
                "tool.caused_by",
                message=f"{payload.get('event_name')} is caused_by {run.events[i].get('caused_by')!r}; every tool event links to "
                "an earlier event (never null, also after a resume from another process)",
                **run.where(i),
            )
    candidates = {
        e["payload"]["action_candidate_id"]: i
        for i, e in enumerate(run.events)
        if e.get("phase") == "action_candidate"
        and isinstance(e.get("payload"), dict)
        and isinstance(e["payload"].get("action_candidate_id"), str)
    }
    for request, indices in requests.items():
        yield from _request(run, request, indices, candidates)
    yield from _pause_links(run)
    for i, event in enumerate(run.events):
        payload = event.get("payload")
        draft = payload.get("x-tool_draft_id") if event.get("phase") == "act" and isinstance(payload, dict) else None
        if isinstance(draft, str) and draft in draft_request:
            cid = _candidate_id(run, requests[draft_request[draft]])
            if cid is None or candidates.get(cid, i) >= i:
                yield Violation(
                    "tool.candidate_precedes",
                    message=f"no action_candidate event precedes the act of draft {draft!r}",
                    **run.where(i),
                )


def _name(run: Run, i: int) -> str:
    return str(payload_of(run.events[i]).get("event_name"))


def _candidate_id(run: Run, indices: list[int]) -> str | None:
    for i in indices:
        payload = run.events[i]["payload"]
        if text(payload.get("event_name")) in {
            "action.candidate_emitted",
            "tool.approval.pending",
            "tool.execution.started",
        } and isinstance(payload.get("candidate_id"), str):
            return payload["candidate_id"]
    return None


def _request(run: Run, request: str, indices: list[int], candidates: dict[str, int]) -> Iterator[Violation]:
    for before, after in zip(indices, indices[1:]):
        if before not in run.chain(after):
            yield Violation(
                "tool.chain",
                message=f"walking caused_by back from {_name(run, after)} does not reach {_name(run, before)}, "
                f"the previous event of request {request!r}",
                **run.where(after),
            )
    emitted = next((i for i in indices if _name(run, i) == "action.candidate_emitted"), None)
    candidate = None
    if emitted is not None:
        payload = run.events[emitted]["payload"]
        cause = run.index_by_id.get(parent(run.events[emitted]) or "")
        cid = payload.get("candidate_id")
        candidate = candidates.get(cid) if isinstance(cid, str) else None
        if cause is None or cause != candidate:
            yield Violation(
                "tool.candidate_event",
                message=f"action.candidate_emitted is caused_by {run.events[emitted].get('caused_by')!r}, "
                f"not the action_candidate event with action_candidate_id {payload.get('candidate_id')!r}",
                **run.where(emitted),
            )
    for i in indices:
        name = _name(run, i)
        if name == "tool.approval.pending":
            if emitted is None or emitted not in run.chain(i):
                yield Violation(
                    "tool.pending_chain",
                    message="action.candidate_emitted of this request is not in the causal chain of tool.approval.pending",
                    **run.where(i),
                )
        elif name == "tool.execution.started":
            cid = _candidate_id(run, indices)
            if cid is None or candidates.get(cid, i) >= i:
                yield Violation(
                    "tool.candidate_precedes",
                    message=f"no action_candidate event with id {cid!r} precedes the execution",
                    **run.where(i),
                )
            yield from _execution_chain(run, i, indices, emitted, candidate)


def _execution_chain(
    run: Run, started: int, indices: list[int], emitted: int | None, candidate: int | None
) -> Iterator[Violation]:
    pending = next((i for i in indices if i < started and _name(run, i) == "tool.approval.pending"), None)
    needed = {
        k: v
        for k, v in (("action_candidate", candidate), ("action.candidate_emitted", emitted), ("tool.approval.pending", pending))
        if v is not None
    }
    missing: list[str] = []
    if pending is not None:  # a request that needed approval runs only after its pause was resumed (§5: all three
        pause = _pause_of(run, pending, started)  # are in its chain, a policy's decision as a person's)
        needed.update(pause)
        missing += [kind for kind in ("run.interrupt", "run.checkpoint", "run.resume") if kind not in pause]
    chain = set(run.chain(started))
    missing = [name for name, i in needed.items() if i not in chain] + missing
    if missing:
        yield Violation(
            "tool.execution_chain",
            message=f"walking caused_by back from tool.execution.started misses {missing}",
            **run.where(started),
        )


def _pause_of(run: Run, pending: int, before: int) -> dict[str, int]:
    """The interrupt, checkpoint and resume of the last pause that ``pending`` caused before ``before`` (a run
    paused on it again when other events followed its first checkpoint resumes from that later pause)."""
    found: dict[str, int] = {}
    pending_id = run.events[pending].get("id")
    interrupt = max(
        (i for i in run.runtime("run.interrupt") if pending < i < before and parent(run.events[i]) == pending_id),
        default=None,
    )
    if interrupt is None:
        return found
    found["run.interrupt"] = interrupt
    checkpoint = next((i for i in run.runtime("run.checkpoint") if interrupt < i < before), None)
    if checkpoint is None:
        return found
    found["run.checkpoint"] = checkpoint
    cid = payload_of(run.events[checkpoint]).get("checkpoint_id")
    resume = next(
        (
            i
            for i in run.runtime("run.resume")
            if checkpoint < i < before and payload_of(run.events[i]).get("checkpoint_id") == cid
        ),
        None,
    )
    if resume is not None:
        found["run.resume"] = resume
    return found


def _pause_links(run: Run) -> Iterator[Violation]:
    """A pause while drafts wait for a human: interrupt caused_by a pending event, checkpoint caused_by the interrupt."""
    waiting: dict[str, str] = {}  # draft_id -> id of its tool.approval.pending event
    last_interrupt: str | None = None
    for i, event in enumerate(run.events):
        payload = payload_of(event)
        name, draft = text(payload.get("event_name")), payload.get("draft_id")
        if event.get("phase") == "tool" and isinstance(draft, str):
            if name == "tool.approval.pending" and isinstance(event.get("id"), str):
                waiting[draft] = event["id"]
            elif name in _SETTLED:
                waiting.pop(draft, None)
        elif event.get("event_type") == "run.interrupt":
            last_interrupt = event.get("id") if waiting else None
            if waiting and parent(event) not in waiting.values():
                yield Violation(
                    "tool.pause_links",
                    message=f"run.interrupt while draft(s) {sorted(waiting)} wait for approval is caused_by "
                    f"{event.get('caused_by')!r}, not their tool.approval.pending event",
                    **run.where(i),
                )
        elif event.get("event_type") == "run.checkpoint" and last_interrupt is not None:
            if parent(event) != last_interrupt:
                yield Violation(
                    "tool.pause_links",
                    message=f"run.checkpoint is caused_by {event.get('caused_by')!r}, not the "
                    f"run.interrupt of the approval pause ({last_interrupt!r})",
                    **run.where(i),
                )
            last_interrupt = None
