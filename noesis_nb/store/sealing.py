"""Whether a run is sealed: the one answer every reader and writer of a run asks for.

A seal ends with two documents, ``final.json`` then ``manifest.json``, each a regular file noesis_nb
writes atomically. Only such files count: a folder, a FIFO, a socket or a symbolic link (dangling or
not) in either place is no seal, and whoever asks gets the same answer from ``seal_state``. Such a
run was crafted or damaged; whatever would write into it (resume, a decision, recovery, a seal)
refuses it whole with ``SealDocumentError``, before writing anything, because it cannot tell whether
the run ended. So does a writer (``refuse_odd_seal``) of a run whose seal document is a regular file holding no
JSON object: noesis_nb writes each whole, at once, so one cut short or garbled is damage, never a seal under way.
A reader that needs a seal document's bytes takes them from ``read_seal_file``, which
never follows a link, so what it reads is what ``seal_state`` counts.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

import orjson

from ..errors import RunLifecycleError
from .runfiles import MAX_DOCUMENT_BYTES, Stamp, UnreadableRunFile, inside, what_is

__all__ = [
    "SEAL_FILES",
    "SealDocumentError",
    "SealState",
    "UnreadableSealFile",
    "seal_state",
    "refuse_odd_seal",
    "read_seal_file",
]

SEAL_FILES = ("final.json", "manifest.json")
_CANNOT_LOOK = "cannot be looked at"
_DAMAGED = "a regular file holding no JSON object"


class SealDocumentError(RunLifecycleError):
    """A run's ``final.json`` or ``manifest.json`` is there but is not a regular file: nothing writes into the run."""

    def __init__(self, path: Path, what: str):
        self.path = Path(path)
        if what.startswith(_CANNOT_LOOK):
            super().__init__(
                f"{self.path} {what}, so whether run {self.path.parent.name} ended cannot be told and nothing is written "
                f"into it. Give this user access to the run's folder (or run as the user who owns it), then try again"
            )
            return
        if what.startswith(_DAMAGED):
            super().__init__(
                f"{self.path} is {what}, not the run's {self.path.name} as noesis_nb writes it (whole, at once, when it "
                f"seals a run): it was cut short or damaged, so whether run {self.path.parent.name} ended cannot be told "
                f"and nothing is written into it (no decision, no resume). Move {self.path} out of the run folder (then "
                f"resume_run({self.path.parent.name!r}) seals the run again from its log if the log ended, or it stays "
                "paused for approve_draft/reject_draft), or restore the run from a copy, then try again"
            )
            return
        super().__init__(
            f"{self.path} is {what}, not the run's {self.path.name} (a regular file noesis_nb writes when it seals a "
            f"run), so whether run {self.path.parent.name} ended cannot be told and nothing is written into it. "
            f"Remove {self.path} (it is not a file noesis_nb wrote) or restore the run from a copy, then try again"
        )


@dataclass(frozen=True)
class SealState:
    """What a run's seal documents are now: ``final``/``manifest`` each a regular file of the run;
    ``odd``: the first of them that is there in another shape, and what it is (None when none is)."""

    final: bool
    manifest: bool
    odd: tuple[Path, str] | None = None
    unknown: tuple[Path, str] | None = None  # a seal document that could not be looked at (no permission), and why

    @property
    def sealed(self) -> bool:
        """The seal is complete: ``manifest.json`` is written last (older Noēsis runs have no ``final.json``)."""
        return self.manifest

    @property
    def ended(self) -> bool:
        """The run's log is complete: its seal began (``final.json`` is written after the log's last line) or is
        done. A cut last line is then damage, not a line still being appended. An odd document says nothing."""
        return self.final or self.manifest

    @property
    def closed(self) -> bool:
        """Nothing may be added to the run: sealed, sealing (``final.json`` written), an odd seal document, or one
        that cannot be looked at (whether the run ended is not known)."""
        return self.ended or self.odd is not None or self.unknown is not None

    def refuse_odd(self) -> None:
        """Raise ``SealDocumentError`` when a seal document is there in a shape noesis_nb never writes, or cannot be
        looked at (no permission): whether the run ended cannot be told, so nothing is written into it."""
        if self.odd is not None:
            raise SealDocumentError(*self.odd)
        if self.unknown is not None:
            raise SealDocumentError(*self.unknown)


def seal_state(run_dir: str | os.PathLike[str]) -> SealState:
    """Look at both seal documents once, never following a link (``lstat``).

    A document that cannot be looked at (no permission on the run's folder: another user's run) counts as not
    there, and ``unknown`` says which and why: a reader tells the run's status as unknown, a writer refuses it."""
    found: dict[str, bool] = {}
    odd = unknown = None
    for name in SEAL_FILES:
        path = Path(run_dir) / name
        try:
            mode = os.lstat(path).st_mode
        except (FileNotFoundError, NotADirectoryError):  # (NotADirectory: the run itself is no folder, so no seal)
            found[name] = False
            continue
        except OSError as exc:  # EACCES, ELOOP on the way, EIO…: whether the run is sealed is not known
            found[name] = False
            if unknown is None:
                unknown = (path, f"{_CANNOT_LOOK} ({exc.strerror or exc})")
            continue
        found[name] = stat.S_ISREG(mode)
        if not found[name] and odd is None:
            odd = (path, "a symbolic link" if stat.S_ISLNK(mode) else what_is(mode))
    return SealState(found["final.json"], found["manifest.json"], odd, unknown)


