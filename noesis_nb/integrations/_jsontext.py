"""Another system's JSON text read as data, every way it can fail turned into one short reason.

``json.loads`` fails in more ways than ``JSONDecodeError``: nesting deeper than the parser
recurses is a ``RecursionError``, a number of over 4300 digits a plain ``ValueError``. A recorded
log may hold any of them; each reader names the line and adds this reason, never a raw traceback.
NaN and Infinity tokens are read (Python and JavaScript writers emit them). A key written twice in
one object is refused: readers disagree on which value counts (Python and JavaScript keep the last,
others the first), so ``{"type": "TEXT_MESSAGE_START", "type": "RUN_FINISHED"}`` would be one event
here and another in the producer's own tools.
"""

from __future__ import annotations

import json
import re
from typing import Any

from .._jsonkeys import repeated_key
from ..secrets.display import shown_cut

__all__ = ["JSONTextError", "loads_text"]


_LITERALS = ("true", "false", "null", "NaN", "Infinity", "-Infinity")
_NUMBER_TAIL = re.compile(r"\.|[eE][-+]?")  # what a number cut short leaves after the part the parser read
_ESCAPE_TAIL = re.compile(r"\\?u[0-9a-fA-F]{0,4}")  # a \uXXXX escape the text ends in (the parser wants more after it)


class JSONTextError(ValueError):
    """JSON text that cannot be read; ``reason`` says why in a few words (the caller names where).

    ``ends_early``: the text ends inside a value (more text would have made it JSON): a line cut short, or one
    still being written, rather than one that is whole but wrong. ``duplicate_key``: the key written twice in one
    object, when that is the reason (a reader that otherwise falls back to the raw text must refuse such JSON)."""

    def __init__(self, reason: str, *, ends_early: bool = False, duplicate_key: str | None = None):
        self.reason = reason
        self.ends_early = ends_early
        self.duplicate_key = duplicate_key
        super().__init__(reason)


def _ends_early(text: str, exc: json.JSONDecodeError) -> bool:
    """Whether the parser stopped because ``text`` ran out (an unexpected end of input), not at a wrong character."""
    rest = text[exc.pos :].rstrip(" \t\r\n")
    return (
        not rest
        or exc.msg.startswith("Unterminated string")
        or any(literal.startswith(rest) for literal in _LITERALS)
        or _NUMBER_TAIL.fullmatch(rest) is not None
        or (exc.msg.startswith("Invalid \\uXXXX escape") and _ESCAPE_TAIL.fullmatch(rest) is not None)
    )


class _DuplicateKey(Exception):
    """Raised inside the parser's object hook; carries the key written twice."""

    def __init__(self, key: str):
        self.key = key


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """One JSON object as a dict, or :class:`_DuplicateKey` when a key comes twice."""
    found = dict(pairs)
    if len(found) != len(pairs):
        raise _DuplicateKey(repeated_key(pairs) or "")
    return found


_DECODER = json.JSONDecoder(object_pairs_hook=_object)  # made once: ``json.loads`` with a hook makes one per call


def loads_text(text: str) -> Any:
    """``text`` parsed, or :class:`JSONTextError` with the reason."""
    try:
        if text.startswith("\ufeff"):  # json.loads' own refusal of a byte-order mark, said as it says it
            return json.loads(text, object_pairs_hook=_object)
        return _DECODER.decode(text)
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno}, column {exc.colno}" if "\n" in text else f"column {exc.colno}"  # a document's line
        said = exc.msg.removesuffix(" at")  # "Unterminated string starting at" names its place itself
        raise JSONTextError(f"not JSON ({said} at {where})", ends_early=_ends_early(text, exc)) from None
    except _DuplicateKey as exc:
        raise JSONTextError(
            f"ambiguous JSON (the key {shown_cut(repr(exc.key), 60)} comes twice in one object, and readers "
            "disagree on which value counts; the producer must write each key once)",
            duplicate_key=exc.key,
        ) from None
    except RecursionError:
        raise JSONTextError("JSON nested too deeply") from None
    except ValueError as exc:  # a number too long to convert (sys.get_int_max_str_digits) is no JSONDecodeError
        raise JSONTextError(f"a number in it is too long to read ({str(exc).split(':')[0]})") from None
