"""``events.jsonl``: an append-only writer and tolerant/strict readers.

The writer appends one whole line per event and flushes it, keeps timestamps monotonic
(as Noēsis does) and refuses appends once the run is sealed. Readers parse per line, so
both Noēsis serialisations load; the torn last line of a run still being written is skipped.
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
import stat
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import orjson

from .. import _forks
from .._jsonio import _LINE_OPTS, dumps_line
from .._jsonkeys import check_texts, colons
from ..errors import (
    EventLogCorruption,
    EventLogIntegrityError,
    RunGoneError,
    RunSealedError,
    RunWriteError,
    quoted_path,
    refused_write,
)
from .paths import UnsafeRunPathError, run_path
from .replayclock import iso_of
from .runfiles import MAX_DOCUMENT_BYTES, UnreadableRunFile, _too_large, open_file, read_file, what_is
from .sealing import seal_state

if TYPE_CHECKING:
    from .replayclock import ReplayClock

__all__ = [
    "EventWriter",
    "FileDigest",
    "iter_events",
    "read_events",
    "read_events_to_continue",
    "read_run_events",
    "torn_line",
    "now_iso",
    "parse_lines",
    "bad_line_reason",
    "lone_cr_as_newline",
    "GZIP_MAGIC",
    "GZIP_TEXT",
    "WIDE_BOMS",
    "WIDE_TEXT",
]


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_HASH_BLOCK = 64 * 1024  # bytes of lines the writer's digest takes at once (below malloc's mmap threshold)
_second_cache: tuple[int, str] = (-1, "")
_monotonic = time.monotonic
_time_ns = time.time_ns
#: an event's line when its record holds JSON values only (``dumps_line`` writes any other), made in place: no Python
#: call per line (the crash harness counts each line's write here)
_line_of = orjson.dumps


def now_iso() -> str:
    """UTC now as ISO-8601 with microseconds and ``+00:00`` (Noēsis' form); the date part is cached per second."""
    second, ns = divmod(_time_ns(), 1_000_000_000)
    cached_second, prefix = _second_cache
    if second != cached_second:
        prefix = _second_prefix(second)
    return prefix + str(1_000_000 + ns // 1000)[1:] + "+00:00"  # six digits of microseconds, without a format spec


def _second_prefix(second: int) -> str:
    """``now_iso``'s date and time to the second for ``second`` (seconds since the epoch), cached for the next calls."""
    global _second_cache
    prefix = datetime.fromtimestamp(second, UTC).strftime("%Y-%m-%dT%H:%M:%S.")
    _second_cache = (second, prefix)
    return prefix


class FileDigest(NamedTuple):
    """A file as its writer left it: identity, size, modification and change times, and sha256 (hex)."""

    dev: int
    ino: int
    size: int
    mtime_ns: int
    ctime_ns: int
    sha256: str

    def matches(self, path: Path) -> bool:
        """Whether ``path`` is still that file, unchanged (same inode, size, mtime and ctime: an mtime set back shows)."""
        try:
            st = os.stat(path, follow_symlinks=False)
        except OSError:
            return False
        return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns) == self[:5]


class EventWriter:
    """Appends events to one run's ``events.jsonl``; safe to call from several threads.

    It refuses to append once the run is sealed on disk (``final.json`` or ``manifest.json``),
    whatever it believes in memory: the disk is looked at before the first append and again
    whenever 50 ms have passed since the last look (a pause, a wait for a human, a slow tool).
    """

    SEAL_CHECK_S = 0.05

    def __init__(self, path: Path):

        self.path = run_path(Path(path).parent, Path(path).name)
        self.lock = threading.RLock()
        self._finals = (str(self.path.parent / "final.json"), str(self.path.parent / "manifest.json"))
        self._sealed = self._sealed_on_disk()
        self._checked = time.monotonic()
        self._last_ts = ""
        # an imported run's recorded time (``replayclock``), set before its first event; None: the time of writing
        self.clock: ReplayClock | None = None
        self.count = 0
        self.last_event_id: str | None = None
        self._digest = hashlib.sha256()  # of every byte of the file, so sealing need not read it again
        # the lines written since the digest last took a block, as one buffer: keeping each line's own bytes instead
        # would hold the JSON encoder's buffer for each (orjson's is 4-8 KB for a 600-byte line), so every event
        # grew the heap by that much until the block was hashed, and each append ran on memory never touched before
        self._unhashed = bytearray()
        self._size = 0
        self.closed_as: FileDigest | None = None
        self.owner = _forks.Owner()  # a forked child inherits the open log, never the right to append (``_forks``)
        try:
            self._folder = os.stat(self.path.parent)  # the run directory's identity, to tell it moved from its log swapped
            fd = _open_log(self.path)
        except FileNotFoundError:  # removed between the caller's look and this one
            raise RunGoneError(self.path.parent, None, removed=True) from None
        except OSError as exc:
            raise self._refused(exc) from None
        try:
            data = _drop_torn_tail(fd, self.path)
        except BaseException as exc:
            os.close(fd)
            if isinstance(exc, OSError):  # cutting a torn last line is a write: a refusal is said as one
                raise self._refused(exc) from None
            raise
        self._one_event_a_line = True  # every line of the log is one event ``count`` counts (``log_digest``)
        if data:
            self._digest.update(data)
            self._size = len(data)
            for event in parse_lines(data, str(self.path), strict=False):
                self.count += 1
                self._last_ts = max(self._last_ts, str(event.get("timestamp", "")))
                if event.get("id"):
                    self.last_event_id = event["id"]
            self._one_event_a_line = data.count(b"\n") == self.count and b"\r" not in data
        self._fh = os.fdopen(fd, "ab", buffering=0)

    @property
    def sealed(self) -> bool:
        return self._sealed

    def run_now(self) -> str:
        """The run's time now, for its documents (``final.json``, ``manifest.json``): an imported run's recorded time
        (its ``clock``, as its events are stamped), else the time of writing; one clock per run, never both."""
        clock = self.clock
        at = clock.at if clock is not None else None
        return now_iso() if at is None else iso_of(at)

    def _sealed_on_disk(self) -> bool:
        """Either seal document there, in any shape (``sealing.SealState.closed``): a link or folder planted in
        its place closes the run too. Two ``lstat`` calls, kept this cheap for the append path."""
        lexists = os.path.lexists
        return lexists(self._finals[0]) or lexists(self._finals[1])

    def append(self, event: dict[str, Any]) -> dict[str, Any]:
        """Write ``event`` as one line (timestamp clamped to be monotonic) and return it."""
        with self.lock:
            return self.append_locked(event)

    def append_locked(self, event: dict[str, Any]) -> dict[str, Any]:
        """``append`` for a caller that already holds ``self.lock`` (the episode recorder's hot path)."""
        if self.owner.generation != _forks.generation:
            self.owner.check(self.path.parent.name, "appending to events.jsonl")
        now = _monotonic()
        if now - self._checked > self.SEAL_CHECK_S:
            self._checked = now
            self._sealed = self._sealed or self._sealed_on_disk()
            self._check_in_place()
        if self._sealed:
            odd = seal_state(self.path.parent).odd
            raise RunSealedError(
                f"cannot append to {self.path}: "
                + (
                    f"{odd[0]} is {odd[1]}, not a seal noesis_nb wrote, and the run takes nothing more while it is there"
                    if odd
                    else "the run is sealed (final.json or manifest.json exists); start a new episode instead"
                )
            )
        clock = self.clock
        ts = event.get("timestamp") if clock is None else clock.stamp(event)
        if not ts:  # ``now_iso`` made in place, one call fewer per event
            second, ns = divmod(_time_ns(), 1_000_000_000)
            cached_second, prefix = _second_cache
            if second != cached_second:
                prefix = _second_prefix(second)
            ts = prefix + str(1_000_000 + ns // 1000)[1:] + "+00:00"
        last = self._last_ts
        if ts < last:
            ts = last
        metrics = event.get("metrics") if clock is None else None
        if type(metrics) is dict and metrics.get("completed_at") == event.get("timestamp"):
            # a step timed as it ran (its end, its line's time): clamped with it, and never before its start (the
            # clock stepped back while it ran)
            began = metrics.get("started_at")
            if type(began) is str and ts < began:
                ts = began
            metrics["completed_at"] = ts
        event["timestamp"] = self._last_ts = ts
        try:
            line = _line_of(event, option=_LINE_OPTS)  # (``dumps_line``'s own first try)
        except (TypeError, orjson.JSONEncodeError):  # a value JSON cannot hold: written as its JSON form
            line = dumps_line(event)
        try:
            written = self._fh.write(line)
        except OSError as exc:  # nothing written (one write call takes all, part, or none)
            raise self._refused(exc) from None
        if written != len(line):
            self._write_rest(line, written or 0)
        self._size += len(line)
        unhashed = self._unhashed
        unhashed += line
        if len(unhashed) >= _HASH_BLOCK:  # hashed in blocks: one call per block, not per line
            self._digest.update(unhashed)
            unhashed.clear()
        self.count += 1
        event_id = event.get("id")
        if event_id:
            self.last_event_id = event_id
        return event

    def _write_rest(self, line: bytes, written: int) -> None:
        """Finish a line the disk took only in part; if it refuses the rest, take the part back and raise.

        A part-line left in the log would glue the next event onto it (a broken line in the middle
        of the run) the moment the disk has room again, so the log is cut back to its last whole line.
        """
        try:
            while written < len(line):
                more = self._fh.write(line[written:])
                if not more:
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
                written += more
        except OSError as exc:
            try:
                os.ftruncate(self._fh.fileno(), self._size)
            except OSError:
                pass  # the next writer that opens the log cuts the part-line (``_drop_torn_tail``)
            raise self._refused(exc) from None

    def _refused(self, exc: OSError) -> OSError:
        return RunWriteError.of(self.path, exc) if refused_write(exc) else exc

    def check_disk(self) -> bool:
        """Look at the disk now; True when the run was sealed there (``RunGoneError`` when the run is no longer there)."""
        with self.lock:
            self._checked = time.monotonic()
            self._sealed = self._sealed or self._sealed_on_disk()
            self._check_in_place()
            return self._sealed

    def _check_in_place(self) -> None:
        """Raise ``RunGoneError`` when the open log is no longer this run's ``events.jsonl`` (the run directory
        was removed or moved away): lines appended now would go with it, and a seal here would make a
        run of documents without events."""
        if self._fh.closed:
            return
        opened = os.fstat(self._fh.fileno())
        try:
            here = os.stat(self.path)
        except FileNotFoundError:
            here = None
        if here is not None and os.path.samestat(opened, here):
            return
        try:  # the run directory still in place: only its log was swapped or deleted (a crafted run, someone's mv)
            log_only = os.path.samestat(os.stat(self.path.parent), self._folder)
        except OSError:
            log_only = False
        try:  # where the open log is now (Linux names it; elsewhere the message says "moved away")
            now_at: str | None = os.readlink(f"/proc/self/fd/{self._fh.fileno()}")
        except OSError:
            now_at = None
        if not opened.st_nlink:
            raise RunGoneError(self.path.parent, None, removed=True, log_only=log_only)
        if log_only:
            raise RunGoneError(self.path.parent, now_at, log_only=True)
        raise RunGoneError(self.path.parent, os.path.dirname(now_at) if now_at else None)

    def seal(self) -> None:
        with self.lock:
            self._sealed = True

    def close(self) -> None:
        """Close the file, keeping what it holds (``closed_as``) for a manifest that need not re-read it."""
        with self.lock:
            if not self._fh.closed:
                self._digest.update(self._unhashed)
                self._unhashed.clear()
                st = os.fstat(self._fh.fileno())
                if st.st_size == self._size:  # only this writer wrote it
                    self.closed_as = FileDigest(
                        st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns, self._digest.hexdigest()
                    )
                self._fh.close()

    def log_digest(self) -> tuple[str, int] | None:
        """(sha256 hex, size) of the whole log, from the digest kept while appending (nothing is read): what a
        checkpoint binds of its first ``count`` lines. None when the file holds more than this writer knows (another
        process wrote into it) or lines ``count`` does not count (a line that is no event): read the file then."""
        with self.lock:
            if self._fh.closed or not self._one_event_a_line or os.fstat(self._fh.fileno()).st_size != self._size:
                return None
            digest = self._digest.copy()
            digest.update(self._unhashed)
            return digest.hexdigest(), self._size

    def wrote_every_byte(self) -> bool:
        """Whether the file holds exactly what this writer appended (no other process wrote into it)."""
        with self.lock:
            if self._fh.closed:
                return self.closed_as is not None
            return os.fstat(self._fh.fileno()).st_size == self._size

    @property
    def closed(self) -> bool:
        return self._fh.closed

    def fsync(self) -> None:
        with self.lock:
            if not self._fh.closed:
                os.fsync(self._fh.fileno())


def _open_log(path: Path) -> int:
    """Open a run's ``events.jsonl`` to read and append, refusing what a crafted run may put in its place.

    One descriptor does everything (cut a torn tail, read, append), so a link swapped in after
    ``run_path`` looked is never followed (``O_NOFOLLOW``), a FIFO never blocks (``O_NONBLOCK``),
    and a hard link (a second name, maybe a file outside the run) is refused before a byte is written.
    """
    flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0)
    flags |= getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags, 0o644)
    except OSError as exc:
        if refused_write(exc):  # no room, read-only, no permission, a failing device: the writer's one error
            raise RunWriteError.of(path, exc) from None
        if os.path.islink(path):
            reason = "is a symbolic link; noesis_nb never writes through links inside a run. Replace it with the real file"
        elif os.path.isdir(path):
            reason = (
                "is a directory, not a file; move it out of the run folder (it is not part of the run) and restore the log "
                "from a copy"
            )
        else:
            reason = f"cannot be opened for writing ({exc.strerror or exc}); check that the run directory is writable"
        raise UnsafeRunPathError(f"{quoted_path(path)} {reason}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise UnsafeRunPathError(
                f"{path} is {what_is(st.st_mode)}, not a file; move it out of the run folder (it is not part of the run) "
                "and restore the log from a copy"
            )
        if st.st_nlink > 1:
            raise UnsafeRunPathError(
                f"{path} is a hard link ({st.st_nlink} names for one file): lines appended here would also change the "
                "file behind its other names, maybe outside the run. Give the run its own copy "
                f"(cp {path} {path}.copy && mv {path}.copy {path}) and try again"
            )
        if getattr(os, "O_NONBLOCK", 0):  # opened non-blocking (a FIFO never waits); Windows has neither
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _drop_torn_tail(fd: int, path: Path) -> bytes:
    """The log's bytes, after cutting a last line that a crashed writer left without its newline, so new lines start clean.

    Readers already skip such a fragment; appending after it would glue the next event onto it.
    """
    size = os.fstat(fd).st_size
    if why := _too_large(str(path), size):
        raise UnreadableRunFile(str(path), why)
    os.lseek(fd, 0, os.SEEK_SET)  # appends go to the end whatever the offset (O_APPEND)
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    data = b"".join(chunks)
    if data and not data.endswith(b"\n"):
        cut = data.rfind(b"\n", max(0, len(data) - (1 << 20)))  # a torn line is looked for in the last MB, as always
        if cut >= 0 or len(data) <= 1 << 20:
            data = data[: cut + 1]
            os.ftruncate(fd, len(data))
    return data


