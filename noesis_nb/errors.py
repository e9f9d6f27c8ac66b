"""Exceptions raised by noesis_nb.

Every message names the offending value and says how to fix it.

    NoesisNbError
    ├── InvalidOptionError          (also ValueError, TypeError) an option or setting with a wrong name or value
    ├── UnsupportedFeatureError     (also NotImplementedError) a Noēsis feature noesis_nb does not implement
    ├── UsingResolutionError        (also ValueError) a ``using=`` target cannot be resolved
    ├── RunNotFoundError            (also FileNotFoundError) no run directory for an id/path
    ├── SummaryNotWrittenError      (also FileNotFoundError) a paused or running run has no summary.json yet
    ├── InvalidIdError              (also ValueError) an id that is not safe to use as a path
    ├── RunsDirError                (also OSError) runs_dir missing or not writable
    ├── RunWriteError               (also OSError) a run's write refused (disk full, read-only, no permission, I/O error)
    │   └── RunGoneError            the run directory was removed or moved while its episode wrote it
    ├── EventLogIntegrityError      a corrupt events.jsonl line (path, line_number, reason)
    ├── DraftNotFoundError          (also LookupError) unknown draft id
    ├── AmbiguousDraftError         (also LookupError) a draft id prefix matching several drafts
    ├── DecisionFileError           (also ValueError) a malformed approval decision file
    ├── ToolRejected                a tool call a human or policy rejected (adapters may catch it)
    ├── AgentCancelled              raised by an adapter: the agent ended its own run cancelled (sealed ``cancelled``)
    ├── EpisodeStateError           an operation the episode's state does not allow
    │   ├── EpisodeStopping         a tool or model call asked for while the episode drains (never started)
    │   ├── RunExistsError          an episode id whose run directory exists already (a cell run again, another process)
    │   ├── NotAwaitedError         the adapter returned leaving a ``ctx.tool_async(...)`` it never awaited (the tool never ran)
    │   ├── ForkedChildError        a forked child of the process that owns a run asked to write it or act as its owner
    │   └── AskerGoneError          an approval another system asked for, whose asker ended with the episode's process
    └── RunLifecycleError           (Noēsis names)
        ├── RunSealedError
        ├── RunLifecycleTransitionError  a lifecycle call the run's state does not allow
        ├── CheckpointNotFoundError
        ├── MissingCausalParentError
        ├── CheckpointConsistencyError
        └── ResumeAdapterError
            ├── ResumeAdapterRequiredError
            └── ResumeAdapterMismatchError
    NoesisVeto                      an enforced governance veto (Noēsis name)
    EpisodeInterrupted              (an asyncio.CancelledError) the kernel's interrupt stopped the episode a cell ran or awaited
    EpisodeCancelled                (an asyncio.CancelledError) handle.result() of an episode that was stopped: no result
    BatchInterrupted                (an asyncio.CancelledError) the kernel's interrupt stopped the batch a cell awaited
"""

from __future__ import annotations

import asyncio
import errno as _errno
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = [
    "NoesisNbError",
    "InvalidOptionError",
    "UnsupportedFeatureError",
    "UsingResolutionError",
    "RunNotFoundError",
    "SummaryNotWrittenError",
    "InvalidIdError",
    "RunsDirError",
    "RunWriteError",
    "RunGoneError",
    "EventLogIntegrityError",
    "EventLogCorruption",
    "DraftNotFoundError",
    "AmbiguousDraftError",
    "DecisionFileError",
    "ToolRejected",
    "AgentCancelled",
    "EpisodeStateError",
    "AskerGoneError",
    "EpisodeStopping",
    "RunExistsError",
    "NotAwaitedError",
    "ForkedChildError",
    "RunLifecycleError",
    "RunSealedError",
    "RunLifecycleTransitionError",
    "CheckpointNotFoundError",
    "MissingCausalParentError",
    "CheckpointConsistencyError",
    "ResumeAdapterError",
    "ResumeAdapterRequiredError",
    "ResumeAdapterMismatchError",
    "NoesisVeto",
    "EpisodeInterrupted",
    "EpisodeCancelled",
    "BatchInterrupted",
    "OtlpExportError",
]


