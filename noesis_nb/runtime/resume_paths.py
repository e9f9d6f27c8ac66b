"""Before a resume (or a live episode's approved tool, or a seal) runs or writes anything: every path it and the
seal after it will write must be free.

A run is shared and downloaded, so it may hold a link, a folder or a FIFO where ``resume_run`` writes
(``summary.json``, the tool's execution record…); a live run paused for a human may get one planted while it
waits. Found only as it is written, such a thing stops the work after the tool ran: its effects happened and the
run is left unsealed. Looked at first (``lstat`` only, nothing read through a link), it stops the work before
anything: no tool runs, no byte is written, and the error names the path, what stopped and how to try again.
What resume reads first (``state.json``, ``events.jsonl``, the draft and its decision) and the seal documents
(``store.sealing``) are refused where they are read. Anything else in the run that is neither a folder nor a
regular file (``check_run_entries``) is refused before a seal too: its manifest could not list it.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import CheckpointNotFoundError, quoted_path
from ..secrets.quoted import quoted
from ..store.artifacts import odd_entries, read_json
from ..store.layout import PYTHON_PREPARED_DIR
from ..store.ownership import OWNER_FILE
from ..store.paths import UnsafeRunPathError
from ..store.runfiles import what_is
from ..store.sealing import refuse_odd_seal
from ..tools._files import check_id
from ..tools.repositories import TOOL_INVOCATIONS_DIR
from ..tools.types import PreparedToolInvocation

__all__ = [
    "Stopped",
    "check_run_entries",
    "checkpoint_problem",
    "check_seal_targets",
    "check_live_seal_targets",
    "check_draft_targets",
    "check_idempotency_target",
]


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


def check_run_entries(run_dir: Path, stopped: Stopped | None = None) -> None:
    """Every entry of the run a seal would leave in it: a folder or a regular file. A symbolic link, FIFO, socket or
    device anywhere in the run (``odd_entries``) stops the work before anything is written: a manifest lists regular
    files only, so the sealed run would hold something it does not list. Nothing is removed (noesis_nb did not make
    it: it may be the user's); the error names it and says to move it out of the run."""
    run_dir = Path(run_dir)
    # the owner note is noesis_nb's own: one replaced by a link or a FIFO has its refusal where the note is read
    odd = [entry for entry in odd_entries(run_dir) if entry[0] != OWNER_FILE]
    if not odd:
        return
    stopped = stopped or Stopped.resume(run_dir)
    name, what = odd[0]
    path = run_dir / name
    _refuse_as_its_own(run_dir, name, stopped)
    if what == "a symbolic link":
        try:
            what = f"a symbolic link (to {quoted_path(os.readlink(path))})"
        except OSError:
            pass
    more = (
        f" (and {len(odd) - 1} more: {', '.join(n for n, _ in odd[1:4])}{', …' if len(odd) > 4 else ''})" if len(odd) > 1 else ""
    )
    raise UnsafeRunPathError(
        f"{quoted_path(path)} is {what} inside run {run_dir.name}{more}: a sealed run holds only folders and regular "
        f"files, each listed in its manifest, and noesis_nb never lists or reads through links, FIFOs, sockets or "
        f"devices, so {stopped.what} stopped before running or writing anything. Move it out of the run folder "
        f"(noesis_nb did not make it), then {stopped.again}"
    )


def checkpoint_problem(run_dir: Path, checkpoint_id: str) -> str | None:
    """What keeps checkpoint ``checkpoint_id`` of the run from being read (its folder a file, a FIFO, a link, emptied
    or gone; its ``checkpoint.json`` no JSON object in a regular file of the run), said with the fix; None when it
    reads. ``lstat`` and one read: cheap enough to ask before a decision is recorded (``approve_draft``)."""
    folder = Path(run_dir) / "checkpoints" / checkpoint_id
    path = folder / "checkpoint.json"
    fix = (
        "restore that folder from a copy of the run, then resume_run again; the run stays paused as it is (a decision "
        "recorded on its draft stays, and is used then)"
    )
    try:
        mode = os.lstat(folder).st_mode
    except OSError:
        return (
            f"checkpoint {quoted(checkpoint_id)} is recorded in {Path(run_dir) / 'events.jsonl'} but its folder "
            f"{quoted_path(folder)} is gone from the run, so the run cannot be resumed from it; {fix}"
        )
    if not stat.S_ISDIR(mode):
        what = "a symbolic link" if stat.S_ISLNK(mode) else what_is(mode)
        return (
            f"{quoted_path(folder)} is {what}, not the folder of checkpoint {quoted(checkpoint_id)} (noesis_nb writes "
            f"it as a folder holding checkpoint.json), so the run cannot be resumed from it; {fix}"
        )
    if read_json(path, within=run_dir) is not None:
        return None
    if not os.path.lexists(path):
        return (
            f"{quoted_path(folder)} holds no checkpoint.json (emptied), so the run cannot be resumed from checkpoint "
            f"{quoted(checkpoint_id)}; {fix}"
        )
    return (
        f"{quoted_path(path)} cannot be read as a checkpoint: it must be a JSON object in a regular file inside the run "
        f"(not a FIFO, a folder, a link out of the run or damaged JSON); {fix}"
    )


def _refuse_as_its_own(run_dir: Path, name: str, stopped: Stopped) -> None:
    """An odd entry where noesis_nb keeps a record of its own is refused as the check of that record refuses it (with
    what belongs there): a checkpoint's folder or file (``checkpoint_problem``), the seal's documents and a draft's
    records and their folders (``_refusal``). Any other is left to ``check_run_entries``' own refusal."""
    rel = Path(name)
    if rel.parts[0] == "checkpoints" and len(rel.parts) >= 2:
        problem = checkpoint_problem(run_dir, rel.parts[1])
        if problem is not None:
            raise CheckpointNotFoundError(problem)
        return
    folder = rel in _FOLDERS or rel == Path(TOOL_INVOCATIONS_DIR)
    if folder or name in ("summary.json", "learn.jsonl") or rel.parent in _FOLDERS:
        try:
            mode = os.lstat(run_dir / rel).st_mode
        except OSError:  # gone meanwhile
            return
        raise _refusal(run_dir, run_dir / rel, mode, folder, stopped)


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
        fix = f"move {'that folder' if stat.S_ISDIR(mode) else 'it'} out of the run (noesis_nb did not make it)"
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
