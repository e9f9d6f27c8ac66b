"""What a view may display: text with every secret this process knows (its runs learned, its environment holds,
``environ``) or can detect redacted."""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar, overload

import orjson

from .environ import environ_secrets
from .exact import exact
from .guard import RunSecrets, known_shown, run_ids, runs_version, scrub_text
from .known import Known, for_text
from .names import REDACTED_VALUE
from .scan import outside_kept, replaced_around
from .text import find_in_text, might_contain

__all__ = [
    "SCAN_MARGIN",
    "shown",
    "shown_known",
    "shown_start",
    "shown_cut",
    "shown_repr",
    "environ_hidden",
    "made_here",
    "public_run_ids",
    "public_runs_version",
]

SCAN_MARGIN = 8192  # longer than any secret a detector finds or a person hands over


_T = TypeVar("_T")
_KNOWN: tuple[tuple[str, ...], Known] = ((), Known())  # the last ``known_shown()`` and its compiled ``Known``


def shown_known() -> Known:
    """``known_shown()`` compiled once: what every view searches a text for. Kept while those values are the same
    tuple, and extended by a level when runs learn more (``Known.plus``): searched value by value, or compiled again
    for each text, a short text cost work per value every run of the process had learned (512 runs' values)."""
    global _KNOWN
    values, known = _KNOWN
    now = known_shown()
    if now is values:
        return known
    known = known.plus(now) if known.values.issubset(now) else Known(now)
    _KNOWN = (now, known)
    return known


_MADE: set[str] = set()  # the ids of the runs this process made (``made_here``)
_MADE_VERSION = 0
_PUBLIC: tuple[tuple[int, tuple[str, ...]], list[str]] = ((-1, ()), [])  # the last ``public_run_ids`` and its key


def made_here(episode_id: str) -> None:
    """Note the id of a run this process made, checked as every new id is (``ids.validate_new_id``): a public name,
    kept whole where a view quotes it (``public_run_ids``)."""
    global _MADE_VERSION
    if episode_id not in _MADE:
        _MADE.add(episode_id)
        _MADE_VERSION += 1


def public_runs_version() -> int:
    """A number that changes whenever ``public_run_ids`` may have (a run registered or made, another forgotten)."""
    return runs_version() + _MADE_VERSION


def public_run_ids() -> list[str]:
    """The ids of this process's runs that are public, kept whole where a view quotes them (``api_key-…`` reads as a
    label and its value, and is the folder's name): those of runs this process made (``made_here``), holding no value
    known now. A run only read from disk (``show``, ``approve_draft``, ``resume_run`` of a folder copied in) is no
    name this process chose or checked: a folder named with a credential stays shown redacted, as a new process
    shows it, whatever was done with it here."""
    global _PUBLIC
    key = (public_runs_version(), known_shown())
    last_key, last = _PUBLIC
    if last_key[0] == key[0] and last_key[1] is key[1]:
        return last
    known = shown_known()
    ids = [i for i in run_ids() if i in _MADE and not (known.levels and scrub_text(i, known) != i)]
    _PUBLIC = (key, ids)
    return ids


@overload
def shown(text: str) -> str: ...
@overload
def shown(text: _T) -> _T: ...
def shown(text: object) -> object:
    """``text`` safe to display: every value a run of this process learned, and every secret found in it, redacted.

    Anything that is not a string (None, a number) is returned as it is.
    """
    if not isinstance(text, str):
        return text
    if type(text) is not str:  # a subclass's own methods could hide what a view writes of it
        text = exact(text)
    if not text:
        return text
    known = shown_known()  # (and the environment's secrets)
    if known.levels:
        text = scrub_text(text, known)
    if might_contain(text.encode("utf-8", "replace")):
        found = find_in_text(text)
        ids = [i for i in public_run_ids() if i in text] if found else []
        if ids:  # a run's own id (``api_key-…`` reads as a label and its value) is its folder's name: kept whole
            return replaced_around(text, outside_kept(text, found, ids), ids)
        text = for_text(text, found).replaced(text, REDACTED_VALUE)
    return text


def shown_start(text: str, limit: int) -> str:
    """``shown(text)`` for a view that keeps only its first ``limit`` characters.

    Only those and ``SCAN_MARGIN`` more are scanned: a secret that starts in the kept part ends in
    the scanned one, and a 200 MB line is not searched for minutes to show a few thousand characters.
    """
    return shown(exact(text)[: limit + SCAN_MARGIN] if isinstance(text, str) else text)


def shown_cut(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, redacted before it is cut: a cut through a secret would leave
    its head, which no detector recognises once its tail is gone. A ``[REDACTED]`` the cut falls in is kept whole."""
    out = shown_start(text, limit)
    if len(out) <= limit:
        return out
    size = len(REDACTED_VALUE)
    marker = out.find(REDACTED_VALUE, max(0, limit - size + 1), limit + size - 1)
    return out[: marker + size] if 0 <= marker < limit else out[:limit]


def shown_repr(obj: Any) -> str:
    """The dataclass repr of ``obj`` (its ``repr=True`` fields), ``shown``: what a cell ending with a
    ``Decision`` or a ``Steer`` prints into the notebook holds what was typed, minus its secrets."""
    parts = ", ".join(f"{f.name}={getattr(obj, f.name)!r}" for f in dataclasses.fields(obj) if f.repr)
    return shown(f"{type(obj).__name__}({parts})")


_ENVIRON: tuple[frozenset[str], RunSecrets] = (frozenset(), RunSecrets())
# rows of a column tested in one JSON text: few enough that its containers stay under the walk's budget (10,000, past
# which the check holds everything and each row was scrubbed, ~3x slower), many enough that a text costs little
_SLICE = 512


def environ_hidden(values: list[Any]) -> list[Any] | None:
    """``values`` (a frame's column: texts, JSON values) with the secrets of this process's environment hidden, or
    None when they hold none (one JSON pass over each slice of ``_SLICE`` rows; a slice that may hold one has its
    values scrubbed one by one). A run noesis_nb screened as it wrote it is read as it is, but the process that
    wrote it may not have held the variables this one holds: a frame hides those as ``shown`` does (through the same
    hunt a run makes of them, ``RunSecrets``)."""
    global _ENVIRON
    env = environ_secrets()
    if not env:
        return None
    if _ENVIRON[0] is not env:
        guard = RunSecrets()
        guard.learn_environ(env)
        _ENVIRON = (env, guard)
    guard = _ENVIRON[1]
    if not guard.values:
        return None
    out = list(values)
    for start in range(0, len(values), _SLICE):
        part = values[start : start + _SLICE]
        try:
            blob = orjson.dumps(part, default=str)
        except (TypeError, orjson.JSONEncodeError):  # a key that is no text: each value scrubbed
            blob = None
        if blob is None or guard._holds(blob):
            out[start : start + _SLICE] = [guard.scrub(value) for value in part]
    return out if any(a is not b for a, b in zip(out, values)) else None
