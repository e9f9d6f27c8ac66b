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
from typing import Any

from ..secrets.display import shown_cut

__all__ = ["JSONTextError", "loads_text"]


class JSONTextError(ValueError):
    """JSON text that cannot be read; ``reason`` says why in a few words (the caller names where)."""

    def __init__(self, reason: str):
        self.reason = reason
        super().__init__(reason)


class _DuplicateKey(Exception):
    """Raised inside the parser's object hook; carries the key written twice."""

    def __init__(self, key: str):
        self.key = key


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """One JSON object as a dict, or :class:`_DuplicateKey` when a key comes twice."""
    found = dict(pairs)
    if len(found) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
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
        raise JSONTextError(f"not JSON ({exc.msg} at {where})") from None
    except _DuplicateKey as exc:
        raise JSONTextError(
            f"ambiguous JSON (the key {shown_cut(repr(exc.key), 60)} comes twice in one object, and readers "
            "disagree on which value counts; the producer must write each key once)"
        ) from None
    except RecursionError:
        raise JSONTextError("JSON nested too deeply") from None
    except ValueError as exc:  # a number too long to convert (sys.get_int_max_str_digits) is no JSONDecodeError
        raise JSONTextError(f"a number in it is too long to read ({str(exc).split(':')[0]})") from None
