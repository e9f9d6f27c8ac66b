"""Action candidates: Noēsis' invariants (``diagnostics/invariants.py``), the candidate shape (events schema 1.3.0,
``domain/action_candidates.py``) and the lineage its governed actuator writes (``usecases/actuation``).

The invariant itself flags a side-effect ``act`` without ``action_candidate_id`` only once a candidate has
been seen (so runs of the writer that predates candidates pass). Noēsis' current runner emits a candidate
before every side-effect act, governance on or off; ``act.candidate_required`` holds runs of that writer
(every run that is not legacy, see ``Run.legacy``) to it, and a governance event of such a run decides
on a candidate even when no candidate was emitted at all.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from .rundata import Run, Violation, parent

SCHEMA_VERSION = "action_candidate/1.0.0"
STATE_REF = "state.json"
STATE_HASH = re.compile(r"^sha256:[0-9a-f]{64}$")
# adapter (runtime adapters), shell (``governed_act``), tool or tool.<namespace>.<name> (the tool contract)
KIND = re.compile(r"^(adapter|shell|tool(\.[^.\s]+\.[^\s]+)?)$")


def check(run: Run) -> Iterator[Violation]:
    seen: set[str] = set()
    candidate_event: dict[str, int] = {}  # action_candidate_id -> index of its event
    candidate_of_event: dict[str, str] = {}  # event id -> action_candidate_id
    governance_of: dict[str, list[str]] = {}  # action_candidate_id -> governance event ids caused by it
    vetoed_candidates: set[str] = set()
    vetoed_governance: set[str] = set()
    has_candidates = any(e.get("phase") == "action_candidate" for e in run.events)
    for i, event in enumerate(run.events):
        phase, payload, where = event.get("phase"), event.get("payload"), run.where(i)
        if not isinstance(payload, dict):
            continue
        event_id = event.get("id") if isinstance(event.get("id"), str) else None
        if phase == "action_candidate":
            yield from _candidate_shape(payload, where)
            cid = payload.get("action_candidate_id")
            if isinstance(cid, str):
                seen.add(cid)
                candidate_event.setdefault(cid, i)
                if event_id:
                    candidate_of_event[event_id] = cid
        elif phase == "governance":
            cid = candidate_of_event.get(parent(event) or "")
            if cid is None and (has_candidates or not run.legacy):
                yield Violation(
                    "governance.caused_by",
                    message=f"governance event is caused_by {event.get('caused_by')!r}, not an earlier "
                    "action_candidate event (Noēsis decides on a candidate)",
                    **where,
                )
            if cid is not None and event_id:
                governance_of.setdefault(cid, []).append(event_id)
            if payload.get("decision") == "veto" and payload.get("enforced") is True:
                if event_id:
                    vetoed_governance.add(event_id)
                if cid is not None:
                    vetoed_candidates.add(cid)
        elif phase == "act":
            yield from _act(run, i, payload, seen, candidate_event, governance_of, vetoed_candidates, vetoed_governance)


def _candidate_shape(payload: dict[str, Any], where: dict[str, Any]) -> Iterator[Violation]:
    types = {"schema_version": str, "kind": str, "payload": dict, "state_ref": str, "state_hash": str, "redaction": dict}
    for key, kind in types.items():
        if key not in payload:
            yield Violation("candidate.shape", message=f"action_candidate payload lacks {key!r}", **where)
        elif not isinstance(payload[key], kind):
            yield Violation(
                "candidate.shape", message=f"action_candidate {key} must be {kind.__name__}, got {payload[key]!r}", **where
            )
    if "provenance" in payload and not isinstance(payload["provenance"], dict):
        yield Violation("candidate.shape", message="provenance, when present, must be an object", **where)
    if "risk_tags" in payload and not (
        isinstance(payload["risk_tags"], list) and all(isinstance(t, str) for t in payload["risk_tags"])
    ):
        yield Violation("candidate.shape", message="risk_tags, when present, must be a list of strings", **where)
    kind = payload.get("kind")
    if isinstance(kind, str) and not KIND.match(kind):
        yield Violation(
            "candidate.kind",
            message=f"kind {kind!r} is not 'adapter', 'shell', 'tool' or 'tool.<namespace>.<name>'",
            **where,
        )
    if not isinstance(payload.get("action_candidate_id"), str) or not payload.get("action_candidate_id"):
        yield Violation("candidate.id", message="action_candidate missing action_candidate_id", **where)
    if payload.get("schema_version") != SCHEMA_VERSION:
        yield Violation(
            "candidate.schema_version", message=f"schema_version {payload.get('schema_version')!r} != {SCHEMA_VERSION!r}", **where
        )
    if isinstance(payload.get("state_ref"), str) and payload["state_ref"] != STATE_REF:
        yield Violation(
            "candidate.state_ref",
            message=f"state_ref {payload['state_ref']!r} != {STATE_REF!r} (the state it was hashed from)",
            **where,
        )
    state_hash = payload.get("state_hash")
    if isinstance(state_hash, str) and not STATE_HASH.match(state_hash):
        yield Violation(
            "candidate.state_hash", message=f"state_hash {state_hash!r} is not 'sha256:' + 64 lowercase hex digits", **where
        )
    redaction = payload.get("redaction")
    if isinstance(redaction, dict):
        for key in ("mode", "policy_id", "policy_version"):
            if not isinstance(redaction.get(key), str):
                yield Violation(
                    "candidate.redaction", message=f"redaction.{key} must be a string, got {redaction.get(key)!r}", **where
                )
        rules = redaction.get("field_rules")
        if not (isinstance(rules, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in rules.items())):
            yield Violation(
                "candidate.redaction", message=f"redaction.field_rules must map field names to rules, got {rules!r}", **where
            )


def _act(
    run: Run,
    i: int,
    payload: dict[str, Any],
    seen: set[str],
    candidate_event: dict[str, int],
    governance_of: dict[str, list[str]],
    vetoed_candidates: set[str],
    vetoed_governance: set[str],
) -> Iterator[Violation]:
    where, event = run.where(i), run.events[i]
    cid = payload.get("action_candidate_id")
    side_effect = "tool" in payload or "adapter" in payload
    if side_effect and not isinstance(cid, str):
        if seen:
            yield Violation("act.candidate_missing", message="side-effect act missing action_candidate_id", **where)
        elif not run.legacy:
            yield Violation(
                "act.candidate_required",
                message="side-effect act has no action_candidate_id and no action_candidate "
                "event precedes it; Noēsis emits one before every side-effect act, governance on or off",
                **where,
            )
    if not isinstance(cid, str):
        return
    if cid not in seen:
        yield Violation(
            "act.candidate_unknown",
            message=f"act references unknown action_candidate_id {cid!r} (no earlier action_candidate event has it)",
            **where,
        )
        return
    if cid in vetoed_candidates:
        yield Violation("act.after_veto", message=f"act emitted after vetoed governance of candidate {cid!r}", **where)
    if parent(event) in vetoed_governance:
        yield Violation("act.after_veto", message="act caused_by vetoed governance", **where)
    governance = governance_of.get(cid, [])
    candidate_id = run.events[candidate_event[cid]].get("id")
    expected = governance[-1] if governance else candidate_id
    if parent(event) != expected:
        link = "the governance event that decided" if governance else "the action_candidate event of"
        yield Violation(
            "act.caused_by",
            message=f"act is caused_by {event.get('caused_by')!r}; Noēsis links it to {link} candidate {cid!r} ({expected!r})",
            **where,
        )
