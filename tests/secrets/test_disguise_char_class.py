"""The folding tables' character classes compile and match exactly their characters, whichever planes they hold:
a class with no character past U+FFFF (or none at all) was written ``[]``, which ``re`` reads as a class starting
with ``]`` (an error, or a pattern matching ``]`` and what follows)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from noesis_nb.secrets.disguise import _char_class


@settings(max_examples=150, deadline=None, database=None)
@given(st.sets(st.integers(min_value=1, max_value=0x10FFFF).filter(lambda c: not 0xD800 <= c <= 0xDFFF), max_size=6))
def test_a_class_matches_its_characters_and_nothing_else(codes: set[int]) -> None:
    pattern = re.compile(_char_class(sorted(codes)))
    for code in codes:
        assert pattern.fullmatch(chr(code)), hex(code)
    for other in ("]", "a", "\U0001f600", "\u00e9"):
        if ord(other) not in codes:
            assert not pattern.search(other), (sorted(codes), other)


@pytest.mark.parametrize("codes", [[], [ord("A")], [0x1D400]])
def test_one_plane_or_none(codes: list[int]) -> None:
    pattern = re.compile(_char_class(codes))
    assert [bool(pattern.fullmatch(chr(c))) for c in codes] == [True] * len(codes)
    assert not pattern.search("]x")
