"""``resume_run`` for a run paused on disk: validate the checkpoint, execute the decided draft once, seal.

Any process may do this (the kernel that paused may be gone). A lock file makes two racing
resumes execute the draft once; a sealed run is left as it is and the caller is told so.
"""

from __future__ import annotations

import os
import time
import warnings
from pathlib import Path
from typing import Any

from .._jsonio import sha256_bytes
from ..errors import (
    CheckpointConsistencyError,
    CheckpointNotFoundError,
    EpisodeStateError,
    ResumeAdapterMismatchError,
    ResumeAdapterRequiredError,
)
from ..store import is_sealed, read_json
from .episode import Episode, EpisodeOptions
from .recorder import Recorder, artifact_digest

__all__ = ["resume_from_disk", "NothingToResume", "find_checkpoint"]


class NothingToResume(UserWarning):
    """``resume_run`` found nothing to do (the run is already sealed or still live here)."""


def find_checkpoint(rec: Recorder, checkpoint_id: str | None) -> dict[str, Any]:
    events = [e for e in rec.events if e.get("event_type") == "run.checkpoint"]
    if checkpoint_id is None:
        if not events:
            raise CheckpointNotFoundError(f"run {rec.episode_id} has no checkpoint; it was never paused, so there is nothing to resume")
        checkpoint_id = events[-1]["payload"]["checkpoint_id"]
    record = read_json(rec.run_dir / "checkpoints" / checkpoint_id / "checkpoint.json")
    if record is None:
        known = [e["payload"].get("checkpoint_id") for e in events]
        raise CheckpointNotFoundError(f"checkpoint {checkpoint_id!r} not found in {rec.run_dir}/checkpoints; known: {known}")
    event = next((e for e in events if e["payload"].get("checkpoint_id") == checkpoint_id), None)
    return {**record, "event_id": event["id"] if event else None}


def validate_checkpoint(rec: Recorder, checkpoint: dict[str, Any]) -> None:
    """Noēsis' checks: the event at ``event_offset`` is ``last_event_id``; state and artifacts unchanged."""
    offset = checkpoint.get("event_offset")
    events = rec.events
    if not isinstance(offset, int) or offset < 1 or offset > len(events) or events[offset - 1].get("id") != checkpoint.get("last_event_id"):
        raise CheckpointConsistencyError(f"checkpoint {checkpoint.get('checkpoint_id')}: event {offset} is not {checkpoint.get('last_event_id')!r}; "
                                         "events.jsonl was changed after the pause")
    if sha256_bytes((rec.run_dir / "state.json").read_bytes()) != checkpoint.get("state_hash"):
        raise CheckpointConsistencyError(f"checkpoint {checkpoint.get('checkpoint_id')}: state.json changed since the pause")
    if checkpoint.get("artifact_manifest_hash") and artifact_digest(rec.run_dir, offset) != checkpoint["artifact_manifest_hash"]:
        raise CheckpointConsistencyError(f"checkpoint {checkpoint.get('checkpoint_id')}: run artifacts changed since the pause")


class _ResumeLock:
    """An exclusive lock file in the run dir, written whole (pid and time) through a hard link.

    A lock whose process is gone is taken over; only our own lock is removed on exit.
    """

    def __init__(self, run_dir: Path):
        self.path = Path(run_dir) / ".resume.lock"
        self.token = f"{os.getpid()} {time.time():.6f}"

    def __enter__(self) -> "_ResumeLock":
        tmp = self.path.with_name(f".resume.lock.{os.getpid()}.tmp")
        tmp.write_text(self.token)
        try:
            for _ in range(2):
                try:
                    os.link(tmp, self.path)  # atomic: the lock appears with its content
                    return self
                except FileExistsError:
                    if _holder_alive(self.path):
                        raise EpisodeStateError(f"another process is resuming {self.path.parent.name} (lock {self.path}); "
                                                "wait for it, or delete the lock if that process is gone") from None
                    self.path.unlink(missing_ok=True)
            raise EpisodeStateError(f"could not take the resume lock {self.path}")
        finally:
            tmp.unlink(missing_ok=True)

    def __exit__(self, *exc: Any) -> None:
        try:
            if self.path.read_text() == self.token:
                self.path.unlink()
        except FileNotFoundError:
            pass


def _holder_alive(path: Path) -> bool:
    try:
        pid = int(path.read_text().split()[0])
        os.kill(pid, 0)
    except (ValueError, IndexError, FileNotFoundError, ProcessLookupError):
        return False
    except PermissionError:
        return True
    return True


