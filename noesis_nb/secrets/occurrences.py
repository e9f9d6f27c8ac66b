"""Every occurrence of many strings in one pass over a text (Aho-Corasick).

Searching a text once per value found costs the text's length times the number of values: 32,000 distinct
access keys in 670 KB took 20 s. The automaton reads the text once, whatever the number of values.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable, Iterator
from functools import lru_cache

__all__ = ["occurrences", "longest_ending"]


def occurrences(text: str, values: Iterable[str]) -> Iterator[tuple[int, str]]:
    """``(start, value)`` for every occurrence of each (non-empty) value in ``text``, overlapping ones
    included, in the order of their ends (so a value's own occurrences come in the order of their starts)."""
    for end, found, ends, output in _walk(text, values):
        while found:
            spelt = ends[found]
            assert spelt is not None  # an output link leads only to a node spelling a value
            yield end - len(spelt), spelt
            found = output[found]


def longest_ending(text: str, values: Iterable[str]) -> Iterator[tuple[int, int]]:
    """``(start, end)`` of the longest value ending at each position of ``text`` where one ends: one per
    position however densely the values overlap (the shorter ones ending there lie inside it)."""
    for end, found, ends, _output in _walk(text, values):
        spelt = ends[found]
        assert spelt is not None
        yield end - len(spelt), end


def _walk(text: str, values: Iterable[str]) -> Iterator[tuple[int, int, list[str | None], list[int]]]:
    """The automaton read over ``text``: at each position where a value ends, ``(end, node, ends, output)`` with
    the node of the longest value ending there (its ``output`` links lead to the shorter ones).

    Outside a partial match (at the root) no character but a value's first can move it: the text is skipped to
    the next such character by a compiled search, so Python reads only the stretches where values may be."""
    moves, ends, fallback, output, first = _automaton(values if isinstance(values, frozenset) else frozenset(values))
    if first is None:
        return
    node, at, size, search = 0, 0, len(text), first.search
    while at < size:
        if not node:
            hit = search(text, at)
            if hit is None:
                return
            at = hit.start()
        char = text[at]
        while node and char not in moves[node]:
            node = fallback[node]
        node = moves[node].get(char, 0)
        at += 1
        found = node if ends[node] is not None else output[node]
        if found:
            yield at, found, ends, output


_Automaton = tuple[list[dict[str, int]], list[str | None], list[int], list[int], "re.Pattern[str] | None"]


@lru_cache(maxsize=16)
def _automaton(values: frozenset[str]) -> _Automaton:
    """The trie of ``values`` (moves, the value each node spells) with its fallback and output links, and the
    search for any value's first character; made once per set of values (a run's texts share one)."""
    moves: list[dict[str, int]] = [{}]
    ends: list[str | None] = [None]  # the value a node spells, if any
    for value in values:
        node = 0
        for char in value:
            child = moves[node].get(char)
            if child is None:
                child = len(moves)
                moves[node][char] = child
                moves.append({})
                ends.append(None)
            node = child
        ends[node] = value
    fallback, output = _links(moves, ends)
    first = re.compile("[" + "".join(map(re.escape, sorted(moves[0]))) + "]") if moves[0] else None
    return moves, ends, fallback, output, first


def _links(moves: list[dict[str, int]], ends: list[str | None]) -> tuple[list[int], list[int]]:
    """Each node's fallback (its longest proper suffix in the trie) and output link (the longest such suffix
    that is a whole value, 0 if none), computed breadth first."""
    fallback, output = [0] * len(moves), [0] * len(moves)
    queue = deque(moves[0].values())
    while queue:
        node = queue.popleft()
        for char, child in moves[node].items():
            queue.append(child)
            back = fallback[node]
            while back and char not in moves[back]:
                back = fallback[back]
            suffix = moves[back].get(char, 0)
            fallback[child] = suffix
            output[child] = suffix if ends[suffix] is not None else output[suffix]
    return fallback, output
