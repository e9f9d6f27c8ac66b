"""Whether a run on disk is the one a batch entry reserved: its ``state.json`` names the batch, task and adapter.

The record's episode ids come from a file anyone can edit (or copy from another batch): an id that
names another entry's run, another batch's run or a run started by hand would have its result
reported as this entry's. A run made for an entry says so from its creation (``x-noesis_nb.batch``
in ``state.json``, written in the same rename as the folder), so any other run is refused by name.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

from .._jsonio import as_object
from ..secrets.quoted import quoted
from ..store import read_state
from ..store.runfiles import what_is
from .handle import BatchEntry

__all__ = ["not_this_entry", "refuse_foreign"]


def not_this_entry(run_dir: Path, batch_id: str, entry: BatchEntry, record_path: Path) -> str | None:
    """Why ``run_dir`` is not ``entry``'s run of batch ``batch_id`` (one line with the fix), None when it is."""
    try:
        mode = os.lstat(run_dir).st_mode
        state = read_state(run_dir) if stat.S_ISDIR(mode) else None
    except Exception as exc:  # a crafted or broken state.json: nothing says whose run it is
        made_for = f"its state.json cannot be read ({type(exc).__name__}: {exc})"
    else:
        tag = as_object(as_object(as_object(state).get("x-noesis_nb")).get("batch"))
        mine = {"batch_id": batch_id, "task_index": entry.index, "adapter": entry.adapter}
        if not stat.S_ISDIR(mode):
            made_for = f"it is {what_is(mode)}, not a run folder"
        elif tag and all(tag.get(k) == v and type(tag.get(k)) is type(v) for k, v in mine.items()):
            return None
        else:
            made_for = _made_for(tag)
    if made_for.startswith("it was started for"):  # a batch's run named for the wrong entry: the record was changed
        fix = "restore the record (each entry names its own run) or pass a new batch_id"
    else:  # something else under the id the entry reserved (another process's run, a crafted folder or file)
        fix = (
            f"to run this entry, move {run_dir.name} out of {run_dir.parent} and call the batch again "
            "(the entry keeps its id), or pass a new batch_id"
        )
    return (
        f"{run_dir} is not the run of task {entry.index} with adapter {quoted(entry.adapter)} of batch {quoted(batch_id)}: "
        f"{made_for}, yet the batch record {record_path} names it for this entry. The batch leaves that run alone; {fix}"
    )


def refuse_foreign(entry: BatchEntry, run_dir: Path, batch_id: str, record_path: Path) -> bool:
    """Mark ``entry`` failed when ``run_dir`` is not its run (see :func:`not_this_entry`); True when refused."""
    why = not_this_entry(run_dir, batch_id, entry, record_path)
    if why is None:
        return False
    entry.status, entry.error = "error", why
    entry.episode_id = entry.run_dir = entry.disk = None
    return True


def _made_for(tag: dict[str, Any]) -> str:
    if not tag:
        return "it was not started by a batch"
    return (
        f"it was started for task {quoted(tag.get('task_index'), 40)} with adapter {quoted(tag.get('adapter'), 80)} "
        f"of batch {quoted(tag.get('batch_id'), 80)}"
    )
