"""Another system's JSON text read as data, every way it can fail turned into one short reason.

``json.loads`` fails in more ways than ``JSONDecodeError``: nesting deeper than the parser
recurses is a ``RecursionError``, a number of over 4300 digits a plain ``ValueError``. A recorded
log may hold any of them; each reader names the line and adds this reason, never a raw traceback.
NaN and Infinity tokens are read (Python and JavaScript writers emit them).
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["JSONTextError", "loads_text"]


class JSONTextError(ValueError):
    """JSON text that cannot be read; ``reason`` says why in a few words (the caller names where)."""

    def __init__(self, reason: str):
        self.reason = reason
        super().__init__(reason)


def loads_text(text: str) -> Any:
    """``text`` parsed, or :class:`JSONTextError` with the reason."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno}, column {exc.colno}" if "\n" in text else f"column {exc.colno}"  # a document's line
        raise JSONTextError(f"not JSON ({exc.msg} at {where})") from None
    except RecursionError:
        raise JSONTextError("JSON nested too deeply") from None
    except ValueError as exc:  # a number too long to convert (sys.get_int_max_str_digits) is no JSONDecodeError
        raise JSONTextError(f"a number in it is too long to read ({str(exc).split(':')[0]})") from None