def parse_lines(
    data: bytes,
    path: str,
    *,
    strict: bool,
    errors: list[EventLogCorruption] | None = None,
    numbers: list[int] | None = None,
    torn: list[int] | None = None,
    as_written: bool = False,
) -> list[dict[str, Any]]:
    """Parse the bytes of an events file. A torn last line (no newline) is never an error.

    ``numbers`` receives the 1-based line number of each event returned; ``torn`` the number of
    a torn last line that was skipped (a sealed run has none: its reader may report it). A line that writes a key
    twice is reported, that key read as unknown (``_jsonkeys``), unless the file is ``as_written``: this user's seal
    vouches for its bytes, serialised here from objects (no key can come twice), so the check is not paid.
    """
    if data[:2] in WIDE_BOMS:  # UTF-16 or UTF-32 text: every line would be reported, none is JSON
        _problem(path, 1, WIDE_TEXT, strict, errors)
        return []
    if data[:2] == GZIP_MAGIC:  # a compressed log: its bytes are no text, every line would read as invalid UTF-8
        _problem(path, 1, GZIP_TEXT, strict, errors)
        return []
    if data.find(b"\r") != -1:  # memchr: a file of CRLF or lone-CR line ends, rare (``in`` raises and clears first)
        data = lone_cr_as_newline(data, path, strict, errors)
    lines = data.split(b"\n")
    last = lines.pop() if lines else b""  # after the final newline: b"" unless the last line is torn
    events = _all_objects(lines)
    texts: list[bytes] = lines
    read: Sequence[int]
    if events is not None:  # the common case: every whole line is one JSON object
        read = range(1, len(lines) + 1)
        # one count over the file, for the repeated-key check a file noesis_nb wrote and sealed does not need
        text_colons: int | None = None if as_written else colons(data, 0, len(data) - len(last))
    else:
        read_here: list[int] = []
        texts = []
        events = _line_by_line(lines, path, strict, errors, read_here, texts)
        read, text_colons = read_here, None
    if last.strip():
        try:
            value = orjson.loads(last)
        except orjson.JSONDecodeError:
            value = None  # a line still being written
        if type(value) is dict:  # complete JSON written without its newline yet
            events.append(value)
            read, texts = [*read, len(lines) + 1], [*texts, last]
            text_colons = None if text_colons is None else text_colons + colons(last)
        elif torn is not None:
            torn.append(len(lines) + 1)
    if not as_written:
        check_texts(texts, events, lambda i, reason: _problem(path, read[i], reason, strict, errors), text_colons)
    if numbers is not None:
        numbers.extend(read)
    return events