class NoesisNbError(Exception):
    """Base class of every error noesis_nb raises on purpose.

    In IPython these show as one line (the message says what to do) and the cell line that
    raised, not a traceback through noesis_nb's internals; code catching them sees their types.
    """

    def _render_traceback_(self) -> list[str]:
        """What IPython shows instead of the traceback: ``Type: message`` and the line of the cell that led to it."""
        return _cell_lines(self)


def _cell_lines(exc: BaseException) -> list[str]:
    """``Type: message`` and the line of the notebook cell that led to ``exc`` (none of noesis_nb's frames)."""
    import traceback

    lines = [f"{type(exc).__name__}: {exc}"]
    frames = traceback.extract_tb(exc.__traceback__) if exc.__traceback__ is not None else []
    cell = [f for f in frames if "ipykernel_" in f.filename or f.filename.startswith(("<ipython-input", "<cell"))]
    if cell and cell[0].line:  # the outermost: the line of the cell that ran it
        lines.append(f"  (line {cell[0].lineno} of the cell: {cell[0].line.strip()})")
    return lines


class _SaidCancellation(asyncio.CancelledError):
    """A ``CancelledError`` that says what was stopped: its message is its text, IPython shows it as one line, and
    it pickles with the names its subclass keeps (``_KEPT``, given as keywords)."""

    _KEPT: tuple[str, ...] = ()

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""

    def __reduce__(self) -> tuple[Any, ...]:
        return (_said_again, (type(self), str(self), {name: getattr(self, name) for name in self._KEPT}))

    def _render_traceback_(self) -> list[str]:
        return _cell_lines(self)


def _said_again(cls: type[_SaidCancellation], message: str, kept: dict[str, Any]) -> _SaidCancellation:
    return cls(message, **kept)


class EpisodeInterrupted(_SaidCancellation):
    """The kernel's interrupt (■, SIGINT, Ctrl-C) stopped the episode a cell was running or awaiting.

    The message names the episode and what became of its run (sealed ``cancelled``, or still paused
    for a decision). A ``CancelledError``, so ``except Exception`` lets it through as it would the
    interrupt itself; IPython shows it as one line.
    """

    _KEPT = ("episode_id", "status")

    def __init__(self, message: str, *, episode_id: str, status: str):
        self.episode_id, self.status = episode_id, status
        super().__init__(message)


class EpisodeCancelled(_SaidCancellation):
    """``handle.result()`` of an episode that was stopped (Stop, ``handle.cancel()``, ``%noesis stop``): it has no
    result. A ``CancelledError`` as before, so code catching that still does; IPython shows it as one line naming
    the episode and where to look."""

    _KEPT = ("episode_id",)

    def __init__(self, message: str, *, episode_id: str):
        self.episode_id = episode_id
        super().__init__(message)


class BatchInterrupted(_SaidCancellation):
    """The kernel's interrupt stopped the batch a cell was awaiting; the message says what became of its entries."""

    _KEPT = ("batch_id",)

    def __init__(self, message: str, *, batch_id: str):
        self.batch_id = batch_id
        super().__init__(message)


class InvalidOptionError(NoesisNbError, ValueError, TypeError):
    """An option or setting with a wrong name or value; the message names it and what is accepted."""

    @classmethod
    def unknown(cls, names: Any, known: Any, where: str) -> InvalidOptionError:
        """Options nobody takes: each named, with the closest known one when it looks like a typo."""
        return cls(f"unknown option(s) {guessed(names, known)}; {where} takes {', '.join(known)}")


def guessed(names: Any, known: Any) -> str:
    """``names`` as a list in words, each with the closest of ``known`` when it looks like a typo."""
    import difflib

    guesses = [(n, difflib.get_close_matches(str(n), list(known), n=1, cutoff=0.75)) for n in sorted(names, key=str)]
    return ", ".join(f"{n!r} (did you mean {g[0]!r}?)" if g else repr(n) for n, g in guesses)


class UnsupportedFeatureError(NoesisNbError, NotImplementedError):
    """A Noēsis keyword or setting noesis_nb accepts only at its default (the message says which and why)."""


class UsingResolutionError(NoesisNbError, ValueError):
    pass


class MissingExtraError(NoesisNbError, ImportError):
    """A feature was used without the optional package it needs; the message has the ``pip install`` line.

    An ``ImportError`` too, so code that already catches one keeps working.
    """


class RunNotFoundError(NoesisNbError, FileNotFoundError):
    pass


