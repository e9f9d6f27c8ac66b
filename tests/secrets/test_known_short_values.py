"""A short value among long ones does not shorten the heads the long ones are found by.

A trie's head is as long as its shortest value: one value of 2-5 characters (a short password redacted with its
sign) made every head that short, each head then found all over a long text where no value goes on and read apart in
a pass of its own (a pass of the text per head). The values are compared with a plain search of each at every place.
"""

from __future__ import annotations

import random
import string

from hypothesis import given, settings
from hypothesis import strategies as st

from noesis_nb.secrets.known import Known, spans


def _every(text: str, values: set[str]) -> list[tuple[int, int]]:
    return spans((i, i + len(v)) for v in values for i in range(len(text)) if text.startswith(v, i))


def _random(rnd: random.Random, alphabet: str, n: int) -> str:
    return "".join(rnd.choices(alphabet, k=n))


def test_a_short_value_leaves_the_long_values_heads_whole() -> None:
    rnd = random.Random(4)
    alphabet = string.ascii_letters + string.digits + string.punctuation
    text = _random(rnd, alphabet, 300_000)
    values = {text[i : i + rnd.randint(20, 30)] for i in range(0, 300_000, 3_000)} | {"=a", "b+c", "zz9"}
    known = Known(values)
    assert known.spans(text) == _every(text, values)
    # every head found where no value goes on would have been read apart: none is, the heads are whole values' starts
    assert all(level.each or not level.read_apart for level in known.levels)
    (level,) = known.levels
    assert all(len(head) == 6 or head in values for head in level.buckets)  # a long value's head: its first 6


@settings(max_examples=200, deadline=None, derandomize=True)
@given(
    st.text(alphabet="ab=+-", max_size=300),
    st.sets(st.text(alphabet="ab=+-", min_size=1, max_size=12), min_size=9, max_size=40),
)
def test_values_of_every_length_are_found_as_a_plain_search_finds_them(text: str, values: set[str]) -> None:
    known = Known(values)
    assert known.spans(text) == _every(text, values)
    assert known.found_in(text) == {text[a:b] for a, b in _starts_longest(text, values)}
    grown = Known(sorted(values)[:5]).plus(sorted(values)[5:])  # a set grown by levels, as a run learns
    assert grown.spans(text) == _every(text, values)


def _starts_longest(text: str, values: set[str]) -> list[tuple[int, int]]:
    """Each place a value starts, with the longest one starting there (what ``found_in`` reports per place)."""
    out = []
    for i in range(len(text)):
        here = [v for v in values if text.startswith(v, i)]
        if here:
            out.append((i, i + max(map(len, here))))
    return out
