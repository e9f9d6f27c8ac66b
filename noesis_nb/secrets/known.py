"""Every known value in a text in one pass: what scrubbing, screening and locating share.

Replacing each learned value with its own pass over a text costs values x length (1,000 values in 1 MB
took a second, 5,000 five). Here the first characters of many values are compiled into one pattern shaped
as a trie, so the regex engine reads the text once and follows a few branches at each position whatever
the number of values; each position where a head starts is resolved by a lookup of the longest value
starting there (by length, so many values sharing a head cost one lookup per distinct length). A few
values are searched for one by one (``str.find`` is faster than the pass).

A set that grows value by value (a run learning) is kept in levels of decreasing size, each merged into
the one before once it is a quarter of its size: each value is compiled a few times, not once per value
learned after it, and a text is read once per level (a handful).

Overlapping occurrences are redacted as their union (``spans``): what replacing each value in turn,
longest first, redacts is redacted, and so is the rest of a shorter value overlapping a longer one.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterable, Iterator
from functools import cached_property

import orjson

from .occurrences import longest_ending

__all__ = ["Known", "for_text", "spans", "replaced", "FRAGMENT", "SEARCHED"]

_EACH = 8  # up to this many values, each is searched for by itself
_HEAD = 6  # characters of a value compiled into the trie (values are at least ``MIN_HUNTED`` long)
SEARCHED = 1_000_000  # characters read by searching a text once per value, below which nothing is compiled
_LENGTHS = 8  # distinct lengths of the values sharing a head, past which they are read by the automaton
_MERGE = 4  # a level is merged into the one before once it holds a quarter as many values
_FAILED = 64  # a head found this often in a text where no value goes on is read apart by its values' pattern
_APART = 64  # ... when it starts at most this many values (their pattern compiles in a few milliseconds)
FRAGMENT = 8  # a cut-off value keeps its first characters: 8 or more of them are a sign of it


class _Level:
    """One compiled set of values: the trie of their heads and, per head, the values by length (longest first)."""

    def __init__(self, values: frozenset[str], each: bool = False) -> None:
        self.values = values
        self.each = each or len(values) <= _EACH
        if self.each:
            return
        # each value's head is its first ``_HEAD`` characters, or all of it: one short value (a 3-character
        # ``password=a+b`` redacted with its sign) once made every head that short, each then found all over a long
        # text where no value goes on and read apart in a pass of its own (a pass of the text per head)
        buckets: dict[str, dict[int, set[str]]] = {}
        for value in values:
            buckets.setdefault(value[:_HEAD], {}).setdefault(len(value), set()).add(value)
        # a head shared by values of many lengths (``sk-sk-…``, each a suffix of the next) would cost a lookup per
        # length at each start: those values are read by the automaton instead (``longest_ending``)
        self.dense = frozenset(v for b in buckets.values() if len(b) > _LENGTHS for group in b.values() for v in group)
        self.buckets = {h: sorted(b.items(), reverse=True) for h, b in buckets.items() if len(b) <= _LENGTHS}
        self.pattern = re.compile("(?=(" + _trie(self.buckets) + "))", re.S) if self.buckets else None
        # the short values (whole heads) that start a longer head: the trie finds the longest head at a place, and
        # where no value of it goes on, the longest of these there is the value found
        self.shorter = {h: [h[:n] for n in range(len(h) - 1, 0, -1) if h[:n] in self.buckets] for h in self.buckets}
        self.patterns: dict[str, re.Pattern[str] | None] = {}  # per head read apart: its values' own pattern
        self.tries: dict[frozenset[str], re.Pattern[str] | None] = {}  # per set of heads read apart: the rest
        self.read_apart: frozenset[str] = frozenset()  # heads found where no value went on, _FAILED times in a text

    # what only scrubbing and screening use, made on first use (a one-off set of values to replace needs none of it)
    @cached_property
    def by_length(self) -> list[str]:
        return sorted(self.values, key=len, reverse=True)

    @cached_property
    def steps(self) -> list[tuple[str, int]]:
        """Each value with the least shift at which it can occur again overlapping itself (its period: ``abcab``
        occurs again 3 on), so searching from there finds every occurrence, and no more than that."""
        return [(value, _period(value)) for value in self.by_length]

    @cached_property
    def longest(self) -> int:
        return max(map(len, self.values))

    @cached_property
    def needles(self) -> tuple[bytes, ...]:
        """The JSON-escaped first characters of each value: JSON text (an event, a file) holding none holds no value."""
        return tuple({orjson.dumps(v)[1:-1][:FRAGMENT] for v in self.values})

    @cached_property
    def heads(self) -> tuple[str, ...]:
        return tuple({v[:FRAGMENT] for v in self.values if len(v) > FRAGMENT})

    @cached_property
    def needle_pattern(self) -> re.Pattern[bytes]:
        return re.compile(_trie(n.decode("latin-1") for n in self.needles).encode("latin-1"), re.S)

    @cached_property
    def head_pattern(self) -> re.Pattern[str] | None:
        return re.compile("(?=(" + _trie(self.heads) + "))", re.S) if self.heads else None

    def starts(self, text: str) -> Iterator[tuple[int, int]]:
        """``(start, end)`` of occurrences: for the trie, the longest value at each start; else each value's own."""
        if self.each:
            for value, step in self.steps:
                at = text.find(value)
                while at >= 0:
                    yield at, at + len(value)
                    at = text.find(value, at + step)
            return
        if self.pattern is not None:
            yield from self._trie_starts(text)
        if self.dense:
            yield from longest_ending(text, self.dense)

    def _trie_starts(self, text: str) -> Iterator[tuple[int, int]]:
        """The trie's starts: each head found is resolved by a lookup. A head found again and again where no value
        goes on (a learned ``xxxxxx…`` key in a text of x's) is read apart from then on, by a pattern of its few
        values, so such a text costs no Python work per character."""
        apart = self.read_apart
        for head in apart:
            yield from (m.span(1) for m in self._values_of(head).finditer(text))  # type: ignore[union-attr]
        buckets, pattern, at_most, failed = self.buckets, self._heads_but(apart), 0, dict[str, int]()
        while pattern is not None:
            for match in pattern.finditer(text, at_most):
                at, head = match.start(), match.group(1)
                for length, group in buckets[head]:
                    if text[at : at + length] in group:
                        yield at, at + length
                        break
                else:
                    shorter = self.shorter[head]
                    if shorter:  # a short value is here (a head is found whole); its head is never read apart
                        yield at, at + len(shorter[0])
                        continue
                    failed[head] = failed.get(head, 0) + 1
                    if failed[head] == _FAILED and self._values_of(head) is not None:
                        break
            else:
                return
            yield from (m.span(1) for m in self._values_of(head).finditer(text, at))  # type: ignore[union-attr]
            apart = self.read_apart = self.read_apart | {head}
            pattern, at_most = self._heads_but(apart), at

    def _values_of(self, head: str) -> re.Pattern[str] | None:
        """The values starting with ``head`` as one pattern, when they are few enough to compile quickly."""
        if head not in self.patterns:
            values = [v for _, group in self.buckets[head] for v in group]
            self.patterns[head] = re.compile("(?=(" + _trie(values) + "))", re.S) if len(values) <= _APART else None
        return self.patterns[head]

    def _heads_but(self, apart: frozenset[str]) -> re.Pattern[str] | None:
        """The trie of the heads not read apart (compiled once per set of such heads)."""
        if apart not in self.tries:
            rest = [h for h in self.buckets if h not in apart]
            self.tries[apart] = self.pattern if not apart else re.compile("(?=(" + _trie(rest) + "))", re.S) if rest else None
        return self.tries[apart]

    def holds(self, data: bytes) -> bool:
        """Whether JSON text holds the escaped first characters of one of the values."""
        if self.each:
            return any(map(data.__contains__, self.needles))
        return self.needle_pattern.search(data) is not None

    def head_starts(self, text: str, start: int, stop: int) -> Iterator[int]:
        """Where the first ``FRAGMENT`` characters of a longer value start in ``text[start:stop]`` (ascending per head)."""
        if self.each:
            for head in self.heads:
                at = text.find(head, start, stop)
                while at >= 0:
                    yield at
                    at = text.find(head, at + 1, stop)
        elif self.head_pattern is not None:
            for match in self.head_pattern.finditer(text, start, stop):
                yield match.start()