class SummaryNotWrittenError(NoesisNbError, FileNotFoundError):
    """A run has no ``summary.json`` yet: it is paused or still running (``status`` says which); the message says what next."""

    def __init__(self, message: str, *, episode_id: str, status: str):
        self.episode_id, self.status = episode_id, status
        super().__init__(message)

    def __reduce__(self) -> tuple[Any, ...]:
        kwargs = {"episode_id": self.episode_id, "status": self.status}
        return (_remade, (type(self), self.args[:1], kwargs), _state(self))


def _remade(cls: type[BaseException], args: tuple[Any, ...], kwargs: dict[str, Any]) -> BaseException:
    """An error whose ``__init__`` takes other than its ``args``, as ``pickle``/``copy`` rebuild it: made without
    calling ``__init__`` (a subclass may take parameters of its own), then ``_state`` puts back its attributes,
    notes and ``args``. ``kwargs`` is kept in the signature for errors pickled before; it is in the state too."""
    return cls.__new__(cls, *args)


def _state(exc: BaseException) -> dict[str, Any]:
    """What ``__setstate__`` puts back: its attributes (notes too, and a subclass's ``__slots__``) and its
    ``args`` as they are now (``BaseException.__setstate__`` sets each, slots included)."""
    return {**_slot_values(exc), **getattr(exc, "__dict__", {}), "args": exc.args}


def _slot_values(exc: BaseException) -> dict[str, Any]:
    """The set ``__slots__`` attributes of ``exc``'s classes (a subclass may keep its fields there)."""
    values: dict[str, Any] = {}
    for klass in type(exc).__mro__:
        slots = klass.__dict__.get("__slots__", ())
        for name in (slots,) if isinstance(slots, str) else slots:
            if name in ("__dict__", "__weakref__") or name in values:
                continue
            if name.startswith("__") and not name.endswith("__"):
                name = f"_{klass.__name__.lstrip('_')}{name}"  # a private slot is stored mangled
            try:
                values[name] = getattr(exc, name)
            except AttributeError:  # never set
                pass
    return values


class InvalidIdError(NoesisNbError, ValueError):
    pass


class RunsDirError(NoesisNbError, OSError):
    pass


#: how a message shows a path it names: as it is until ``noesis_nb.secrets.quoted`` installs ``quoted_text``
#: (secrets redacted, key-like words hidden) as it is imported, which ``import noesis_nb`` does. It imports this
#: module, so this module cannot import it; a run root, a run folder or a file name can carry a key all the same.
def _as_given(text: str, limit: int) -> str:
    return text


_redact: Callable[[str, int], str] = _as_given
_PATH_LIMIT = 4096  # characters of a path a message shows: any path the system takes (PATH_MAX), whole


def redact_with(redact: Callable[[str, int], str]) -> None:
    """Show the paths messages name as ``redact(text, limit)`` (``noesis_nb.secrets.quoted`` calls it once)."""
    global _redact
    _redact = redact


def _bare(name: str, shown: str) -> str:
    """``shown`` as it is: the hidden parts of a path's names bare until ``mark_names_with`` is called."""
    return shown


_marked: Callable[[str, str], str] = _bare


def mark_names_with(marked: Callable[[str, str], str]) -> None:
    """Show each hidden part of a path's names as ``marked(name, shown)`` does (``[REDACTED:<mark>]``, two tokens
    apart: ``noesis_nb.secrets.namemarks`` calls it once)."""
    global _marked
    _marked = marked


def quoted_path(path: Any) -> str:
    """``path`` as a message names it, its secrets redacted (a run root or task text may hold a key).

    Each part between separators is redacted on its own, so a key in the root's name hides that folder's name,
    not the run folder and file after it, each hidden part marked (``[REDACTED:<mark>]``: two runs named with two
    tokens named apart, as frames name them); when the parts so redacted still show what the whole path's redaction
    finds (a key with a ``/`` in it), the whole path is shown redacted as one text."""
    text = str(path)
    whole = _redact(text, _PATH_LIMIT)
    if whole == text:
        return text
    parts = "/".join(_marked(part, _redact(part, _PATH_LIMIT)) for part in text.split("/"))
    return parts if _redact(parts, _PATH_LIMIT) == parts else whole


