"""One ``pending_approval`` draft per run on disk, as Noēsis reads it.

Noēsis finds the draft a paused run waits on as *the* prepared record of the run whose status is
``pending_approval``; two of them make its reader raise ``AmbiguousPreparedToolInvocationError``. A run pauses on one
draft at a time (``runtime.context``): a draft asked for approval while another pause is open is written held from
the start (``prepared``, ``governance.requires_approval`` still true: ``tools.awaiting``), and each pause makes its own
draft the run's one ``pending_approval`` record, holding the others first, so no two are ever pending together.
"""

from __future__ import annotations

import os
import stat
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .._jsonio import atomic_write_json
from ..errors import InvalidIdError
from ..store import read_json
from ..tools import PreparedInvocationStatus
from ..tools._files import note_written
from ..tools.awaiting import awaits_decision
from ..tools.repositories import PreparedInvocationRepository

__all__ = ["awaits_decision", "draft_time", "pause_on_draft"]

_PENDING = PreparedInvocationStatus.PENDING_APPROVAL.value
_HELD = PreparedInvocationStatus.PREPARED.value


def pause_on_draft(run_dir: Path, run_id: str, draft_id: str, *, durable: bool = True) -> None:
    """The run pauses on ``draft_id``: every other record is held first, then its own is made ``pending_approval``,
    so a kill between two of these writes leaves at most one ``pending_approval`` record (none only before the
    pause's ``run.interrupt``, while the run is not paused on disk). ``durable=False``: a policy's pause (no fsync)."""
    repo = PreparedInvocationRepository(run_dir)
    for other in repo.draft_ids():
        if other != draft_id:
            _set_status(repo, run_id, other, _HELD, durable)
    _set_status(repo, run_id, draft_id, _PENDING, durable)


# records already read, by path: (inode, size, mtime) and the status they held. A record this module need not touch
# (approved, or already as wanted) is not read again while unchanged: a pause reads no more than the drafts it changes
_SEEN: dict[str, tuple[tuple[int, int, int], Any]] = {}


def _set_status(repo: PreparedInvocationRepository, run_id: str, draft_id: str, status: str, durable: bool) -> None:
    """Rewrite one record's ``status`` only (the rest byte-for-byte as read: its payload is never re-rendered from
    memory, where a redacted value may be held in full); only between ``pending_approval`` and held, only the run's own."""
    checked: set[Path] | None = None
    for root in repo.roots:
        try:  # a record read before and unchanged since is judged without its id's checks (one stat)
            st = os.stat(os.path.join(root, f"{draft_id}.json"), follow_symlinks=False)
        except (OSError, ValueError):
            continue
        key, signature = os.path.join(os.path.abspath(root), f"{draft_id}.json"), (st.st_ino, st.st_size, st.st_mtime_ns)
        seen = _SEEN.get(key)
        if seen is not None and seen[0] == signature and (seen[1] == status or seen[1] not in (_PENDING, _HELD)):
            continue  # unchanged since read: as wanted already, or not this module's to change
        if checked is None:
            try:  # no link on the way, an id a draft may have
                checked = {repo.path_for(draft_id, protocol) for protocol in ("python", "subprocess")}
            except InvalidIdError:  # a file of another program's naming in the folder: not a draft this run wrote
                return
        path = next((p for p in checked if os.path.abspath(p) == key), None)
        if path is None or not stat.S_ISREG(st.st_mode):
            continue
        record = read_json(path, within=repo.run_dir)
        if not isinstance(record, dict) or record.get("run_id") != run_id:
            continue
        _remember(key, signature, record.get("status"))
        if record.get("status") == status or record.get("status") not in (_PENDING, _HELD):
            continue  # as wanted; or approved (it ran), or a status this module does not write: left as it is
        governance = record.get("governance")
        if status == _PENDING and not (isinstance(governance, dict) and governance.get("requires_approval") is True):
            continue  # a draft that needs no approval is never made to wait for one
        atomic_write_json(path, {**record, "status": status}, durable=durable)
        note_written(path)
        try:
            st = os.stat(path, follow_symlinks=False)
        except OSError:
            continue
        _remember(key, (st.st_ino, st.st_size, st.st_mtime_ns), status)


def _remember(key: str, signature: tuple[int, int, int], status: Any) -> None:
    if len(_SEEN) >= 8192:
        _SEEN.clear()
    _SEEN[key] = (signature, status)


def draft_time(repo: PreparedInvocationRepository, draft_id: str) -> str | None:
    """When the draft's record was written (its file's modification time, ISO 8601 UTC): the time of the events a
    recovery writes for a draft whose process died before announcing it (``tool.draft_created``,
    ``tool.approval.pending``), so its wait is measured from the draft, not from the resume. None when not known."""
    try:
        st = os.stat(repo.path_for(draft_id), follow_symlinks=False)
    except (OSError, ValueError, InvalidIdError):
        return None
    return datetime.fromtimestamp(st.st_mtime_ns / 1e9, UTC).isoformat(timespec="microseconds")
