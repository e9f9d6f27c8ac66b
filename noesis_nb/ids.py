"""Episode, event and checkpoint ids, and the check that makes an id safe to use as a path."""

from __future__ import annotations

import os
import random
import re
import unicodedata
import uuid

from ulid import ULID

from ._safetext import unseen_said
from .errors import InvalidIdError
from .secrets.disguise import LOOK_ALIKES
from .secrets.display import shown
from .secrets.guard import known_shown
from .secrets.hiddenparts import hidden_pieces
from .secrets.names import REDACTED_VALUE
from .secrets.quoted import quoted, starts_like_key
from .secrets.text import find_in_text

__all__ = [
    "new_episode_id",
    "new_event_id",
    "new_checkpoint_id",
    "validate_id",
    "validate_new_episode_id",
    "holds_credential",
    "at_labels_hidden",
    "hidden_spans",
    "redacted_at",
    "ascii_reading",
    "look_alike_said",
    "ascii_slips",
    "read_as_digits",
    "first_outside",
    "outside_message",
    "RESERVED_NAMES",
    "WINDOWS_RESERVED",
    "MAX_NEW_EPISODE_ID",
]

_VARIANT = "89ab"
_rng = random.Random(os.urandom(32))  # private: a user's random.seed() must not repeat our ids
os.register_at_fork(after_in_child=lambda: _rng.seed(os.urandom(32)))
_SAFE = re.compile(r"[A-Za-z0-9_.:@+=-]{1,200}")  # whole value (fullmatch: "$" would let a final "\n" in)
# the ids minted here and by the systems runs come from (a ULID behind ``ep_``/``req_``/``batch_``, ``chk_`` and hex,
# AG-UI's and LangGraph's UUIDs, trace ids in hex, a draft id made of two of them): no detector finds a credential in
# one (a test holds them to that), so the common id is cleared without the detectors
_ULID = r"[0-7][0-9A-HJKMNP-TV-Z]{25}"
_UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
_ONE = rf"(?:(?:ep|req|batch|chk|run|thread|trace|span)[_-])?(?:{_ULID}|{_UUID}|[0-9a-f]{{12,64}})"
_MINTED = re.compile(rf"{_ONE}|draft:{_ONE}:{_ONE}")
MINTED = _MINTED  #: ``is_minted`` as a pattern, for loops that must not pay a Python call an id


def new_episode_id() -> str:
    """``ep_`` + a 26-character ULID, as current Noēsis writes (sortable by start time)."""
    return f"ep_{ULID()}"


def new_event_id() -> str:
    """A random (version 4) UUID string; formatted by hand because ``uuid.uuid4()`` is the hot path's slowest step."""
    h = f"{_rng.getrandbits(128):032x}"
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{_VARIANT[int(h[16], 16) & 3]}{h[17:20]}-{h[20:]}"


def new_checkpoint_id() -> str:
    return f"chk_{uuid.uuid4().hex[:12]}"


#: folders a runs root holds beside its runs (``batch(...)`` records under ``batches/``): no run may take them
RESERVED_NAMES = frozenset({"batches"})
#: names Windows keeps for devices, whatever follows their first dot ("NUL.txt"): no folder of a copy of the root there
#: can take them (compared case-insensitively, as Windows does). Microsoft's list: COM0-COM9 and LPT0-LPT9, and the
#: superscript digits ¹ ² ³ after COM and LPT
WINDOWS_RESERVED = frozenset(
    {"con", "prn", "aux", "nul"} | {f"{port}{n}" for port in ("com", "lpt") for n in (*"0123456789", "¹", "²", "³")}
)
#: the longest id a new run takes: its drafts are named ``draft:<episode id>:req_<26>``, at most 200 characters
MAX_NEW_EPISODE_ID = 160