_LONE_CR = re.compile(rb"\r(?!\n)")
WIDE_BOMS = (b"\xff\xfe", b"\xfe\xff")  # UTF-16 LE/BE byte order marks (UTF-32 LE starts as UTF-16 LE)
WIDE_TEXT = "the file is UTF-16 or UTF-32 text (its byte order mark says so), not UTF-8; it is not read. Save it as UTF-8"
GZIP_MAGIC = b"\x1f\x8b"  # the first two bytes of a gzip stream
GZIP_TEXT = (
    "the file is gzip-compressed (it starts with gzip's magic bytes), not UTF-8 text; it is not read. "
    "Decompress it (gunzip) and keep the name events.jsonl"
)


def lone_cr_as_newline(data: bytes, path: str, strict: bool = False, errors: list[EventLogCorruption] | None = None) -> bytes:
    """``data`` with each lone carriage return (``\\r`` not before ``\\n``) that ends a JSON line read as a line end,
    reported once.

    A file whose lines end in ``\\r`` alone would otherwise be one long torn last line, dropped without a word
    while its run is live. A ``\\r`` counts as a line end only inside a line where a piece between them is a JSON
    object (``_pieces_are_lines``): a garbage line that holds a stray ``\\r`` stays one line, reported as invalid
    JSON at its own number. The bytes keep their length (one byte for one), so sizes and offsets still match.
    """
    if _LONE_CR.search(data) is None:  # CRLF only: orjson reads the \r as whitespace
        return data
    segments = data.split(b"\n")
    first_line = None
    for index, segment in enumerate(segments):
        if _LONE_CR.search(segment) is not None and _pieces_are_lines(segment, index == len(segments) - 1):
            segments[index] = _LONE_CR.sub(b"\n", segment)
            first_line = index + 1 if first_line is None else first_line
    if first_line is None:
        return data
    reason = "the line ends in a lone carriage return (\\r), not a newline (\\n); each lone \\r is read as a line end"
    _problem(path, first_line, reason, strict, errors)
    return b"\n".join(segments)


