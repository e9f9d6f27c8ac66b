"""Before a resume (or a live episode's approved tool, or a seal) runs or writes anything: every path it and the
seal after it will write must be free.

A run is shared and downloaded, so it may hold a link, a folder or a FIFO where ``resume_run`` writes
(``summary.json``, the tool's execution record…); a live run paused for a human may get one planted while it
waits. Found only as it is written, such a thing stops the work after the tool ran: its effects happened and the
run is left unsealed. Looked at first (``lstat`` only, nothing read through a link), it stops the work before
anything: no tool runs, no byte is written, and the error names the path, what stopped and how to try again.
What resume reads first (``state.json``, ``events.jsonl``, the draft and its decision) and the seal documents
(``store.sealing``) are refused where they are read.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import quoted_path
from ..secrets.quoted import quoted
from ..store.layout import PYTHON_PREPARED_DIR
from ..store.paths import UnsafeRunPathError
from ..store.runfiles import what_is
from ..store.sealing import refuse_odd_seal
from ..tools._files import check_id
from ..tools.repositories import TOOL_INVOCATIONS_DIR
from ..tools.types import PreparedToolInvocation

__all__ = ["Stopped", "check_seal_targets", "check_live_seal_targets", "check_draft_targets", "check_idempotency_target"]


@dataclass(frozen=True)
class Stopped:
    """What a refusal says stopped (``resume_run``, ``handle.approve()``, the seal) and how to do it again."""

    what: str
    again: str

    @classmethod
    def resume(cls, run_dir: Path) -> Stopped:
        return cls("resume_run", f"resume_run({quoted(Path(run_dir).name)})")


# the folders a draft's records go in (checked before any path in them is made, so each refusal is this module's)
_FOLDERS = tuple(
    Path(TOOL_INVOCATIONS_DIR, *sub.split("/")) for sub in ("executions", "idempotency", "prepared", PYTHON_PREPARED_DIR)
)


def check_seal_targets(run_dir: Path, stopped: Stopped | None = None) -> None:
    """The run's own documents the seal writes (``summary.json``, ``learn.jsonl``) unless ``final.json`` is there:
    then the seal was cut short after writing them and only the manifest is left to write. ``stopped``: what the
    refusal says stopped (``resume_run`` by default)."""
    run_dir = Path(run_dir)
    if _mode(run_dir / "final.json") is not None:
        return
    for name in ("summary.json", "learn.jsonl"):
        _check(run_dir, Path(name), stopped=stopped)


def check_live_seal_targets(rec: Any, stopped: Stopped) -> None:
    """Every file a live run's seal writes, before a step whose effect cannot be taken back (a tool run, a decision
    that starts one): its log still in place (``RunGoneError``), no odd seal document (``SealDocumentError``), and
    ``check_seal_targets``. Something planted while the run waited is named now, not after the tool ran."""
    rec.writer.check_disk()
    refuse_odd_seal(rec.run_dir)
    check_seal_targets(rec.run_dir, stopped)


def check_draft_targets(run_dir: Path, draft_id: str) -> None:
    """What executing draft ``draft_id`` writes, looked at before the draft is read: the folders of its records,
    its claim and result, and the draft's copy in the other protocol's folder (removed when the draft is saved
    again). When neither folder holds the draft as a regular file, reading it says so (to restore it)."""
    run_dir = Path(run_dir)
    for folder in _FOLDERS:
        _check(run_dir, folder, last_is_folder=True)
    name = check_id(draft_id)
    executions, _, plain, python = _FOLDERS
    _check(run_dir, executions / f"{name}.json")
    _check(run_dir, executions / f"{name}.claim")
    slots = [plain / f"{name}.json", python / f"{name}.json"]
    if any(_is_file(run_dir / slot) for slot in slots):
        for slot in slots:
            _check(run_dir, slot)


def check_idempotency_target(run_dir: Path, prepared: PreparedToolInvocation) -> None:
    """The idempotency record executing ``prepared`` writes, when it has a key:
    ``idempotency/<principal_id>__<tool_key>__<idempotency_key, "/" as "_">.json`` (the format's name)."""
    key = prepared.execution.idempotency_key
    if not key:
        return
    parts = (
        check_id(prepared.security.principal_id, "principal_id"),
        check_id(prepared.tool.tool_key(prepared.protocol), "tool key"),
        check_id(key.replace("/", "_"), "idempotency_key"),
    )
    _check(Path(run_dir), _FOLDERS[1] / ("__".join(parts) + ".json"))


def _is_file(path: Path) -> bool:
    mode = _mode(path)
    return mode is not None and stat.S_ISREG(mode)


def _mode(path: Path) -> int | None:
    try:
        return os.lstat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return None


def _check(run_dir: Path, rel: Path, *, last_is_folder: bool = False, stopped: Stopped | None = None) -> None:
    """``rel`` and each folder above it inside the run: absent, or a regular file (a real folder above it)."""
    parts = rel.parts
    for depth in range(1, len(parts) + 1):
        path = run_dir.joinpath(*parts[:depth])
        mode = _mode(path)
        if mode is None:
            return
        folder = depth < len(parts) or last_is_folder
        if stat.S_ISDIR(mode) if folder else stat.S_ISREG(mode):
            continue
        raise _refusal(run_dir, path, mode, folder, stopped or Stopped.resume(run_dir))


def _refusal(run_dir: Path, path: Path, mode: int, folder: bool, stopped: Stopped) -> UnsafeRunPathError:
    rel = path.relative_to(run_dir).as_posix()
    if stat.S_ISLNK(mode):
        try:
            there = f"a symbolic link (to {quoted_path(os.readlink(path))})"
        except OSError:
            there = "a symbolic link"
        fix = "remove the link"
    else:
        there = what_is(mode)
        fix = "remove that folder (noesis_nb did not make it)" if stat.S_ISDIR(mode) else "remove it (noesis_nb did not make it)"
    kind = "a symbolic link" if stat.S_ISLNK(mode) else there.split(" (")[0]  # "a FIFO", not "a FIFO (named pipe)"
    goes = f"the run's {rel} folder" if folder else _purpose(rel)
    return UnsafeRunPathError(
        f"{quoted_path(path)} is {there}, not {goes} ({kind} is in its place); noesis_nb never writes through links "
        f"or into a folder, FIFO or device planted in a run, so {stopped.what} stopped before running or writing "
        f"anything; {fix}, then {stopped.again}"
    )


def _purpose(rel: str) -> str:
    """What noesis_nb writes at ``rel`` (a file), for the refusal's wording."""
    if rel.endswith(".claim"):
        return "a claim (the empty file noesis_nb makes as it hands a draft to its tool)"
    if rel.startswith(f"{TOOL_INVOCATIONS_DIR}/"):
        return f"a tool record noesis_nb writes ({rel})"
    return f"the run's {rel}, which its seal writes"