def validate_new_episode_id(value: object) -> str:
    """``validate_id`` for the id of a run about to be made: not a folder the root keeps for itself, a name a copy
    of the root on Windows can hold (no device name such as ``CON`` or ``nul.txt``, no final dot), and short enough
    for the ids and file names made from it (a longer one made a run whose drafts could not be named). A run read
    (not made) keeps any such name: only new ones are refused. The root's other runs are compared by case when the
    run is made (``Recorder.create``)."""
    episode_id = validate_new_id(value)
    if episode_id.casefold() in RESERVED_NAMES:
        raise InvalidIdError(
            f"episode id {quoted(episode_id)} is the name of a folder the runs root keeps for batch records; "
            "pick another id (or leave episode_id out for a new one)"
        )
    if len(episode_id) > MAX_NEW_EPISODE_ID:
        raise InvalidIdError(
            f"episode id {quoted(episode_id, 60)} is {len(episode_id)} characters long; a new run's id is at most "
            f"{MAX_NEW_EPISODE_ID} (its drafts are named from it): shorten it, or leave episode_id out for a new one"
        )
    return episode_id


def validate_new_id(value: object, *, what: str = "episode id") -> str:
    """``validate_id`` for an id about to name a new folder or file (a run's, a batch record's): the one rule of every
    such id. Not a value a run of this process learned or its environment holds as a secret (``known_shown``: an
    ``ep-$API_KEY`` would be a folder's name in clear, quoted in every file of the run, while those files redact that
    value everywhere else), and a name a copy of the root on Windows can hold (no device name such as ``CON`` or
    ``nul.txt``, no final dot). An id read (not made) keeps any such name: only new ones are refused."""
    # the way out each kind of id has besides another name: one made for it (an id of another kind: none)
    made = {"episode id": "leave episode_id out for a new one", "batch id": "leave batch_id out for a new one"}.get(what)
    new_id = validate_id(value, what=what)
    if any(known and known in new_id for known in known_shown()):
        raise InvalidIdError(
            f"{what} {_shown(new_id)} holds a secret this process knows (its environment holds it, or a run learned "
            f"it): the id would name a folder or file in clear while run files store that value redacted; pick an id "
            "without it" + (f" ({made})" if made else "")
        )
    if ":" in new_id:
        raise InvalidIdError(
            f"{what} {_shown(new_id)} holds ':', which Windows reads in a file name as the start of a data stream (a "
            "copy of the runs root there, a zip unpacked, could not hold its folder or file): write '-' or '_' in its "
            f"place (e.g. {_shown(new_id.replace(':', '-'))})" + (f", or {made}" if made else "")
        )
    stem = new_id.split(".", 1)[0]
    if stem.casefold() in WINDOWS_RESERVED:
        prefix = "ep_" if what == "episode id" else "batch_" if what == "batch id" else "id_"
        raise InvalidIdError(
            f"{what} {quoted(new_id)} is a device name on Windows ({stem.upper()}, whatever follows a dot): a copy of "
            "the runs root there (a zip unpacked, a shared drive) could not hold its folder or file; pick another id "
            f"(e.g. {quoted(prefix + new_id.replace('.', '_'))})" + (f", or {made}" if made else "")
        )
    if new_id.endswith("."):
        raise InvalidIdError(
            f"{what} {quoted(new_id)} ends with '.', which Windows drops from a folder's name (its copy would be named "
            f"{quoted(new_id.rstrip('.'))}); end it with a letter, a digit or '_'" + (f", or {made}" if made else "")
        )
    return new_id


def is_minted(value: str) -> bool:
    """Whether ``value`` is an id as this package and its peers mint them (a ULID, a UUID, a hex digest, with an
    ``ep_``-like prefix, or a draft id of those): an id, never a secret, kept whole without asking a detector."""
    return _MINTED.fullmatch(value) is not None


