"""One ``pending_approval`` draft per run on disk, as Noēsis reads it.

Noēsis finds the draft a paused run waits on as *the* prepared record of the run whose status is
``pending_approval``; two of them make its reader raise ``AmbiguousPreparedToolInvocationError``. Parallel tool
calls (``asyncio.gather`` of ``ctx.tool_async``) ask for several approvals at once, so each pause writes its own
draft ``pending_approval`` and every other draft of the run ``prepared``: held, not runnable (its
``governance.requires_approval`` stays true, so neither Noēsis nor noesis_nb executes it without an approved
decision), and still waiting for a person as far as noesis_nb's readers go (``awaits_decision``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .._jsonio import atomic_write_json
from ..errors import InvalidIdError
from ..store import read_json
from ..tools import PreparedInvocationStatus
from ..tools._files import note_written
from ..tools.repositories import PreparedInvocationRepository

__all__ = ["awaits_decision", "hold_draft", "pause_on_draft"]

_PENDING = PreparedInvocationStatus.PENDING_APPROVAL.value
_HELD = PreparedInvocationStatus.PREPARED.value


def awaits_decision(prepared: Any) -> bool:
    """A draft that needs a person's decision by its record: ``pending_approval``, or held ``prepared`` while another
    draft of the run was paused on (Noēsis never writes a draft that needs approval ``prepared``)."""
    status = getattr(prepared.status, "value", prepared.status)
    return status == _PENDING or (status == _HELD and bool(prepared.governance.requires_approval))


def pause_on_draft(run_dir: Path, run_id: str, draft_id: str) -> None:
    """The run pauses on ``draft_id``: its record is the run's one ``pending_approval``, every other one is held."""
    repo = PreparedInvocationRepository(run_dir)
    for other in repo.draft_ids():
        _set_status(repo, run_id, other, _PENDING if other == draft_id else _HELD)


def hold_draft(run_dir: Path, run_id: str, draft_id: str) -> None:
    """``draft_id`` asks for approval while the run is paused on another draft: its record is held ``prepared``."""
    _set_status(PreparedInvocationRepository(run_dir), run_id, draft_id, _HELD)


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