class OtlpExportError(NoesisNbError, ConnectionError):
    """Spans were not delivered to an OTLP collector: it refused the connection, did not answer in time, or
    answered with a refusal. A ``ConnectionError`` (code catching that still does); in a notebook, one line."""


class RunWriteError(NoesisNbError, OSError):
    """The file system refused a write to a run: full, over quota, a file past the size limit, read-only,
    no permission, or an I/O error of the device.

    Nothing written before is lost: a line the disk took only in part is taken back, and a document
    is written whole or not at all. ``errno`` is the system's (``errno.ENOSPC``, ``errno.EROFS`` …),
    ``filename`` the file; the message says what was refused, the fix for that reason, and how to go on.
    """

    def __init__(self, path: Any, errno: int | None, reason: str, advice: str | None = None):
        name = _errno.errorcode.get(errno or 0)
        advice = advice if advice is not None else f"{refusal_fix(errno)} and try again"
        super().__init__(errno, f"could not write {quoted_path(path)}: {reason}{f' ({name})' if name else ''}; {advice}")
        self.filename = str(path)
        self.reason, self.advice = reason, advice

    @classmethod
    def of(cls, path: Any, cause: OSError) -> RunWriteError:
        return cls(path, cause.errno, cause.strerror or str(cause))

    def advising(self, advice: str) -> RunWriteError:
        """The same refusal with other advice (the episode's own: which run is left unsealed, and how to seal it)."""
        return RunWriteError(self.filename, self.errno, self.reason, advice)

    def __str__(self) -> str:
        return str(self.strerror)

    def __reduce__(self) -> tuple[Any, ...]:
        return (RunWriteError, (self.filename, self.errno, self.reason, self.advice))


class RunGoneError(RunWriteError):
    """The run directory was removed or moved away while its episode was writing it: nothing more is
    written (no folder is made again at the old place); ``moved_to`` is where it is now, when known.
    ``log_only``: the directory is in place but its ``events.jsonl`` was swapped (``moved_to``: where the log is now)."""

    def __init__(self, path: Any, moved_to: str | None, removed: bool = False, *, log_only: bool = False):
        self.moved_to, self.removed, self.log_only = moved_to, removed, log_only
        if log_only:  # the directory is in place; its events.jsonl alone was swapped for another file, or deleted
            log = quoted_path(f"{path}/events.jsonl")
            if moved_to:
                where = f"is now {quoted_path(moved_to)}"
                advice = f"move it back to {log}, then resume_run({quoted_path(path)!r}) seals the run"
            elif removed:
                where, advice = "was deleted", "the events written so far went with it; start the episode again"
            else:  # it still has a name, somewhere this system cannot say (no /proc)
                where = "was moved away (its new place is not known here)"
                advice = f"move it back to {log}, then resume_run({quoted_path(path)!r}) seals the run"
            reason = f"its events.jsonl was replaced while its episode ran: the log it wrote {where}"
            super().__init__(path, _errno.ENOENT, reason, advice)
            return
        if removed:
            where, advice = "removed", "the events written so far went with it; start the episode again"
        elif moved_to:
            where, advice = f"moved to {quoted_path(moved_to)}", f"resume_run({quoted_path(moved_to)!r}) seals it where it is now"
        else:
            where, advice = "moved away", "resume_run(<its new path>) seals it where it is now"
        super().__init__(path, _errno.ENOENT, f"the run directory was {where} while its episode ran", advice)

    def advising(self, advice: str) -> RunWriteError:
        return self  # its own advice is the one that fits

    def __reduce__(self) -> tuple[Any, ...]:
        return (_run_gone, (self.filename, self.moved_to, self.removed, self.log_only))


def _run_gone(path: Any, moved_to: str | None, removed: bool, log_only: bool) -> RunGoneError:
    return RunGoneError(path, moved_to, removed, log_only=log_only)


#: what a disk says when it has no room for a write (not a permission or a missing folder)
DISK_REFUSALS = frozenset(code for code in (getattr(_errno, n, None) for n in ("ENOSPC", "EDQUOT", "EFBIG")) if code is not None)
_PERMISSION = frozenset({_errno.EACCES, _errno.EPERM})
#: what a file system says when it refuses a run's write: no room, read-only, no permission, a failing device
WRITE_REFUSALS = DISK_REFUSALS | _PERMISSION | {_errno.EROFS, _errno.EIO}