def _pieces_are_lines(segment: bytes, unfinished: bool) -> bool:
    """Whether the lone ``\\r`` of ``segment`` end lines: some piece between them is a whole JSON object.

    A ``\\r`` inside one JSON line (white space between its tokens) or in a garbage line leaves no piece that is an
    object (the object's braces fall in different pieces); a file of ``\\r``-ended lines has them, a bad line
    among them aside. The last piece of the file's unfinished last line may be torn, and is not asked.
    """
    pieces = _LONE_CR.split(segment)
    if unfinished:
        pieces.pop()
    for piece in pieces:
        if piece.strip()[:1] == b"{":
            try:
                if type(orjson.loads(piece)) is dict:
                    return True
            except orjson.JSONDecodeError:
                continue
    return False


def _all_objects(lines: list[bytes]) -> list[dict[str, Any]] | None:
    """Every line parsed in one C-level pass, or None when any line is blank, not JSON or not an object.

    A blank line never parses (JSON has no empty document), so a None here sends the file to
    ``_line_by_line``, which skips blanks and reports bad lines one by one: the result is the same.
    """
    try:
        events = list(map(orjson.loads, lines))
    except orjson.JSONDecodeError:
        return None
    if events and set(map(type, events)) != {dict}:
        return None
    return events


def _line_by_line(
    lines: list[bytes],
    path: str,
    strict: bool,
    errors: list[EventLogCorruption] | None,
    numbers: list[int],
    texts: list[bytes],
) -> list[dict[str, Any]]:
    """The careful reader: blank lines skipped, each bad line reported (or raised when ``strict``) with its number;
    the number and text of each event read go to ``numbers`` and ``texts``."""
    events: list[dict[str, Any]] = []
    loads = orjson.loads
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            value = loads(raw)
        except orjson.JSONDecodeError as exc:
            _problem(path, number, _bad_line(raw, number, exc), strict, errors)
            continue
        if type(value) is not dict:
            _problem(path, number, f"a JSON {_json_kind(value)}, not an object", strict, errors)
            continue
        events.append(value)
        numbers.append(number)
        texts.append(raw)
    return events