async def resume_from_disk(run_dir: Path, *, checkpoint_id: str | None, using: Any, tools: dict[str, Any] | None) -> str:
    from .api import live_handles

    episode_id = run_dir.name
    if is_sealed(run_dir):
        final = read_json(run_dir / "final.json") or {}
        warnings.warn(f"run {episode_id} is already sealed (outcome {final.get('outcome', 'unknown')}); resume_run changed nothing",
                      NothingToResume, stacklevel=3)
        return episode_id
    live = live_handles().get(episode_id)
    if live is not None and not live.done():
        warnings.warn(f"episode {episode_id} is live in this process; it continues by itself once its draft is decided",
                      NothingToResume, stacklevel=3)
        return episode_id
    with _ResumeLock(run_dir):
        if is_sealed(run_dir):  # another process finished it while we waited for the lock
            warnings.warn(f"run {episode_id} was sealed by another resume; changed nothing", NothingToResume, stacklevel=3)
            return episode_id
        rec = Recorder.reopen(run_dir)
        checkpoint = find_checkpoint(rec, checkpoint_id)
        already = any(e.get("event_type") == "run.resume" and e["payload"].get("checkpoint_id") == checkpoint["checkpoint_id"]
                      for e in rec.events)
        if not already:
            validate_checkpoint(rec, checkpoint)
        cause = _pause_cause(rec, checkpoint)
        episode = Episode(None, _options_from_state(rec), rec)
        episode.loop = None
        if (cause.get("payload") or {}).get("event_name") == "tool.approval.pending":
            from .resume_tool import resume_tool_draft

            await resume_tool_draft(episode, checkpoint, cause, tools=tools, resumed=already)
        else:
            await _resume_after_veto(episode, checkpoint, using, resumed=already)
    return episode_id


def paused_on(run_dir: Path) -> tuple[str, str] | None:
    """What an unresumed run on disk waits for (read only): ``("veto", checkpoint_id)``, ``("draft", draft_id)`` or None."""
    from ..store import read_events

    events = read_events(Path(run_dir) / "events.jsonl", strict=False)
    by_id = {e.get("id"): e for e in events}
    checkpoints = [e for e in events if e.get("event_type") == "run.checkpoint"]
    if not checkpoints or any(e.get("event_type") == "run.resume" for e in events[events.index(checkpoints[-1]):]):
        return None
    interrupt = by_id.get(checkpoints[-1].get("caused_by")) or {}
    cause = by_id.get(interrupt.get("caused_by")) or {}
    if cause.get("phase") == "governance":
        return "veto", checkpoints[-1]["payload"].get("checkpoint_id")
    if (cause.get("payload") or {}).get("event_name") == "tool.approval.pending":
        return "draft", cause["payload"].get("draft_id")
    return None


def _pause_cause(rec: Recorder, checkpoint: dict[str, Any]) -> dict[str, Any]:
    by_id = {e.get("id"): e for e in rec.events}
    interrupt = by_id.get(checkpoint.get("last_event_id")) or {}
    cause = by_id.get(interrupt.get("caused_by"))
    if cause is None:
        raise CheckpointConsistencyError(f"checkpoint {checkpoint['checkpoint_id']}: cannot find what caused the pause")
    return cause


def _options_from_state(rec: Recorder) -> EpisodeOptions:
    state = rec.state
    ext = state.get("x-noesis_nb") or {}
    return EpisodeOptions(task=state["goal"]["task"], seed=state["episode"].get("seed", 0), tags=state["episode"].get("tags") or {},
                          governance=ext.get("governance_mode", "off"), approver="ask", wait_for_human=False)


async def _resume_after_veto(episode: Episode, checkpoint: dict[str, Any], using: Any, *, resumed: bool) -> None:
    from .resolve import resolve_using

    label = str(episode.recorder.state["episode"].get("using", ""))
    if using is None:
        raise ResumeAdapterRequiredError(f"run {episode.recorder.episode_id} paused before its adapter {label!r} ran; "
                                         "pass using=<the same adapter> to resume_run")
    adapter = resolve_using(using)
    if f"adapter:{adapter.label}" != label:
        raise ResumeAdapterMismatchError(f"run {episode.recorder.episode_id} was started with {label!r}, not 'adapter:{adapter.label}'")
    episode.adapter = adapter
    episode.governance["veto_count"] = 1
    decision = read_json(episode.recorder.run_dir / "checkpoints" / checkpoint["checkpoint_id"] / "decision.json") or {}
    if decision.get("decision") == "uphold":
        if not resumed:
            episode.recorder.resume_event(checkpoint)
        episode._finish("vetoed", f"veto upheld by {decision.get('approver_id')}", ["veto_upheld"])
        return
    import asyncio

    episode.loop = asyncio.get_running_loop()
    resume = episode.recorder.resume_event(checkpoint) if not resumed else {"id": checkpoint.get("event_id")}
    await episode._act(resume["id"])