def refused_write(exc: BaseException) -> bool:
    """Whether ``exc`` is the file system refusing a write (``WRITE_REFUSALS``), not yet said as a ``RunWriteError``."""
    return isinstance(exc, OSError) and not isinstance(exc, RunWriteError) and exc.errno in WRITE_REFUSALS


def _refusal_kind(code: int | None) -> str | None:
    """Which kind of refusal ``code`` (an errno) is: the key of ``_FIX`` and ``_FIXED``."""
    if code == getattr(_errno, "EFBIG", None):
        return "size"
    if code in DISK_REFUSALS:
        return "room"
    if code in _PERMISSION:
        return "permission"
    return {_errno.EROFS: "read-only", _errno.EIO: "device"}.get(code or 0)


_FIX = {
    "room": "free space on that disk",
    "size": (
        "a file grew past the largest size allowed: this process's file size limit (ulimit -f, RLIMIT_FSIZE) or its "
        "file system's largest file; raise the limit (ulimit -f unlimited) or pass runs_dir= a directory on another "
        "file system"
    ),
    "read-only": "the file system is read-only: remount it read-write, or pass runs_dir= a directory on a writable one",
    "permission": (
        "this process (uid {uid}) may not write it: check who owns it and its mode (ls -ld; chown or chmod u+w) "
        "and whether it is immutable or append-only (lsattr; chattr -i -a)"
    ),
    "device": "the disk reported an I/O error: check the device (dmesg, its health) before writing to it again",
}
_FIXED = {
    "room": "once there is room",
    "size": "once the file size limit allows it",
    "read-only": "once it is writable again",
    "permission": "once it may be written",
    "device": "once the disk is sound",
}


def refusal_fix(code: int | None) -> str:
    """What to do about a write the system refused with ``code`` (an errno), in a few words."""
    kind = _refusal_kind(code)
    return _FIX[kind].format(uid=_uid()) if kind else "find out why the system refused it"


def refusal_fixed(code: int | None) -> str:
    """When a run given up for that refusal can be sealed (``… , resume_run(…) seals it``)."""
    kind = _refusal_kind(code)
    return _FIXED[kind] if kind else "once that is mended"


def _uid() -> int | str:
    import os

    return os.getuid() if hasattr(os, "getuid") else "?"


@dataclass(frozen=True)
class EventLogCorruption:
    path: str
    line_number: int
    reason: str


class EventLogIntegrityError(NoesisNbError):
    """A line of an events.jsonl file is not a JSON object; ``corruption`` says where."""

    READ_HINT = "Read with strict=False to skip bad lines and get them reported instead."

    def __init__(self, corruption: EventLogCorruption, hint: str = READ_HINT):
        self.corruption = corruption
        super().__init__(f"{quoted_path(corruption.path)}, line {corruption.line_number}: {corruption.reason}. {hint}")

    def __reduce__(self) -> tuple[Any, ...]:  # its message is made from its parts: rebuilt from them, then its state
        return (_remade, (type(self), (self.corruption,), {}), _state(self))


class DraftNotFoundError(NoesisNbError, LookupError):
    pass


class AmbiguousDraftError(NoesisNbError, LookupError):
    pass


class DecisionFileError(NoesisNbError, ValueError):
    pass


class ToolRejected(NoesisNbError):
    """Raised inside an adapter when its tool call was rejected; carries the decision."""

    def __init__(self, tool: str, reason: str | None, *, draft_id: str | None = None, decision: Any = None):
        self.tool, self.reason, self.draft_id, self.decision = tool, reason, draft_id, decision
        # the reviewer's words as shown, redacted: a reason quoting the key that made the call unsafe must not show it
        said = f": {_redact(reason, 2000)}" if isinstance(reason, str) and reason else ""
        super().__init__(f"tool call {_redact(repr(tool), 200)} was rejected{said}")

    def __reduce__(self) -> tuple[Any, ...]:
        kwargs = {"draft_id": self.draft_id, "decision": self.decision}
        return (_remade, (type(self), (self.tool, self.reason), kwargs), _state(self))


class AgentCancelled(NoesisNbError):
    """Raised by an adapter when the agent it runs ended its own run cancelled (stopped by whoever ran it, without
    failing): the episode is sealed ``cancelled`` with this message, not ``ok`` (nothing was produced) nor ``error``."""


