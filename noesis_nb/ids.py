"""Episode, event and checkpoint ids, and the check that makes an id safe to use as a path."""

from __future__ import annotations

import os
import random
import re
import uuid

from ulid import ULID

from ._safetext import unseen_said
from .errors import InvalidIdError
from .secrets.disguise import LOOK_ALIKES
from .secrets.guard import known_shown
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
    "RESERVED_NAMES",
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
#: the longest id a new run takes: its drafts are named ``draft:<episode id>:req_<26>``, at most 200 characters
MAX_NEW_EPISODE_ID = 160


def validate_new_episode_id(value: object) -> str:
    """``validate_id`` for the id of a run about to be made: not a folder the root keeps for itself, and short
    enough for the ids and file names made from it (a longer one made a run whose drafts could not be named)."""
    episode_id = validate_id(value)
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
    found = find_in_text(value, entropy=False)
    if named or not found:
        return bool(found)
    # a detector's match may hold the name's own separator (``=abc`` of ``token=abc``): judged without it
    return any(starts_like_key(v) or not _after_names(value, v.lstrip("=: ")) for v in found if v.strip("=: "))


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
    whole). Made only for a message: it costs a hundred times the checks."""
    return quoted(value, 60)


_LABEL_SEP = re.compile(r"[:=]")
_REDACTED_AFTER_LABEL = re.compile(r"[:=]" + re.escape(REDACTED_VALUE))


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
# it is refused. A hex or UUID id is not: some keys are written so
_ULID_ANY_CASE = r"(?:[A-Za-z]{1,8}_)?[0-7][0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{25}"
_ID_SHAPED = re.compile(rf"{_ULID_ANY_CASE}|draft:{_ULID_ANY_CASE}:{_ULID_ANY_CASE}")
_CROCKFORD = {"O": "0", "o": "0", "I": "1", "i": "1", "L": "1", "l": "1"}  # letters a ULID reads as digits


def _outside_message(value: str, what: str) -> str:
    """Why ``value`` is refused for a character outside the id's set: the first such character named (escaped, its
    code point and place) and one drawn like an ASCII letter said so (a Cyrillic ``О`` pasted for ``0``). The id is
    shown escaped only when every such character is drawn like an ASCII letter and, each set to that letter, it is
    a ULID-shaped id no detector finds a secret in (nor a run learned): a key with a no-break space or any other
    character pasted in is shown as ``quoted`` shows it, its key-like words hidden."""
    bad = _OUTSIDE.search(value)
    if bad is None:
        return f"{what} {_shown(value)} is over 200 characters; pass an id of at most 200 letters, digits and _.:@+=-"
    ch = bad.group()
    drawn = LOOK_ALIKES.get(ch)
    looks = f", drawn like the ASCII {drawn!r}" if drawn else ""
    return (
        f"{what} {ascii(value) if _id_as_read(value) else _shown(value)} has characters outside [A-Za-z0-9_.:@+=-]: "
        f"it {unseen_said(ch, bad.start())}{looks}; type it with ASCII letters, digits and _.:@+=- alone"
        + (" (copy it from %noesis list or runs_df().episode_id)" if what == "episode id" else "")
    )


def _id_as_read(value: str) -> bool:
    """Whether ``value``, each character outside the set drawn like an ASCII letter set to it (``O`` and ``I``/``L``
    read as ULIDs read them: ``0`` and ``1``), is a ULID-shaped id in which no detector finds a secret and no run
    learned one: then it is an id mistyped, shown escaped so the odd character can be found. A character drawn like
    no letter (a no-break space) says nothing of what the value was: that value is shown as any other is."""
    if any(LOOK_ALIKES.get(m.group()) is None for m in _OUTSIDE.finditer(value)):
        return False
    as_read = _OUTSIDE.sub(lambda m: _CROCKFORD.get(LOOK_ALIKES[m.group()], LOOK_ALIKES[m.group()]), value)
    if not _ID_SHAPED.fullmatch(as_read) or find_in_text(as_read) or holds_credential(as_read):
        return False
    return not any(known in value or known in as_read for known in known_shown())


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
        raise InvalidIdError(_outside_message(value, what))
    if holds_credential(value):  # stored redacted in the run's files, in clear in its file names
        raise InvalidIdError(_credential_message(value, what))
    if value[0] in ".-":  # a hidden folder no listing shows (and staging folders' form), or a word read as an option
        raise InvalidIdError(f"{what} {_shown(value)} starts with {value[0]!r}; start it with a letter, a digit or '_'")
    return value