def refuse_odd_seal(run_dir: str | os.PathLike[str]) -> SealState:
    """``seal_state`` of a run about to be written: ``SealDocumentError`` when a seal document is odd, or is a
    regular file holding no JSON object (cut short or garbled: ``_damaged``)."""
    state = seal_state(run_dir)
    state.refuse_odd()
    for name, there in zip(SEAL_FILES, (state.final, state.manifest)):
        damage = _damaged(os.path.join(run_dir, name)) if there else None
        if damage is not None:
            raise SealDocumentError(Path(run_dir) / name, f"{_DAMAGED} ({damage})")
    return state


def _damaged(path: str) -> str | None:
    """What is wrong with the seal document at ``path``, a regular file, when it holds no JSON object; else None.
    One that cannot be read (no permission, too large) is not judged here: the seal stands, as ``seal_state`` says."""
    try:
        got = read_seal_file(path)
    except UnreadableSealFile:
        return None
    if got is None:  # gone meanwhile
        return None
    if not got[0]:
        return "it is empty"
    try:
        value = orjson.loads(got[0])
    except orjson.JSONDecodeError as exc:
        return f"not JSON: {str(exc).split(':')[0]}, {len(got[0])} bytes"
    return None if isinstance(value, dict) else f"JSON {type(value).__name__}, not an object"


class UnreadableSealFile(UnreadableRunFile):
    """A seal document that cannot be read. ``what`` is None when it is a regular file all the same (no
    permission, too large: the seal stands, as ``seal_state`` counts it), else what is there instead (a link…)."""

    def __init__(self, path: str, reason: str, what: str | None):
        self.what = what
        super().__init__(path, reason)


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_READ = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0) | _NOFOLLOW


def read_seal_file(path: str) -> tuple[bytes, Stamp] | None:
    """Bytes and ``change_stamp`` of a seal document as ``seal_state`` counts it: the regular file at ``path``,
    never one a link leads to; None when absent. ``UnreadableSealFile`` otherwise.

    A reader that followed a link to a file of the run would call the run sealed where ``seal_state`` does not.
    The same system calls as ``runfiles.read_file`` (open without following, fstat, read), so no reader pays more.
    """
    try:
        fd = os.open(path, _READ)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        if _NOFOLLOW and exc.errno in (errno.ELOOP, errno.EMLINK):
            raise _odd(path, "a symbolic link") from None
        try:  # no permission, a socket…: what is there decides whether the run is sealed
            mode = os.lstat(path).st_mode
        except OSError:
            mode = stat.S_IFREG
        if not stat.S_ISREG(mode):
            raise _odd(path, "a symbolic link" if stat.S_ISLNK(mode) else what_is(mode)) from None
        raise UnreadableSealFile(path, f"cannot be opened ({exc.strerror or exc})", None) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise _odd(path, what_is(st.st_mode))
        if st.st_size > MAX_DOCUMENT_BYTES:
            raise UnreadableSealFile(
                path, f"{st.st_size} bytes, more than a run document is read at (runfiles.MAX_DOCUMENT_BYTES); not read", None
            )
        data = os.read(fd, st.st_size + 1)  # one call for a file as long as its stat says
        if len(data) != st.st_size:  # grown or cut meanwhile, or a short read: read to the end
            chunks = [data]
            while chunk := os.read(fd, 1 << 20):
                chunks.append(chunk)
            data = b"".join(chunks)
        return data, (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev)  # ``change_stamp``
    except UnreadableSealFile:
        raise
    except OSError as exc:
        raise UnreadableSealFile(path, f"cannot be read ({exc.strerror or exc})", None) from None
    finally:
        os.close(fd)


def _odd(path: str, what: str) -> UnreadableSealFile:
    name, shown, linked = os.path.basename(path), what, ""
    if what == "a symbolic link":  # where it leads, as ``runfiles`` says of any link of a run (one look, on this path only)
        target = os.path.realpath(path)
        shown = f"a symlink to {target}" + ("" if inside(target, os.path.dirname(path)) else ", outside the run")
        linked = "; none is read through symbolic links"
    return UnreadableSealFile(
        path,
        f"{shown}, not the run's {name} (a regular file noesis_nb writes when it seals a run{linked}), so the run is not "
        f"taken as sealed and nothing is written into it. Move it out of the run folder (it is not a file noesis_nb "
        "wrote) or restore the run from a copy",
        what,
    )