class EpisodeStateError(NoesisNbError):
    pass


class EpisodeStopping(EpisodeStateError):
    """Raised inside an adapter for a tool or model call asked for while the episode drains: it never started."""


class AskerGoneError(EpisodeStateError):
    """An approval an AG-UI agent, a Noeta client or a LangGraph graph asked for, whose asker waited in the episode's
    process and ended with it: the run cannot continue (approving it is refused; rejecting and resuming seals it)."""


class RunExistsError(EpisodeStateError):
    """An episode was to start under an id whose run directory exists already (a cell run again, another process)."""


class NotAwaitedError(EpisodeStateError):
    """The adapter returned leaving calls it never awaited (``calls``): their tools never ran, so its result is not trusted."""

    def __init__(self, calls: list[str]):
        self.calls = calls
        named = ", ".join(calls[:5]) + (f" and {len(calls) - 5} more" if len(calls) > 5 else "")
        super().__init__(
            f"{named} {'was' if len(calls) == 1 else 'were'} never awaited, so the tool never ran: write "
            f"`await {calls[0]}` in an async adapter (or ctx.tool(...) without await in a sync one)"
        )

    def __reduce__(self) -> tuple[Any, ...]:
        return (NotAwaitedError, (self.calls,))


class ForkedChildError(EpisodeStateError):
    """A forked child (``os.fork``, a ``multiprocessing`` 'fork' pool) asked to write a run its parent owns, or act as its owner.

    The child holds a copy of the episode: lines it appended would not be in the owner's counts nor in
    the digest its manifest is sealed with, so the run would no longer check. ``episode_id``,
    ``owner_pid`` (the process writing the run), ``pid`` (this child) and ``doing`` say what was refused.
    """

    def __init__(self, episode_id: str, owner_pid: int, pid: int, doing: str):
        self.episode_id, self.owner_pid, self.pid, self.doing = episode_id, owner_pid, pid, doing
        super().__init__(
            f"{doing} refused: episode {episode_id} is written by process {owner_pid}; this is process {pid}, a child "
            "forked from it, holding a copy of the episode, not its run (what it wrote would be missing from the "
            "owner's counts and manifest). Return the value to the parent and record it there, or start the worker "
            "with the 'spawn' or 'forkserver' start method (multiprocessing.get_context('spawn'))"
        )

    def __reduce__(self) -> tuple[Any, ...]:  # a pool sends it back to the parent: it arrives as itself
        return (ForkedChildError, (self.episode_id, self.owner_pid, self.pid, self.doing))


class RunLifecycleError(NoesisNbError):
    pass


class RunSealedError(RunLifecycleError):
    pass


class RunLifecycleTransitionError(RunLifecycleError):
    """A lifecycle call from a state Noēsis' run lifecycle does not allow it in (e.g. interrupting a paused run)."""


class CheckpointNotFoundError(RunLifecycleError):
    pass


class MissingCausalParentError(RunLifecycleError):
    pass


class CheckpointConsistencyError(RunLifecycleError):
    pass


class ResumeAdapterError(RunLifecycleError):
    pass


class ResumeAdapterRequiredError(ResumeAdapterError):
    pass


class ResumeAdapterMismatchError(ResumeAdapterError):
    pass


class NoesisVeto(NoesisNbError):
    """An enforced veto. Fields follow Noēsis' ``NoesisVeto``."""

    def __init__(
        self,
        advice: str = "",
        *,
        target: str | None = None,
        scope: str | None = None,
        decision: str = "veto",
        rule_id: str | None = None,
        policy_id: str | None = None,
        policy_version: str | None = None,
        policy_kind: str | None = None,
        enforced: bool = True,
        details: Any = None,
        error: Any = None,
        governance_id: str | None = None,
        action_candidate_id: str | None = None,
        episode_id: str | None = None,
    ):
        self.advice, self.target, self.scope, self.decision = advice, target, scope, decision
        self.rule_id, self.policy_id, self.policy_version, self.policy_kind = rule_id, policy_id, policy_version, policy_kind
        self.enforced, self.details, self.error = enforced, details, error
        self.governance_id, self.action_candidate_id, self.episode_id = governance_id, action_candidate_id, episode_id
        super().__init__(advice or f"vetoed by {rule_id or 'policy'}")
