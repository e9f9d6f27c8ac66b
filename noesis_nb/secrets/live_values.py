"""Where a value a run learned could start at the end of a streamed text (``LiveText`` holds back from there).

A learned value may hold characters no key alphabet has (a password with a space or a quote), and in JSON
text (a tool call's arguments) it stands escaped (``pa\\"ss``): its first characters at the end of a
piece say nothing about the characters to come. ``ValuePrefixes`` indexes every start of every value, as
written and JSON-escaped (non-ASCII as it is, or as ``\\uXXXX``), so a text's end that may be one is found
in one pass over that end.
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Iterable
from functools import cached_property

import orjson

from .known import Known

__all__ = ["ValuePrefixes", "json_escaped"]

_LONGEST = 512  # characters of a value indexed: a longer value's start is held back for its first 512 only


def json_escaped(value: str, *, ascii_only: bool = False) -> str:
    """``value`` as it stands inside a JSON string: quotes, backslashes and control characters escaped, and with
    ``ascii_only`` every character past ASCII too (``\u00f6``, as Python's ``json.dumps`` writes by default)."""
    return json.dumps(value)[1:-1] if ascii_only else orjson.dumps(value).decode()[1:-1]


class ValuePrefixes:
    """The proper prefixes of some values (and of their JSON-escaped forms); :meth:`open_start` reads a text's end."""

    def __init__(self, values: Iterable[str]) -> None:
        forms = {
            form[:_LONGEST]
            for value in values
            for form in (value, json_escaped(value), json_escaped(value, ascii_only=True))
            if form
        }
        self.forms = tuple(sorted(forms, key=len, reverse=True))
        # the forms in order: the forms a text starts are next to where it would sort (memory: the forms alone,
        # where a set of every prefix held ~L²/2 characters per value, ~400 KB for one of 512 characters)
        self._sorted = sorted(forms)
        self._firsts = frozenset(form[0] for form in forms)
        self._longest = max(map(len, forms), default=0)

    @cached_property
    def known(self) -> Known:
        """The forms, found in a text in one pass however many there are (``LiveText`` redacts them)."""
        return Known(self.forms)

    def open_start(self, text: str) -> int:
        """The first index from which the rest of ``text`` could be the start of a value (not yet all of it);
        ``len(text)`` when there is none."""
        end = len(text)
        for at in range(max(0, end - self._longest + 1), end):
            if text[at] in self._firsts and self._begins_longer(text[at:]):
                return at
        return end

    def _begins_longer(self, start: str) -> bool:
        """Whether some form is longer than ``start`` and begins with it (the first form sorting after it, if any)."""
        forms = self._sorted
        i = bisect.bisect_right(forms, start)  # a form equal to ``start`` is all of it: not a proper prefix
        return i < len(forms) and forms[i].startswith(start)
