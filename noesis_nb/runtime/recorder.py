"""One run directory being written: events, state, pauses, checkpoints and sealing.

Everything a run leaves on disk goes through here, in Noēsis' order, so a crash at any
point leaves a run that readers understand (paused, running or sealed; never half-written).
"""

from __future__ import annotations

import hashlib
import itertools
import time
from pathlib import Path
from typing import Any, Callable

from .._jsonio import atomic_write_json, canonical_json, sha256_bytes
from ..errors import EpisodeStateError, RunsDirError
from ..ids import new_checkpoint_id, new_event_id
from ..secrets import for_run as secrets_for_run
from ..store import EventWriter, now_iso, read_events, read_state, write_manifest
from . import summary as summary_mod

__all__ = ["Recorder"]

Subscriber = Callable[[dict[str, Any]], None]
_TOKEN_FIELDS = ("input_tokens", "output_tokens", "cached_input_tokens", "cache_write_input_tokens", "reasoning_tokens")


class Recorder:
    """Writes one episode's run directory; emits to subscribers; thread-safe ``emit``."""

    def __init__(self, run_dir: Path, episode_id: str, state: dict[str, Any], events: list[dict[str, Any]] | None = None):
        self.run_dir = Path(run_dir)
        self.episode_id = episode_id
        self.state = state
        self.events: list[dict[str, Any]] = events if events is not None else []
        self.writer = EventWriter(self.run_dir / "events.jsonl")
        self._subscribers: tuple[Subscriber, ...] = ()
        self.last_activity = time.monotonic()
        self.closed = False
        self.usage: dict[str, int] = {"model_calls": 0, **{k: 0 for k in _TOKEN_FIELDS}}
        self.usage_calls: list[dict[str, Any]] = []
        self._lock = self.writer.lock  # one lock orders ids, timestamps and lines
        self._id_base = new_event_id()[:24]
        self._ids = itertools.count(len(self.events) + 1)
        self.secrets = secrets_for_run(self.run_dir)  # secrets seen in this run: kept out of what it writes
        self.secrets.observe(state.get("goal"), (state.get("episode") or {}).get("tags"))
        for event in self.events:
            self._count_usage(event)

    # -- creation -------------------------------------------------------------------------
    @classmethod
    def create(cls, runs_dir: Path, episode_id: str, *, task: str, seed: int, tags: dict[str, Any],
               adapter_label: str, extension: dict[str, Any]) -> "Recorder":
        """Make ``<runs_dir>/<episode_id>/`` with its initial ``state.json`` and empty ``learn.jsonl``."""
        runs_dir = Path(runs_dir)
        try:
            runs_dir.mkdir(parents=True, exist_ok=True)
            run_dir = runs_dir / episode_id
            run_dir.mkdir()
            probe = run_dir / "learn.jsonl"
            probe.touch()
        except OSError as exc:
            raise RunsDirError(
                f"runs_dir {str(runs_dir)!r} is not writable ({exc.strerror or exc}); pass runs_dir= a writable "
                "directory or set NOESIS_RUNS_DIR"
            ) from exc
        started = now_iso()
        state = {
            "version": "1.0",
            "state_schema_version": "1.0.0",
            "episode": {"id": episode_id, "seed": seed, "started_at": started, "tags": tags, "using": f"adapter:{adapter_label}"},
            "goal": {"task": task, "type": "task"},
            "beliefs": [],
            "plan": {"steps": [], "source": "planner", "updated_at": started},
            "memory": {"facts": [], "scratchpad": ""},
            "outcomes": {"status": "pending", "summary": None, "actions": [], "metrics": {}},
            "process": {"id": f"proc_{episode_id.removeprefix('ep_')}", "name": "noesis_nb", "run_index": 1, "kind": "oneshot"},
            "links": {},
            "x-noesis_nb": extension,
        }
        recorder = cls(run_dir, episode_id, state)
        recorder.persist_state()
        return recorder

    @classmethod
    def reopen(cls, run_dir: Path) -> "Recorder":
        """Continue writing an existing, unsealed run (``resume_run``)."""
        state = read_state(run_dir)
        if state is None:
            raise EpisodeStateError(f"{run_dir}/state.json is missing or unreadable; this run cannot be resumed")
        events = read_events(Path(run_dir) / "events.jsonl", strict=True)
        return cls(Path(run_dir), state["episode"]["id"], state, events)

    # -- events ---------------------------------------------------------------------------
    def emit(self, phase: str, payload: dict[str, Any], *, agent_id: str = "system", caused_by: str | None = None,
             event_type: str | None = None, faculty: str | None = None, started: tuple[str, float] | None = None) -> dict[str, Any]:
        """Append one event (and tell subscribers). ``started`` = (iso, perf_counter) adds ``metrics``."""
        if self.closed:
            raise EpisodeStateError(f"episode {self.episode_id} has ended; it accepts no more events")
        event: dict[str, Any] = {
            "id": f"{self._id_base}{next(self._ids):012x}",  # uuid4-shaped: random per run + a counter
            "episode_id": self.episode_id,
            "agent_id": agent_id,
            "phase": phase,
            "payload": self.secrets.screen(payload),
            "evidence_ids": [],
        }
        if caused_by:
            event["caused_by"] = caused_by
        if event_type:
            event["event_type"] = event_type
        if faculty:
            event["faculty"] = faculty
        if started is not None:
            completed = now_iso()
            event["timestamp"] = completed
            event["metrics"] = {"started_at": started[0], "completed_at": completed,
                                "duration_ms": round((time.perf_counter() - started[1]) * 1000.0, 3)}
        with self._lock:
            self.writer.append_locked(event)
            self.events.append(event)
            if phase == "model":
                self._count_usage(event)
            self.last_activity = time.monotonic()
        for callback in self._subscribers:
            try:
                callback(event)
            except Exception:  # a broken view must never break the episode
                pass
        return event

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        """Call ``callback(event)`` after each event is written; returns the unsubscribe function."""
        with self._lock:
            self._subscribers = (*self._subscribers, callback)

        def unsubscribe() -> None:
            with self._lock:
                self._subscribers = tuple(s for s in self._subscribers if s is not callback)

        return unsubscribe

    def _count_usage(self, event: dict[str, Any]) -> None:
        if event.get("phase") != "model":
            return
        payload = event.get("payload") or {}
        self.usage["model_calls"] += 1
        for key in _TOKEN_FIELDS:
            if isinstance(payload.get(key), int):
                self.usage[key] += payload[key]
        self.usage_calls.append({"model": payload.get("model"), "provider": payload.get("provider"),
                                 **{k: payload.get(k) for k in _TOKEN_FIELDS}})

    def touch(self) -> None:
        """Count as activity for the idle timeout (e.g. while a tool runs)."""
        self.last_activity = time.monotonic()

    # -- state, pause, checkpoint -----------------------------------------------------------
    def persist_state(self) -> None:
        atomic_write_json(self.run_dir / "state.json", self.secrets.scrub(self.state))

    def project_state(self, caused_by: str | None) -> dict[str, Any]:
        """Persist ``state.json`` and emit ``run.state_projection`` (Noēsis does both together)."""
        self.persist_state()
        outcomes = self.state["outcomes"]
        return self.emit("runtime", {"kind": "run.state_projection", "status": outcomes["status"],
                                     "outcomes": {k: outcomes.get(k) for k in ("status", "summary", "metrics")},
                                     "links": dict(self.state["links"])},
                         event_type="run.state_projection", caused_by=caused_by)

    def interrupt(self, reason: str | None, caused_by: str | None) -> dict[str, Any]:
        """``run.interrupt``; the run's state becomes ``partial`` (paused) on disk."""
        interrupt = self.emit("runtime", {"kind": "run.interrupt", "status": "interrupted", **({"reason": reason} if reason else {})},
                              event_type="run.interrupt", caused_by=caused_by or self.writer.last_event_id)
        self.state["outcomes"].update(status="partial", summary=reason)
        self.state["links"] = {"events": "events.jsonl", "learn": "learn.jsonl"}
        self.persist_state()
        return interrupt

    def checkpoint(self, caused_by: str | None = None) -> dict[str, Any]:
        """Write ``checkpoints/<id>/checkpoint.json``, then emit ``run.checkpoint``; returns the record + ``event_id``."""
        record = self._write_checkpoint(caused_by or self.writer.last_event_id or "")
        event = self.emit("runtime", {"kind": "run.checkpoint", "status": "paused", "checkpoint_id": record["checkpoint_id"],
                                      "event_offset": record["event_offset"],
                                      "checkpoint_path": f"checkpoints/{record['checkpoint_id']}/checkpoint.json"},
                          event_type="run.checkpoint", caused_by=record["last_event_id"])
        return {**record, "event_id": event["id"]}

    def pause(self, reason: str, caused_by: str) -> dict[str, Any]:
        """``run.interrupt → run.checkpoint → run.state_projection``; everything on disk before returning."""
        interrupt = self.interrupt(reason, caused_by)
        self.secrets.sweep(self.run_dir, self, reopen=True)  # before the checkpoint digests the files
        checkpoint = self.checkpoint(interrupt["id"])
        self.emit("runtime", {"kind": "run.state_projection", "status": "partial",
                              "outcomes": {"status": "partial", "summary": reason, "metrics": {}},
                              "links": dict(self.state["links"])},
                  event_type="run.state_projection", caused_by=checkpoint["event_id"])
        self.writer.fsync()
        return checkpoint

    def _write_checkpoint(self, last_event_id: str) -> dict[str, Any]:
        checkpoint_id = new_checkpoint_id()
        record = {
            "schema_version": "checkpoint/1.0.0",
            "run_id": self.episode_id,
            "checkpoint_id": checkpoint_id,
            "created_at": now_iso(),
            "event_offset": self.writer.count,
            "last_event_id": last_event_id,
            "state_hash": sha256_bytes((self.run_dir / "state.json").read_bytes()),
            "artifact_manifest_hash": artifact_digest(self.run_dir, self.writer.count),
            "adapter_label": self.state["episode"].get("using"),
        }
        atomic_write_json(self.run_dir / "checkpoints" / checkpoint_id / "checkpoint.json", record)
        return record

    def resume_event(self, checkpoint: dict[str, Any], caused_by: str | None = None) -> dict[str, Any]:
        event = self.emit("runtime", {"kind": "run.resume", "status": "resuming", "checkpoint_id": checkpoint["checkpoint_id"],
                                      "event_offset": checkpoint["event_offset"], "resume_strategy": "same_run_id"},
                          event_type="run.resume", caused_by=caused_by or checkpoint.get("event_id"))
        self.state["outcomes"].update(status="pending", summary=None)
        self.state["links"] = {"events": "events.jsonl", "learn": "learn.jsonl"}
        self.persist_state()  # no longer paused on disk either (readers would call it paused)
        return event

    # -- sealing --------------------------------------------------------------------------
    def finalize(self, *, status: str, message: str, reasons: list[str], result: Any = None,
                 adapter_result: str, governance: dict[str, Any]) -> None:
        """terminate → state → insight → summary.json → memory → final.json → manifest.json, then seal."""
        result, message = self.secrets.redact_any(result), self.secrets.redact(message)  # what is written of them
        if not any(e.get("phase") == "terminate" for e in self.events):
            self.emit("terminate", {"status": status, "message": message[:400]})
        (self.run_dir / "learn.jsonl").touch()
        self.state["outcomes"].update(status=status if status in {"ok", "error", "vetoed"} else "aborted", summary=message[:400])
        self.state["links"] = {"events": "events.jsonl", "summary": "summary.json", "learn": "learn.jsonl", "manifest": "manifest.json"}
        self.project_state(caused_by=None)
        summary = summary_mod.build_summary(self, status=status, reasons=reasons, result=result,
                                            adapter_result=adapter_result, governance=governance)
        self.emit("insight", {"summary_path": "summary.json", "metrics": summary["insight"]["metrics"]}, faculty="insight")
        atomic_write_json(self.run_dir / "summary.json", self.secrets.scrub(summary))
        self.emit("memory", {"status": "skipped", "reason": "port_missing", "capability": "long_term_memory"}, agent_id="memory")
        self.closed = True
        self.writer.close()
        self.secrets.sweep(self.run_dir, self)  # values learned late leave the lines written before
        final = {"schema_version": "final/2.0.0", "episode_id": self.episode_id, "process_id": self.state["process"]["id"],
                 "run_index": self.state["process"]["run_index"], "finalized_at": now_iso(),
                 "outcome": summary_mod.final_outcome(status), "verification_status": "unverified" if status == "ok" else "not_applicable"}
        atomic_write_json(self.run_dir / "final.json", final)
        try:
            write_manifest(self.run_dir, self.episode_id)
        except BaseException:
            (self.run_dir / "final.json").unlink(missing_ok=True)
            raise
        self.writer.seal()

    def close_without_sealing(self) -> None:
        """Stop writing (a pause that outlives this process); the run stays resumable."""
        self.closed = True
        self.writer.close()


def artifact_digest(run_dir: Path, event_offset: int) -> str:
    """Digest binding a checkpoint to the first ``event_offset`` event lines and the other artifacts."""
    run_dir = Path(run_dir)
    files = []
    for name in ("events.jsonl", "prompts.jsonl", "state.json", "summary.json", "learn.jsonl"):
        path = run_dir / name
        if not path.is_file():
            continue
        data = path.read_bytes()
        if name == "events.jsonl":
            data = b"".join(data.splitlines(keepends=True)[:event_offset])
        files.append({"name": name, "sha256": sha256_bytes(data), "size_bytes": len(data)})
    doc = {"schema_version": "checkpoint_artifact_digest/1.0.0", "files": files}
    return "sha256:" + hashlib.sha256(canonical_json(doc)).hexdigest()


