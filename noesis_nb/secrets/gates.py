"""Cheap tests in front of the detectors' patterns: a pattern is tried only where a match of it can start.

Most detectors' patterns hold a literal every match needs (``sk-``, ``-us``, a keyword such as ``token``), at a
bounded distance from where the match starts. The regex engine skips ahead to a pattern's literal start by itself,
but not when the pattern opens with a look-behind, a word boundary, a class or is case-insensitive: it then tries
every place of the text (some 5-50 ns a character each, over a hundred patterns). A ``Gate`` finds the literals with
literal searches (a pass each at memory speed) and tries its pattern at the few places before each occurrence that
a match could start at, in order: the matches are those of the pattern's own ``finditer`` (it never starts
elsewhere), found from far fewer places. A text dense in the literals is handed to the pattern itself past a budget
of places tried, from where the gate got to.

``unfiltered()`` turns every gate off (each pattern reads every text): the reference the tests and the benchmark
compare the screen with.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from functools import lru_cache
from typing import Any

__all__ = ["Gate", "filtered", "unfiltered", "folded", "places"]

_FILTERED = [True]


def filtered() -> bool:
    """Whether the detectors run behind their cheap tests of what a match needs (the default; they find the same)."""
    return _FILTERED[0]


@contextmanager
def unfiltered() -> Iterator[None]:
    """The whole suite run without those tests, every pattern over every text: the reference. Process-wide while it
    lasts (not for use beside a live screen)."""
    _FILTERED[0] = False
    try:
        yield
    finally:
        _FILTERED[0] = True


_LAST: tuple[str | None, str | None] = (None, None)  # the last text folded and its folding (read by many gates)


def folded(text: str) -> str | None:
    """``text`` as case-insensitive matching reads ASCII letters, character for character: lowered, with the long
    ``ſ`` read as ``s`` and the dotless ``ı`` as ``i`` (the characters other than ASCII ones that match an ASCII
    letter, beside the Kelvin sign, which lowers to ``k``; a test holds this to the regex engine over every
    character). None when lowering changes the text's length (``İ`` lowers to two characters): its places would
    not be the text's. The last text's folding is kept for the next gate (``forget`` drops it)."""
    global _LAST
    last = _LAST
    if last[0] is text:
        return last[1]
    lowered = text.lower()
    kept: str | None = lowered
    if not text.isascii():
        if len(lowered) != len(text):
            kept = None
        else:
            kept = lowered.replace("\u017f", "s").replace("\u0131", "i")
    _LAST = (text, kept)
    return kept


def forget() -> None:
    """Drop the last text kept (a long text is not held past its screen)."""
    global _LAST
    _LAST = (None, None)


def places(literals: Iterable[str], text: str) -> Callable[[int], int]:
    """``next(pos)``: the first place at or after ``pos`` where one of ``literals`` starts in ``text``, or -1. Each
    literal's place is kept until passed: the text is read once per literal however often it is asked."""
    finders = _finders(tuple(literals))
    at = [_place(f, text, 0) for f in finders]

    def following(pos: int) -> int:
        best = -1
        for i, place in enumerate(at):
            if 0 <= place < pos:
                place = at[i] = _place(finders[i], text, pos)
            if place >= 0 and (best < 0 or place < best):
                best = place
        return best

    return following


@lru_cache(maxsize=1024)
def _finders(literals: tuple[str, ...]) -> tuple[re.Pattern[str], ...]:
    """A literal search for each of ``literals``, made once (made per text, it was most of a short text's screen)."""
    return tuple(re.compile(re.escape(lit)) for lit in dict.fromkeys(literals))


def _place(finder: re.Pattern[str], text: str, pos: int) -> int:
    found = finder.search(text, pos)
    return -1 if found is None else found.start()


# places tried one by one before a text dense in the literals is left to the pattern itself: this many, and one
# more per this many characters read (a place tried costs about what the pattern's own search spends on that many)
_TRIED, _TRIED_PER = 256, 32


class Gate:
    """``regex`` tried only at the places a match can start: every match holds one of ``literals`` (in any case
    when ``fold``) starting ``lo`` to ``hi`` characters after the match's start. ``finditer``, ``findall``,
    ``search`` and ``sub`` give what the pattern's own give (the pattern is read whole at each place: its
    look-behinds and word boundaries see the text before it)."""

    def __init__(self, regex: re.Pattern[str], literals: Iterable[str], lo: int = 0, hi: int = 0, fold: bool = False) -> None:
        self.regex, self.pattern, self.flags = regex, regex.pattern, regex.flags
        self.literals = tuple(lit.lower() if fold else lit for lit in literals)
        self.lo, self.hi, self.fold = lo, hi, fold

    def finditer(self, text: str, pos: int = 0) -> Iterator[re.Match[str]]:
        if not _FILTERED[0]:
            yield from self.regex.finditer(text, pos)
            return
        read = folded(text) if self.fold else text
        if read is None:
            yield from self.regex.finditer(text, pos)
            return
        following = places(self.literals, read)
        count = 0
        tried = pos  # every place before this is tried (or passed by a match)
        while (at := following(tried + self.lo)) >= 0:
            for start in range(max(tried, at - self.hi), at - self.lo + 1):
                count += 1
                if count > _TRIED + (start - pos) // _TRIED_PER:  # no match starts before ``start``: the pattern's
                    # own search goes on from there
                    yield from self.regex.finditer(text, start)
                    return
                found = self.regex.match(text, start)
                if found is not None:
                    yield found
                    tried = max(found.end(), start + 1)
                    break
            else:
                tried = at - self.lo + 1

    def findall(self, text: str, pos: int = 0) -> list[Any]:
        if not _FILTERED[0]:
            return self.regex.findall(text, pos)
        found: list[Any] = []
        for match in self.finditer(text, pos):
            groups = match.groups(default="")
            found.append(match.group() if not groups else groups[0] if len(groups) == 1 else groups)
        return found

    def search(self, text: str, pos: int = 0) -> re.Match[str] | None:
        return next(self.finditer(text, pos), None)

    def sub(self, repl: str | Callable[[re.Match[str]], str], text: str) -> str:
        if not _FILTERED[0] or (isinstance(repl, str) and "\\" in repl):
            return self.regex.sub(repl, text)
        pieces, done = [], 0
        for match in self.finditer(text):
            pieces += [text[done : match.start()], repl if isinstance(repl, str) else repl(match)]
            done = match.end()
        return "".join(pieces) + text[done:] if pieces else text
