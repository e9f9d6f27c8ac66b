"""One status word per run, from whatever the run directory holds (old or new Noēsis runs)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .ownership import abandoned, holder
from .sealing import SealState, seal_state

__all__ = ["LOST_HINT", "not_a_run", "run_status", "status_now"]

#: what to do with a run whose writer is gone ({run}: how to name it in a call)
LOST_HINT = (
    "its process is gone (killed, or stopped before it sealed the run): noesis_nb.resume_run({run}) settles it, "
    "sealed error (process_lost) unless it stopped at a tool draft it can continue"
)

_TERMINATE_MAP = {"completed": "ok", "success": "ok", "errored": "error", "failed": "error", "aborted": "cancelled"}


def run_status(
    summary: dict[str, Any] | None,
    state: dict[str, Any] | None,
    events: list[dict[str, Any]] | None,
) -> str:
    """``ok``, ``error``, ``vetoed``, ``cancelled``, ``paused``, ``running`` or ``unknown``.

    The one rule every reader uses (``runs_df``, ``list_runs``, ``DiskRun``, ``show``, ``export_otel``): the log's
    ``terminate`` decides, as sealed with the run; a summary or state status only where the log has none (Noēsis'
    CLI rule, else metrics). A summary edited after the seal to say otherwise is not the run's word (``runs_df``
    reports the edit). It adds what the CLI cannot see: a run without a summary is ``paused`` when its last
    lifecycle event is a checkpoint or interrupt, otherwise ``running``. A ``terminate`` whose status is there but
    unreadable (not text, empty, or a key written twice, which the readers report) is ``unknown``: the run ended,
    its word is lost. Other fields of the wrong kind (a summary status that is not text, metrics that are not an
    object) are read as absent.
    """
    events = [e for e in events or [] if type(e) is dict]
    last_runtime: str | None = None
    for event in reversed(events):
        phase = event.get("phase")
        if phase == "terminate" or _is_runtime_terminate(event):
            payload = _obj(event.get("payload"))
            status = _text(payload.get("status")).lower()
            if not status and "status" in payload:  # a number, null, a key written twice (read as None): no word
                return "unknown"
            return _TERMINATE_MAP.get(status, status or "ok")
        if last_runtime is None and phase == "runtime":
            last_runtime = _text(_obj(event.get("payload")).get("status"))
    outcomes = _obj(_obj(state).get("outcomes"))
    for doc in (summary, outcomes):
        status = _text(_obj(doc).get("status"))
        if status and status not in {"pending", "partial"}:
            return _TERMINATE_MAP.get(status.lower(), status.lower())
    if summary is None:
        if last_runtime in ("paused", "interrupted", "partial") or outcomes.get("status") == "partial":
            return "paused"
        return "running"
    for event in reversed(events):
        if event.get("phase") == "error":
            return "error"
    metrics = _obj(_obj(summary).get("metrics"))
    flags = _obj(_obj(summary).get("flags"))
    veto = metrics.get("veto_count")
    if isinstance(veto, (int, float)) and not isinstance(veto, bool) and veto > 0 and flags.get("governance_mode") == "enforce":
        return "vetoed"
    success = metrics.get("success")
    if success is not None and not success:
        return "error"
    return "ok"


def not_a_run(run_dir: Path, summary: Any, state: Any, logged: bool) -> str | None:
    """Why the folder ``run_dir`` is no run, judged before any status (a folder with nothing that says it started reads
    ``running``): no summary, nothing ``logged`` in events.jsonl, no seal, and no ``state.json`` naming an episode or
    its outcomes. None when it is a run (or may be one: any of those is there)."""
    if summary is not None or logged or type(state) is dict and any(type(state.get(k)) is dict for k in _STATE_KEYS):
        return None
    if any(os.path.lexists(run_dir / name) for name in ("final.json", "manifest.json")):
        return None
    if state is None:
        held = "no state.json" if not os.path.lexists(run_dir / "state.json") else "a state.json that is no JSON object"
    else:
        held = f"a state.json with no {' or '.join(_STATE_KEYS)} object"
    return f"no summary.json, no event in events.jsonl and {held}"


_STATE_KEYS = ("episode", "outcomes")


def status_now(run_dir: str | os.PathLike[str], status: str, seal: SealState | None = None) -> str:
    """``status`` as read from a run's files, or ``lost`` where the run is unsealed (no ``manifest.json``), not
    paused, and the process that wrote it is gone (``ownership.abandoned``). A seal cut by kill -9 after the
    ``terminate`` line leaves files that read ``ok``: without the seal and its writer, that run is lost too (until
    ``resume_run`` seals it). A live writer still sealing holds its lock: not lost. Asked at each look, never
    cached: a lock's release changes no file.

    ``seal``: the run's ``seal_state`` its caller just took. Only a complete seal is taken as it is (a seal once
    written stays); any other answer is looked at again here, just before the writer is asked for: a writer that
    sealed and exited since the caller looked must not make its run read lost."""
    if status in ("paused", "lost"):
        return status
    if seal is None or not seal.sealed:
        seal = seal_state(Path(run_dir))
    if seal.sealed:
        return status
    if abandoned(run_dir):
        return "lost"
    # the writer removes its owner note just before the manifest: final.json without a manifest, and nobody
    # holding the run's lock, is a seal cut in that last step
    return "lost" if seal.final and holder(run_dir) is None else status


def _is_runtime_terminate(event: dict[str, Any]) -> bool:
    if event.get("phase") != "runtime":
        return False
    payload = _obj(event.get("payload"))
    return "terminate" in (payload.get("kind"), payload.get("type"), payload.get("event"))


def _obj(value: Any) -> dict[str, Any]:
    """A sub-document that is not an object reads as empty: a malformed run must not make the status raise."""
    return value if type(value) is dict else {}


def _text(value: Any) -> str:
    return value if type(value) is str else ""