def _json_kind(value: Any) -> str:
    return {
        list: "array",
        dict: "object",
        str: "string",
        int: "number",
        float: "number",
        bool: "boolean",
        type(None): "null",
    }.get(type(value), type(value).__name__)


def _bad_line(raw: bytes, number: int, exc: Exception) -> str:
    """Why line ``number`` (``raw``) is no JSON: a gzip'd file's first line, else ``bad_line_reason``."""
    if number == 1 and raw[:2] == GZIP_MAGIC:
        return GZIP_TEXT
    return bad_line_reason(raw, exc)


def bad_line_reason(raw: bytes, exc: Exception) -> str:
    """Why the event line ``raw`` is no JSON, naming what stands where and the fix: the first byte that is no UTF-8,
    a NaN or Infinity (Python's ``json.dumps`` writes them unless ``allow_nan=False``), a control byte such as NUL,
    else ``exc``. Every reader of a log says this one reason for a line, so it is reported once."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as bad:
        return (
            f"invalid UTF-8: byte 0x{raw[bad.start]:02x} at byte {bad.start + 1} of the line is no UTF-8 text; "
            "write the log as UTF-8 (open(..., encoding='utf-8')); this line is not read, the others are"
        )
    at = getattr(exc, "pos", None)
    if type(at) is int and 0 <= at <= len(text):
        column = f"column {at + 1}"
        for token in _NOT_JSON_NUMBERS:
            start = at - 1 if token.startswith("-") and text[at - 1 : at] == "-" else at
            if text.startswith(token, start):
                return (
                    f"invalid JSON: {token} at {column} is not JSON (Python's json.dumps writes it by default): "
                    "write null for an unknown number, or json.dumps(..., allow_nan=False) to refuse it when writing"
                )
        stray = text[at:].lstrip(" \t")[:1]
        if stray and (stray < " " or stray == "\x7f"):
            return (
                f"invalid JSON: a control byte 0x{ord(stray):02x} ({_CONTROL_NAMES.get(stray, 'control character')}) "
                f"at {column}; JSON holds none outside a string (write it as \\u{ord(stray):04x} inside one): "
                "this line is not read, the others are (a NUL is often the padding of a file cut short by a crash)"
            )
    return f"invalid JSON ({exc})"


_NOT_JSON_NUMBERS = ("-Infinity", "Infinity", "NaN")
_CONTROL_NAMES = {"\x00": "NUL", "\x1a": "SUB, end-of-file mark", "\x1b": "ESC", "\x7f": "DEL"}


def _problem(path: str, line: int, reason: str, strict: bool, errors: list[EventLogCorruption] | None) -> None:
    corruption = EventLogCorruption(path, line, reason)
    if strict:
        raise EventLogIntegrityError(corruption)
    if errors is not None:
        errors.append(corruption)


def read_events(
    path: str | os.PathLike[str],
    *,
    strict: bool = True,
    errors: list[EventLogCorruption] | None = None,
    torn: list[int] | None = None,
    numbers: list[int] | None = None,
) -> list[dict[str, Any]]:
    """All events of one file. ``strict`` raises on a bad line; otherwise bad lines go to ``errors``.

    A path that is not a readable file of its run (a directory, no permission, a symlink out of
    the run's folder) raises ``UnreadableRunFile`` under ``strict``; otherwise it is one error
    (line 0: the whole file) and no events. ``torn`` receives the number of a torn last line
    (no newline, no JSON object) that was skipped: a line still being written, unless the run is
    sealed (``torn_line``). ``numbers`` receives the line number of each event returned.
    """
    path = Path(path)
    try:
        got = read_file(str(path), str(path.parent))
    except UnreadableRunFile as exc:
        return _unreadable(exc, strict, errors)
    if got is None:
        return []
    return parse_lines(got[0], str(path), strict=strict, errors=errors, torn=torn, numbers=numbers)


#: the fields the engine indexes and links a run's events by when it continues or decides it
LINK_FIELDS = ("id", "phase", "event_type", "caused_by")


def read_events_to_continue(
    path: str | os.PathLike[str], *, strict: bool = True, errors: list[EventLogCorruption] | None = None
) -> list[dict[str, Any]]:
    """The events of a run the engine continues or decides on: ``read_events``, and a line whose ``id``, ``phase``,
    ``event_type`` or ``caused_by`` is there but no text (a list, an object, a number) is a bad line too: the engine
    finds pauses, causes and checkpoints by those fields, so it never guesses from a damaged one."""
    numbers: list[int] = []
    events = read_events(path, strict=strict, errors=errors, numbers=numbers)
    kept = []
    for number, event in zip(numbers, events, strict=True):
        wrong = next((f for f in LINK_FIELDS if event.get(f) is not None and type(event[f]) is not str), None)
        if wrong is None:
            kept.append(event)
            continue
        _problem(
            str(path),
            number,
            f"{wrong} is a JSON {_json_kind(event[wrong])}, not text; restore the line from a copy of the run",
            strict,
            errors,
        )
    return kept


def torn_line(path: str | os.PathLike[str], torn: list[int]) -> EventLogCorruption:
    """The problem of a torn last line in the events file of a sealed run (nothing writes to it any more)."""
    return EventLogCorruption(str(path), torn[0], "the last line is cut off (no newline) although the run is sealed")


def read_run_events(
    path: str | os.PathLike[str], *, sealed: Callable[[], bool], errors: list[EventLogCorruption]
) -> list[dict[str, Any]]:
    """The events of a run's log read non-strictly, its bad lines in ``errors``; a torn last line only when it is damage.

    A torn last line is a line still being appended, unless the run is sealed (``sealed()``). A
    reader can read it half written and find the run sealed a moment later: the log is then read
    once more (a seal closes the log before its first file), and only a line still cut is reported.
    """
    torn: list[int] = []
    mark = len(errors)
    events = read_events(path, strict=False, errors=errors, torn=torn)
    if torn and sealed():
        del errors[mark:]
        torn.clear()
        events = read_events(path, strict=False, errors=errors, torn=torn)
        if torn:
            errors.append(torn_line(path, torn))
    return events


def _unreadable(exc: UnreadableRunFile, strict: bool, errors: list[EventLogCorruption] | None) -> list[dict[str, Any]]:
    if strict:
        raise exc
    if errors is not None:
        errors.append(EventLogCorruption(exc.path, 0, exc.reason))
    return []


def iter_events(
    path: str | os.PathLike[str], *, strict: bool = True, errors: list[EventLogCorruption] | None = None
) -> Iterator[dict[str, Any]]:
    """Stream events line by line (for very large logs); an unreadable file is handled as in ``read_events``."""
    path = Path(path)
    try:
        opened = open_file(str(path), str(path.parent))
    except UnreadableRunFile as exc:
        _unreadable(exc, strict, errors)
        return
    if opened is None:
        return
    with opened as fh:
        pending: bytes | None = None
        number = 0
        for raw in _bounded_lines(fh):
            if pending is not None:
                yield from _one(pending, str(path), number, strict, errors)
            number += 1
            if isinstance(raw, int):  # a line too long to hold: skipped, said
                _problem(str(path), number, f"{raw:,} bytes long, more than a streamed line is read at", strict, errors)
                pending = None
                continue
            pending = raw
        if pending is not None:
            if pending.endswith(b"\n"):
                yield from _one(pending, str(path), number, strict, errors)
            else:
                try:
                    value = orjson.loads(pending)
                except orjson.JSONDecodeError:
                    value = None
                if type(value) is dict:
                    yield from _one(pending, str(path), number, strict, errors)


#: the longest event line ``iter_events`` holds in memory (as a run document is read whole up to this)
STREAM_LINE_LIMIT = MAX_DOCUMENT_BYTES
_CHUNK = 1 << 20


def _bounded_lines(fh: Any) -> Iterator[bytes | int]:
    """The file's lines; a line past ``STREAM_LINE_LIMIT`` is read through in chunks and given as its length."""
    limit = STREAM_LINE_LIMIT
    while raw := fh.readline(min(limit, _CHUNK) + 1):
        if raw.endswith(b"\n") or len(raw) <= min(limit, _CHUNK):
            yield raw
            continue
        parts, size = [raw], len(raw)
        while size <= limit and not parts[-1].endswith(b"\n") and (more := fh.readline(_CHUNK)):
            parts.append(more)
            size += len(more)
        if size <= limit:
            yield b"".join(parts)
            continue
        last = parts[-1]
        del parts
        while not last.endswith(b"\n") and (last := fh.readline(_CHUNK)):
            size += len(last)
        yield size


def _one(raw: bytes, path: str, number: int, strict: bool, errors: list[EventLogCorruption] | None) -> Iterator[dict[str, Any]]:
    if not raw.strip():
        return
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        _problem(path, number, _bad_line(raw, number, exc), strict, errors)
        return
    if type(value) is not dict:
        _problem(path, number, f"a JSON {type(value).__name__}, not an object", strict, errors)
        return
    read = [value]
    check_texts([raw], read, lambda _, reason: _problem(path, number, reason, strict, errors))
    yield read[0]