def holds_credential(value: str, *, named: bool = True) -> bool:
    """Whether ``value`` holds, anywhere in it, what run files store redacted: a credential of a known format
    (``ghp_…``, ``AKIA…``, ``sk-proj-…``, a JWT) or a secret-named ``name=value``. An id holding one would name its
    folder and files in clear while its records said ``[REDACTED]``: a run no decision or resume could find again.

    ``named=False``: not the value after a name (an idempotency key ``reset-password:user-42`` names an action and
    a user), unless it starts like a key of a known format."""
    if _MINTED.fullmatch(value) is not None:
        return False
    labelled = _at_as_label(value)
    found = find_in_text(labelled, entropy=False)
    if named or not found:
        return bool(found)
    # a detector's match may hold the name's own separator (``=abc`` of ``token=abc``): judged without it
    return any(starts_like_key(v) or not _after_names(labelled, v.lstrip("=: ")) for v in found if v.strip("=: "))


def _at_as_label(value: str) -> str:
    """``value`` with each ``@`` read as a label's ``=``: in an id, ``db_password@hunter2`` names a value as
    ``db_password=hunter2`` does (no detector of free text reads ``@`` so: ``user@host`` is no label there)."""
    return value.replace("@", "=") if "@" in value else value


def at_labels_hidden(text: str, shown_text: str) -> str:
    """``shown_text`` (``text`` as ``secrets.shown`` shows it: ``[REDACTED]`` for each piece hidden) with each value
    an id names after a secret name and ``@`` hidden too (``ep_db_password@hunter2``, as ``ep_db_password=hunter2``
    is): ``text`` itself when there is none, and ``shown_text`` when it cannot be read as ``text``'s pieces."""
    labelled = _at_as_label(text)
    if labelled is text:
        return shown_text
    spans = _hidden_spans(text, shown_text) if shown_text != text else []
    as_label = shown(labelled)
    more = _hidden_spans(labelled, as_label) if as_label != labelled else []
    if spans is None or not more:
        return shown_text
    return redacted_at(text, [*spans, *more])