class Known:
    """An immutable set of values to find in texts; ``plus`` shares the compiled levels of the set it extends."""

    def __init__(self, values: Iterable[str] = (), _levels: tuple[_Level, ...] = (), *, each: bool = False) -> None:
        new = frozenset(v for v in values if v)
        self.levels = _levels + ((_Level(new, each),) if new else ())
        self.values = frozenset().union(*(level.values for level in self.levels))
        self._sorted: list[str] | None = None

    def plus(self, values: Iterable[str]) -> Known:
        """This set with ``values`` added: a new level, merged into the ones before while it is not much smaller."""
        new = frozenset(values) - self.values - {""}
        if not new:
            return self
        levels = list(self.levels)
        while levels and len(levels[-1].values) < _MERGE * len(new):
            new |= levels.pop().values
        return Known(new, tuple(levels))

    def starts(self, text: str) -> Iterator[tuple[int, int]]:
        """``(start, end)`` of occurrences of the values: every start where one begins, with the longest one there."""
        for level in self.levels:
            yield from level.starts(text)

    def found_in(self, text: str) -> set[str]:
        """The values that occur in ``text``."""
        return {text[a:b] for a, b in self.starts(text)}

    def spans(self, text: str) -> list[tuple[int, int]]:
        """The disjoint spans of ``text`` that known values cover (overlapping occurrences joined), in order."""
        return spans(self.starts(text))

    def replaced(self, text: str, by: str) -> str:
        """``text`` with every occurrence of a value replaced by ``by``."""
        return replaced(text, self.spans(text), by)

    def holds(self, data: bytes) -> bool:
        """Whether JSON text (an event, a file) may hold a value: the escaped first characters of one are in it."""
        return any(level.holds(data) for level in self.levels)

    def cut_offs(self, text: str, covered: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """The spans of cut-off values: ``FRAGMENT``+ first characters of a longer value, ending where the text
        ends or an ellipsis starts (as truncation leaves them), outside the ``covered`` spans (whole values).

        Only the stretches a value's length before such an end are searched, for the values' heads in one pass."""
        if not self.levels:
            return []
        cuts = _cuts(text)
        reach = max(level.longest for level in self.levels)
        windows = spans((max(c - reach, 0), c) for c in cuts)
        windows = [(a, b) for a, b in spans((a, b + 1) for a, b in windows)]  # touching windows are one stretch
        found = []
        pieces = _uncovered(windows, covered, len(text))
        for level in self.levels:
            for start, stop, end in pieces:
                for at in level.head_starts(text, start, end):
                    if at >= stop:  # a head starting in the covered span after the piece: a whole value's
                        continue
                    for i in range(bisect_left(cuts, at + FRAGMENT), len(cuts)):
                        c = cuts[i]
                        if c - at >= reach:
                            break
                        count, exact = self.prefixed(text[at:c])
                        if not count:  # no value starts so: none reaches a later end either
                            break
                        after = self.prefixed(text[at : c + 1])[0] if c < len(text) else 0
                        if count - exact - after > 0 and _as_read(text[at:c]) >= FRAGMENT:  # a value goes on
                            found.append((at, c))  # differently than the text does here
        return found

    def prefixed(self, prefix: str) -> tuple[int, bool]:
        """``(count, exact)``: how many values start with ``prefix``, and whether it is one."""
        ordered = self._sorted
        if ordered is None:
            ordered = self._sorted = sorted(self.values)
        low = bisect_left(ordered, prefix)
        return bisect_left(ordered, prefix + "\U0010ffff", low) - low, low < len(ordered) and ordered[low] == prefix


def _period(value: str) -> int:
    """The least ``p > 0`` with ``value[p:]`` a prefix of ``value`` (its length for most values, which nowhere
    start again inside themselves); tried only where the first character recurs.

    Each try compares up to the whole value: a crafted one (``a…ab a…a``) would make that quadratic, so past a
    few readings of the value the shift reached is returned. It is no more than the period (every shorter one
    failed, and the period is a place where the first character recurs), and a search stepping by less than the
    period finds the same occurrences (none can lie closer together), only with a few more calls."""
    size = len(value)
    budget = _PERIOD_READS * size
    at = value.find(value[0], 1)
    while at > 0:
        budget -= size - at
        if budget < 0:
            return at
        if value.startswith(value[at:]):
            return at
        at = value.find(value[0], at + 1)
    return size


_PERIOD_READS = 4  # readings of a value ``_period`` may spend


# an escape a written form of a value holds (JSON's ``\u00fc``, ``repr``'s ``\xfc``, ``%C3``, ``&amp;``): one character
_ESCAPE = re.compile(r"\\u[0-9a-fA-F]{4}|\\x[0-9a-fA-F]{2}|\\.|%[0-9A-Fa-f]{2}|&#?\w{1,8};")


def _as_read(piece: str) -> int:
    """How many characters ``piece`` reads as, each escape one: ``FRAGMENT`` counts those, so ``M\u00fcller`` (six
    letters of a learned ``Müller-…``'s JSON form) is no sign of a cut-off value, as ``Müller`` is none."""
    if "\\" not in piece and "%" not in piece and "&" not in piece:
        return len(piece)
    return len(_ESCAPE.sub("_", piece))


def _cuts(text: str) -> list[int]:
    """Where ``text`` may have been cut: before each ``…`` (and the line break before one), each ``...``, and at its end."""
    cuts = []
    for mark in ("…", "..."):
        at = text.find(mark)
        while at >= 0:
            cuts.append(at)
            if mark == "…" and at and text[at - 1] == "\n":
                cuts.append(at - 1)
            at = text.find(mark, at + 1)
    return sorted({*cuts, len(text)})


def _uncovered(windows: list[tuple[int, int]], covered: list[tuple[int, int]], size: int) -> list[tuple[int, int, int]]:
    """``(start, stop, end)`` of each stretch of the ``windows`` outside the ``covered`` spans (both ordered and
    disjoint): heads start in ``[start, stop)`` and may run on to ``end`` (``FRAGMENT`` on, within their window). A head starting
    inside a whole value is never a cut-off one, so those stretches are not searched at all: a text of long
    values would otherwise be looked at once per character of them."""
    out = []
    i = 0
    for start, stop in windows:
        stop = min(stop, size)
        while i < len(covered) and covered[i][1] <= start:
            i += 1
        at, j = start, i
        while at < stop:
            if j < len(covered) and covered[j][0] <= at:
                at = max(at, covered[j][1])
                j += 1
                continue
            piece_stop = min(covered[j][0], stop) if j < len(covered) else stop
            out.append((at, piece_stop, min(piece_stop + FRAGMENT - 1, stop)))
            at = piece_stop
    return out


def for_text(text: str, values: Iterable[str]) -> Known:
    """A ``Known`` for one text: the values searched one by one when that is bounded work (a short text, or few
    values), compiled otherwise (compiling costs more than searching a short text once per value)."""
    distinct = frozenset(values)
    return Known(distinct, each=len(distinct) * len(text) <= SEARCHED)


def spans(found: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """``found`` (start, end) pairs sorted, overlapping ones joined (touching ones stay apart: two values
    side by side are two redactions, as replacing one after the other leaves them)."""
    merged: list[list[int]] = []
    for start, end in sorted(found):
        if merged and start < merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [(a, b) for a, b in merged]


def replaced(text: str, where: list[tuple[int, int]], by: str) -> str:
    """``text`` with each of the disjoint, ordered spans ``where`` replaced by ``by``, in one join."""
    if not where:
        return text
    pieces, done = [], 0
    for start, end in where:
        pieces += [text[done:start], by]
        done = end
    pieces.append(text[done:])
    return "".join(pieces)


_Node = dict[str, "_Node"]


def _trie(words: Iterable[str]) -> str:
    """A regex alternation of ``words`` nested as a trie: the engine tries a few branches per character, not
    one per word. Each word ends where its node's branches end (words of one length, or a prefix tried last)."""
    root: _Node = {}
    for word in words:
        node = root
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}
    return _branches(root)


def _branches(node: _Node) -> str:
    parts = []
    for char, child in sorted(node.items(), key=lambda item: item[0] == ""):  # the end of a word last: longest first
        if not char:
            parts.append("")
            continue
        chain = re.escape(char)
        while len(child) == 1 and "" not in child:  # a run of single branches is one literal
            ((char, child),) = child.items()
            chain += re.escape(char)
        parts.append(chain + (_branches(child) if child else ""))
    return parts[0] if len(parts) == 1 else "(?:" + "|".join(parts) + ")"
