"""The secrets a run noesis_nb did not seal reveals in its files, for ``list_runs`` and a run's view.

A run named once a password in one file (an event's ``{"password": …}``) may hold it in clear in another (its task,
a flag): each field shown from the run is redacted with what all its files reveal (``secrets.revealed``), as the
frames do (``frames.runlearned``). A run this user's seal vouches for, unchanged since, was screened as it was
written: it is read as written, its log not scanned.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import orjson

from ..secrets.revealed import revealed, revealed_in_log
from .artifacts import read_json_checked
from .layout import PREPARED_DIRS
from .runfiles import UnreadableRunFile, change_stamp, list_dir, read_file
from .seal import SEAL_KEY, vouched

__all__ = ["run_revealed", "run_vouched"]


def run_revealed(run_dir: Path, summary: Any, state: Any, final: Any = None, events: list[Any] | None = None) -> frozenset[str]:
    """The secret values ``run_dir``'s files hold (its summary, state and final.json as read, else read here; its
    log: ``events`` as parsed, else read here); none for a run sealed here and unchanged since."""
    if final is None:
        final = read_json_checked(run_dir / "final.json", within=run_dir)[0]
    if run_vouched(run_dir, final):
        return frozenset()
    if events is None:
        try:
            got = read_file(os.fspath(run_dir / "events.jsonl"), os.fspath(run_dir))
        except UnreadableRunFile:  # said by the reader of the log; none of its text is shown
            got = None
        in_log = revealed_in_log(got[0]) if got is not None else frozenset()
    else:
        in_log = revealed([events])
    return revealed((summary, state, final, *_tool_records(run_dir))) | in_log


#: the folders of a run's tool records (``frames.runlearned.TOOL_RECORD_FOLDERS``): each record can name a secret
_TOOL_FOLDERS = tuple(Path("tool_invocations", sub) for sub in (*PREPARED_DIRS, "approvals", "executions"))


def _tool_records(run_dir: Path) -> list[Any]:
    """The run's tool records, parsed (a draft's ``env: {"DB_PASSWORD": …}`` reveals it where an event echoes it);
    one that cannot be read or parsed holds none here (its reader says it)."""
    docs = []
    within = os.fspath(run_dir)
    for folder in _TOOL_FOLDERS:
        path = os.fspath(run_dir / folder)
        try:
            names = list_dir(path, within)
        except UnreadableRunFile:
            continue
        for name in sorted(names):
            if not name.endswith(".json"):
                continue
            try:
                got = read_file(os.path.join(path, name), within)
                docs.append(orjson.loads(got[0]) if got is not None else None)
            except (UnreadableRunFile, orjson.JSONDecodeError):
                continue
    return docs


def run_vouched(run_dir: Path, final: Any) -> bool:
    """Whether ``run_dir`` was sealed by this user (its ``final.json``: ``final`` as read) and is unchanged since: its
    files were screened as they were written, none is read again for secrets."""
    ext = final.get("x-noesis_nb") if type(final) is dict else None
    seal = ext.get(SEAL_KEY) if type(ext) is dict else None
    return seal is not None and vouched(seal, run_dir.name, _stamp(run_dir / "events.jsonl"), _stamp(run_dir / "summary.json"))


def _stamp(path: Path) -> Any:
    try:
        return change_stamp(os.stat(path, follow_symlinks=False))
    except OSError:
        return None
