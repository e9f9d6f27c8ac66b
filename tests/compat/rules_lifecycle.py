"""Interrupt, checkpoint, resume and pause: what Noēsis' lifecycle service (``usecases/run_lifecycle.py``,
``domain/run_lifecycle.py``) requires before ``resume()`` / ``resume_run`` accept a run, and what a paused
run holds on disk (``noesis/core.py``, the tool-bridge tests).
"""

from __future__ import annotations

from collections.abc import Iterator

from .rundata import TERMINAL_STATES, Run, Violation, parent, payload_of, sha256_file, text

# a paused run is resumed, nothing else: a second checkpoint leaves it waiting on nothing Noēsis can name, and an
# interrupt while paused (a second pause opened on top of the first, e.g. one per parallel draft) has no transition
_NOT_FROM_PAUSED = ("run.interrupt", "run.checkpoint")
# nothing acts on, reflects on or ends a run while its pause is open: Noēsis' contract is
# running → run.interrupt → run.checkpoint → run.resume → act → terminate
_NOT_WHILE_PAUSED = ("act", "reflect", "terminate")
_CHECKPOINT_STRINGS = ("run_id", "checkpoint_id", "created_at", "last_event_id", "state_hash", "artifact_manifest_hash")


def check(run: Run) -> Iterator[Violation]:
    yield from _state_file(run)
    yield from _records(run)
    states = run.lifecycle()
    for i in run.runtime("run.checkpoint"):
        yield from _checkpoint_event(run, i)
    for i in run.runtime("run.resume"):
        yield from _resume_event(run, i, states[i - 1] if i else "running")
    for kind in ("run.interrupt", "run.checkpoint", "run.resume"):
        for i in run.runtime(kind):
            if i and states[i - 1] in TERMINAL_STATES:
                yield Violation(
                    "lifecycle.transition",
                    message=f"{kind} after the run reached the terminal state {states[i - 1]!r}",
                    **run.where(i),
                )
    for kind in _NOT_FROM_PAUSED:
        for i in run.runtime(kind):
            if i and states[i - 1] == "paused":
                yield Violation(
                    "lifecycle.transition",
                    message=f"{kind} while the run is paused at a checkpoint; Noēsis' lifecycle goes "
                    "running → interrupted → paused → resuming, so only run.resume follows a pause",
                    **run.where(i),
                )
    for i, event in enumerate(run.events):
        if i and event.get("phase") in _NOT_WHILE_PAUSED and states[i - 1] in ("paused", "interrupted"):
            yield Violation(
                "lifecycle.step_while_paused",
                message=f"{event.get('phase')} while the run's lifecycle state is {states[i - 1]!r}, with no run.resume "
                "since the pause: Noēsis goes interrupt → checkpoint → resume → act → terminate",
                **run.where(i),
            )
    sealed = run.exists("final.json") or (run.legacy and run.exists("manifest.json"))
    if run.paused:
        yield from _paused(run)
    elif not sealed:
        yield Violation(
            "run.state",
            "events.jsonl",
            f"the run is neither sealed (final.json + manifest.json) nor paused at a "
            f"checkpoint; its lifecycle state is {run.final_state!r}",
        )


def _state_file(run: Run) -> Iterator[Violation]:
    if not run.exists("state.json"):
        yield Violation("run.state", "state.json", "missing: Noēsis writes state.json at start (resume and checkpoints need it)")


def _records(run: Run) -> Iterator[Violation]:
    """Each ``checkpoints/<id>/checkpoint.json`` must load as Noēsis' ``RunCheckpoint``."""
    for name, doc in run.docs.items():
        if not name.startswith("checkpoints/"):
            continue
        folder = name.split("/")[1]
        for key in _CHECKPOINT_STRINGS:
            if not isinstance(doc.get(key), str) or not doc.get(key):
                yield Violation("checkpoint.record", name, f"{key} must be a non-empty string, got {doc.get(key)!r}")
        offset = doc.get("event_offset")
        if not (isinstance(offset, int) and not isinstance(offset, bool) and offset >= 1):
            yield Violation("checkpoint.record", name, f"event_offset must be an int >= 1, got {offset!r}")
        if doc.get("checkpoint_id") != folder:
            yield Violation(
                "checkpoint.record", name, f"checkpoint_id {doc.get('checkpoint_id')!r} differs from its folder {folder!r}"
            )


