"""One ``pending_approval`` draft per run on disk, as Noēsis reads it.

Noēsis finds the draft a paused run waits on as *the* prepared record of the run whose status is
``pending_approval``; two of them make its reader raise ``AmbiguousPreparedToolInvocationError``. A run pauses on one
draft at a time (``runtime.context``): a draft asked for approval while another pause is open is written held from
the start (``prepared``, ``governance.requires_approval`` still true: ``tools.awaiting``), and each pause makes its own
draft the run's one ``pending_approval`` record, holding the others first, so no two are ever pending together.
"""

from __future__ import annotations

import os
from pathlib import Path

from .._jsonio import atomic_write_json
from ..errors import InvalidIdError
from ..store import read_json
from ..tools import PreparedInvocationStatus
from ..tools._files import note_written
from ..tools.awaiting import awaits_decision
from ..tools.repositories import PreparedInvocationRepository

__all__ = ["awaits_decision", "pause_on_draft"]

_PENDING = PreparedInvocationStatus.PENDING_APPROVAL.value
_HELD = PreparedInvocationStatus.PREPARED.value


def pause_on_draft(run_dir: Path, run_id: str, draft_id: str) -> None:
    """The run pauses on ``draft_id``: every other record is held first, then its own is made ``pending_approval``,
    so a kill between two of these writes leaves at most one ``pending_approval`` record (none only before the
    pause's ``run.interrupt``, while the run is not paused on disk)."""
    repo = PreparedInvocationRepository(run_dir)
    for other in repo.draft_ids():
        if other != draft_id:
            _set_status(repo, run_id, other, _HELD)
    _set_status(repo, run_id, draft_id, _PENDING)


def _set_status(repo: PreparedInvocationRepository, run_id: str, draft_id: str, status: str) -> None:
    """Rewrite one record's ``status`` only (the rest byte-for-byte as read: its payload is never re-rendered from
    memory, where a redacted value may be held in full); only between ``pending_approval`` and held, only the run's own."""
    try:
        paths = {repo.path_for(draft_id, protocol) for protocol in ("python", "subprocess")}
    except InvalidIdError:  # a file of another program's naming in the folder: not a draft this run wrote
        return
    for path in paths:
        if not os.path.isfile(path) or os.path.islink(path):
            continue
        record = read_json(path, within=repo.run_dir)
        if not isinstance(record, dict) or record.get("run_id") != run_id or record.get("status") == status:
            continue
        if record.get("status") not in (_PENDING, _HELD):
            continue  # approved (it ran), or a status this module does not write: left as it is
        governance = record.get("governance")
        if status == _PENDING and not (isinstance(governance, dict) and governance.get("requires_approval") is True):
            continue  # a draft that needs no approval is never made to wait for one
        atomic_write_json(path, {**record, "status": status})
        note_written(path)