def redacted_at(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` with each of ``spans`` (``(start, end)``, overlapping ones merged) as ``[REDACTED]``."""
    out, at = [], 0
    for start, end in _merged(spans):
        out += [text[at:start], REDACTED_VALUE]
        at = end
    return "".join([*out, text[at:]])


def hidden_spans(text: str, shown_text: str) -> list[tuple[int, int]] | None:
    """Where in ``text`` each ``[REDACTED]`` of ``shown_text`` stands, or None when ``shown_text`` is not ``text``
    with pieces replaced."""
    return _hidden_spans(text, shown_text)


def _hidden_spans(text: str, shown_text: str) -> list[tuple[int, int]] | None:
    """Where in ``text`` each ``[REDACTED]`` of ``shown_text`` stands, or None when ``shown_text`` is not ``text``
    with pieces replaced."""
    kept = shown_text.split(REDACTED_VALUE)
    if REDACTED_VALUE in text or len(kept) < 2:
        return None
    pieces = hidden_pieces(text, kept)
    if pieces is None:
        return None
    spans, at = [], len(kept[0])
    for piece, part in zip(pieces, kept[1:]):
        spans.append((at, at + len(piece)))
        at += len(piece) + len(part)
    return spans


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def _after_names(value: str, part: str) -> bool:
    """Whether every place ``part`` stands in ``value`` follows a name's ``=`` or ``:``."""
    at = value.find(part)
    while at >= 0:
        if at == 0 or value[at - 1] not in "=:":
            return False
        at = value.find(part, at + 1)
    return True


def _path_like(value: str) -> str:
    """What makes ``value`` read as a path rather than an id (``""`` when nothing does)."""
    if "/" in value or "\\" in value:
        return "contains a path separator"
    if "\x00" in value:
        return "contains a NUL character, which no file name can hold"
    if ".." in value:
        return "contains '..'"
    if value == ".":
        return "is '.', which names the current folder in a path"
    if value == "~":
        return "is '~', which names the home folder in a path"
    return ""


def _shown(value: str) -> str:
    """``value`` as an error names it: redacted, then cut (a key given as an id is not quoted back, in part or
    whole; a value after a secret name and ``@`` neither). Made only for a message: it costs a hundred times the
    checks."""
    hidden = at_labels_hidden(value, shown(value))
    return quoted(value, 60) if hidden == shown(value) else quoted(hidden, 60)


_LABEL_SEP = re.compile(r"[:=@]")
_REDACTED_AFTER_LABEL = re.compile(r"[:=@]" + re.escape(REDACTED_VALUE))


def _credential_message(value: str, what: str) -> str:
    """Why ``value`` (an id that ``holds_credential``) is refused, and an id to pick instead. A token of a known format
    is named as one; an id that is a secret-sounding name and a value (``auth:smoke-test``, ``secret:santa``) reads
    as a credential given to that name, as ``password: hunter2`` does, so the run's records would store its value
    redacted (``auth:[REDACTED]``): the message says so, and offers the id with ``-`` for its separator (``auth-…``:
    ``auth-smoke-test``, its value not repeated) when that reads as no credential."""
    fix = "leave episode_id out for a new one" if what == "episode id" else "use an id of your own"
    if holds_credential(value, named=False):  # a token of a known format, not a value after a name
        return (
            f"{what} {_shown(value)} holds what looks like a credential (a token or a password); ids name folders and "
            f"files and are written in run files, where a credential is stored redacted: pick an id without it ({fix})"
        )
    shown = _shown(value)
    other = _LABEL_SEP.sub("-", value)
    # the id with '-' for the label's separator, its value left out (it may be a password): ``'auth-…'``
    hint = _REDACTED_AFTER_LABEL.sub("-…", shown, count=1)
    ok = hint != shown and _SAFE.fullmatch(other) and other[0] not in ".-" and not holds_credential(other)
    example = f", e.g. {hint} (a '-' for its separator)" if ok else ""
    return (
        f"{what} {shown} reads as a credential label and its value ('name:value' or 'name=value' with a "
        "secret-sounding name, as 'password: hunter2' does): run files store that value redacted, as shown here, "
        f"while the id names folders and files in clear; pick an id without a secret-sounding label{example} ({fix})"
    )


_OUTSIDE = re.compile(r"[^A-Za-z0-9_.:@+=-]")
# an id minted by a ULID (``ep_01K…``, in any case, a draft id of two), which no key is: shown when a character in
# it is refused. A bare hex or UUID id is not (some keys are written so); one behind a minted prefix (``ep_<hex>``) is
_ULID_ANY_CASE = r"(?:[A-Za-z]{1,8}_)?[0-7][0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{25}"
_ID_SHAPED = re.compile(rf"{_ULID_ANY_CASE}|draft:{_ULID_ANY_CASE}:{_ULID_ANY_CASE}")
_PREFIXED = re.compile(r"(?:ep|req|batch|chk|run|thread|trace|span)[_-]")
_CROCKFORD = {"O": "0", "o": "0", "I": "1", "i": "1", "L": "1", "l": "1"}  # letters a ULID reads as digits


def ascii_reading(ch: str) -> str | None:
    """The ASCII character of an id that ``ch`` is read as: a letter of another script drawn as a Latin one (the Greek
    ``Α``, the Cyrillic ``о``: ``LOOK_ALIKES``) or a compatibility form of one (the full-width ``ｅ`` and ``＿`` of an
    East Asian input mode, ``𝐞``); None for any other character."""
    drawn = LOOK_ALIKES.get(ch)
    if drawn is not None:
        return drawn
    form = unicodedata.normalize("NFKC", ch)
    return form if form != ch and len(form) == 1 and _SAFE.fullmatch(form) else None


def read_as_digits(value: str) -> str:
    """``value`` with each letter a ULID reads as a digit (``O``/``o`` as ``0``; ``I``, ``i``, ``L``, ``l`` as ``1``)
    written as that digit: two ids equal so read differ only by such slips (``ep_O1M…`` typed for ``ep_01M…``)."""
    return value.translate(_AS_DIGITS)


_AS_DIGITS = str.maketrans(_CROCKFORD)


def ascii_slips(typed: str, real: str) -> str | None:
    """How ``typed`` differs from the id ``real`` when only by ASCII look-alikes a ULID reads alike (the letter
    ``O`` for the digit ``0``, ``l`` or ``I`` for ``1``): ``the letter 'O' at character 4 where the id has the digit
    '0'``; None when they differ otherwise (or not at all)."""
    if typed == real or len(typed) != len(real) or read_as_digits(typed) != read_as_digits(real):
        return None

    def kind(ch: str) -> str:
        return "the digit" if ch.isdigit() else "the letter"

    slips = [
        f"{kind(a)} {a!r} at character {i + 1} where the id has {kind(b)} {b!r}"
        for i, (a, b) in enumerate(zip(typed, real))
        if a != b
    ]
    return "; ".join(slips)


def look_alike_said(ch: str) -> str:
    """What ``ch`` is read as, after ``unseen_said``'s naming of it, and the fix: ``, drawn like the ASCII 'A'; type
    the Latin letter 'A' in its place`` (a full-width ``ｅ``: its full-width form, typed in an input mode); "" for a
    character ``ascii_reading`` reads as no ASCII one."""
    said = _read_as(ch)
    return f"{said[0]}; {said[1]}" if said else ""


def _read_as(ch: str) -> tuple[str, str] | None:
    """``(what ch reads as, the fix)`` for a character ``ascii_reading`` reads as an ASCII one, else None."""
    reading = ascii_reading(ch)
    if reading is None:
        return None
    kind = "Latin letter" if reading.isalpha() else "digit" if reading.isdigit() else "ASCII character"
    if ch in LOOK_ALIKES:
        return f", drawn like the ASCII {reading!r}", f"type the {kind} {reading!r} in its place"
    if unicodedata.name(ch, "").startswith("FULLWIDTH"):
        return (
            f", the full-width form of the ASCII {reading!r} (a full-width input mode types it)",
            f"type it in half-width ASCII, the {kind} {reading!r} in its place",
        )
    return f", a styled form of the ASCII {reading!r}", f"type the plain {kind} {reading!r} in its place"


def first_outside(value: str) -> tuple[str, int] | None:
    """The first character of ``value`` no id holds (outside ``[A-Za-z0-9_.:@+=-]``) and its place; None when none."""
    bad = _OUTSIDE.search(value)
    return None if bad is None else (bad.group(), bad.start())


def outside_message(value: str, what: str, copy_from: str = "") -> str:
    """Why ``value`` is refused for a character outside the id's set: the first such character named (escaped, its
    code point and place), what it reads as when it is drawn like an ASCII one (a Cyrillic ``О`` pasted for ``0``, a
    full-width ``ｅ``), how many more there are, and the fix. The id is shown escaped, with the id it reads as, only
    when ``_id_as_read`` finds it an id mistyped; a key with a no-break space or any other character pasted in is
    shown as ``quoted`` shows it, its key-like words hidden, and never as it reads."""
    bad = _OUTSIDE.search(value)
    if bad is None:
        return f"{what} {_shown(value)} is over 200 characters; pass an id of at most 200 letters, digits and _.:@+=-"
    ch = bad.group()
    others = len(_OUTSIDE.findall(value)) - 1
    more = f" (and {others} more character{'s' if others > 1 else ''} outside the set after it)" if others else ""
    minted = _id_as_read(value)
    meant = minted or _plain_reading(value)
    read_as = _read_as(ch)
    if meant:
        fix = f"type it in ASCII: {meant!r}"
    elif read_as is not None:
        fix = read_as[1] + (" and each like it" if others else "")
    else:
        fix = "type it with ASCII letters, digits and _.:@+=- alone"
    if what == "episode id" and not copy_from:
        copy_from = "%noesis list or runs_df().episode_id"
    return (
        f"{what} {ascii(value) if minted else _shown(value)} has characters outside [A-Za-z0-9_.:@+=-]: "
        f"it {unseen_said(ch, bad.start())}{read_as[0] if read_as else ''}{more}; {fix}"
        + (f" (copy it from {copy_from})" if copy_from else "")
    )


def _plain_reading(value: str) -> str:
    """``value`` as read in ASCII (``ascii_reading``) when both are shown whole (``quoted`` hides nothing of either)
    and that reading is an id no detector finds a secret in and no run learned: ``'ep_123'`` for ``'ｅｐ＿１２３'``;
    else ""."""
    if any(ascii_reading(m.group()) is None for m in _OUTSIDE.finditer(value)):
        return ""
    as_read = _OUTSIDE.sub(lambda m: ascii_reading(m.group()) or "", value)
    if (
        not _SAFE.fullmatch(as_read)
        or as_read[0] in ".-"
        or quoted(value, 60) != repr(value)
        or quoted(as_read, 60) != repr(as_read)
    ):
        return ""
    if find_in_text(as_read) or holds_credential(as_read):
        return ""
    return "" if any(known in value or known in as_read for known in known_shown()) else as_read


def _id_as_read(value: str) -> str:
    """``value`` as read in ASCII, each character outside the set drawn like an ASCII one set to it (``ascii_reading``),
    when that is an id no detector finds a secret in and no run learned one: a ULID-shaped id (``O`` and ``I``/``L``
    read as ULIDs read them, ``0`` and ``1``), or a minted one behind its prefix (``ep_<hex>``). Then it is an id
    mistyped, shown so that the odd character can be found; else "". A character drawn like no ASCII one (a
    no-break space) says nothing of what the value was: that value is shown as any other is."""
    readings = [ascii_reading(m.group()) for m in _OUTSIDE.finditer(value)]
    if not readings or None in readings:
        return ""
    as_read = _OUTSIDE.sub(lambda m: ascii_reading(m.group()) or "", value)
    as_ulid = _OUTSIDE.sub(lambda m: _CROCKFORD.get(ascii_reading(m.group()) or "", ascii_reading(m.group()) or ""), value)
    if _ID_SHAPED.fullmatch(as_ulid) and not find_in_text(as_ulid) and not holds_credential(as_ulid):
        meant = as_ulid
    elif _PREFIXED.match(as_read) and _MINTED.fullmatch(as_read):  # cleared as ``holds_credential`` clears it
        meant = as_read
    else:
        return ""
    return "" if any(known in value or known in meant for known in known_shown()) else meant


def validate_id(value: object, *, what: str = "episode id") -> str:
    """Return ``value`` if it is a non-empty id without path separators or ``..``; else raise."""
    if not isinstance(value, str) or not value:
        raise InvalidIdError(f"{what} must be a non-empty string, got {quoted(value)}")
    problem = _path_like(value)
    if problem:
        hint = "(e.g. 'ep_01K9...') or the run directory as a Path" if what == "episode id" else "(letters, digits and _.:@+=-)"
        raise InvalidIdError(f"{what} {quoted(value)} {problem}; pass the bare id {hint}")
    if REDACTED_VALUE in value:  # read back from a run file that stores its run's id redacted (a run made elsewhere)
        raise InvalidIdError(
            f"{what} {_shown(value)} is an id stored redacted ({REDACTED_VALUE} stands where a credential was): it names no "
            "folder or file; name the run by its folder (the run directory as a Path)"
        )
    if not _SAFE.fullmatch(value):
        if value != value.strip() and _SAFE.fullmatch(value.strip()):  # pasted with a space or a line end around it
            raise InvalidIdError(f"{what} {_shown(value)} has white space around it; pass {quoted(value.strip(), 60)}")
        raise InvalidIdError(outside_message(value, what))
    if holds_credential(value):  # stored redacted in the run's files, in clear in its file names
        raise InvalidIdError(_credential_message(value, what))
    if value[0] in ".-":  # a hidden folder no listing shows (and staging folders' form), or a word read as an option
        raise InvalidIdError(f"{what} {_shown(value)} starts with {value[0]!r}; start it with a letter, a digit or '_'")
    return value