def _checkpoint_event(run: Run, i: int) -> Iterator[Violation]:
    event, where = run.events[i], run.where(i)
    payload = event.get("payload") if isinstance(event.get("payload"), dict) else {}
    cid = payload.get("checkpoint_id")
    record = run.checkpoint_record(cid)
    if record is None:
        yield Violation(
            "checkpoint.event",
            message=f"run.checkpoint names {cid!r}, but checkpoints/{cid}/checkpoint.json is missing or unreadable",
            **where,
        )
        return
    offset = record.get("event_offset")
    if offset != i:
        yield Violation(
            "checkpoint.event", message=f"checkpoint event_offset is {offset!r}, but {i} event(s) precede run.checkpoint", **where
        )
    if payload.get("event_offset") != offset:
        yield Violation(
            "checkpoint.event",
            message=f"payload.event_offset {payload.get('event_offset')!r} != the record's {offset!r}",
            **where,
        )
    if payload.get("checkpoint_path") != f"checkpoints/{cid}/checkpoint.json":
        yield Violation("checkpoint.event", message=f"checkpoint_path is {payload.get('checkpoint_path')!r}", **where)
    if parent(event) != record.get("last_event_id"):
        yield Violation(
            "checkpoint.event",
            message=f"run.checkpoint is caused_by {event.get('caused_by')!r}, not the checkpoint's "
            f"last_event_id {record.get('last_event_id')!r}",
            **where,
        )
    if isinstance(offset, int) and 1 <= offset <= len(run.events):
        if run.events[offset - 1].get("id") != record.get("last_event_id"):
            yield Violation(
                "checkpoint.anchor",
                message=f"event #{offset} is {run.events[offset - 1].get('id')!r}, not the checkpoint's "
                f"last_event_id {record.get('last_event_id')!r}: Noēsis' resume raises CheckpointConsistencyError",
                **where,
            )


def _resume_event(run: Run, i: int, before: str) -> Iterator[Violation]:
    event, where = run.events[i], run.where(i)
    payload = event.get("payload") if isinstance(event.get("payload"), dict) else {}
    if before != "paused":
        yield Violation(
            "lifecycle.transition",
            message=f"run.resume from lifecycle state {before!r}; resuming is valid only from 'paused'",
            **where,
        )
    record = run.checkpoint_record(payload.get("checkpoint_id"))
    if record is None:
        yield Violation(
            "resume.checkpoint",
            message=f"run.resume names checkpoint {payload.get('checkpoint_id')!r}, which does not "
            "exist (Noēsis raises CheckpointNotFoundError)",
            **where,
        )
        return
    if payload.get("event_offset") != record.get("event_offset"):
        yield Violation(
            "resume.checkpoint",
            message=f"payload.event_offset {payload.get('event_offset')!r} != the checkpoint's {record.get('event_offset')!r}",
            **where,
        )
    allowed = {text(record.get("last_event_id")), text(run.events[i - 1].get("id")) if i else None} - {None}
    if parent(event) not in allowed:
        yield Violation(
            "resume.caused_by",
            message=f"run.resume is caused_by {event.get('caused_by')!r}; Noēsis' resume() accepts only "
            f"the checkpoint's last_event_id or the event right before it ({sorted(allowed)}) and raises "
            "CheckpointConsistencyError otherwise",
            **where,
        )


def _paused(run: Run) -> Iterator[Violation]:
    for name in ("summary.json", "final.json", "manifest.json"):
        if run.exists(name):
            yield Violation("paused.artifacts", name, "a paused run has none (Noēsis writes it only for terminal runs)")
    state = run.docs.get("state.json")
    if isinstance(state, dict):
        outcomes = state.get("outcomes") if isinstance(state.get("outcomes"), dict) else {}
        if outcomes.get("status") != "partial":
            yield Violation(
                "paused.artifacts", "state.json", f"outcomes.status is {outcomes.get('status')!r}; a paused run is 'partial'"
            )
        links = state.get("links")
        if not isinstance(links, dict) or set(links) != {"events", "learn"}:
            yield Violation("paused.artifacts", "state.json", f"links are {links!r}; a paused run links only events and learn")
    checkpoints = list(run.runtime("run.checkpoint"))
    if checkpoints and run.exists("state.json"):
        record = run.checkpoint_record(payload_of(run.events[checkpoints[-1]]).get("checkpoint_id"))
        if record is not None and record.get("state_hash") != sha256_file(run.path / "state.json"):
            yield Violation(
                "paused.state_hash",
                "state.json",
                "sha256 of state.json differs from the state_hash of the last checkpoint: "
                "Noēsis' resume raises CheckpointConsistencyError",
            )
    pending = _pending_drafts(run)
    if len(pending) > 1:
        yield Violation(
            "paused.pending",
            "tool_invocations/prepared",
            f"{len(pending)} drafts are pending_approval ({pending}); "
            "Noēsis' resume raises AmbiguousPreparedToolInvocationError when more than one is",
        )


def _pending_drafts(run: Run) -> list[str]:
    from .rules_tools import prepared_records

    return [
        name
        for name, doc in prepared_records(run)
        if isinstance(doc, dict) and doc.get("status") == "pending_approval" and str(doc.get("run_id")) == run.episode_id
    ]
