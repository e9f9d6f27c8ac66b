"""``occurrences``/``longest_ending`` against a plain search of every value at every place, on random texts and value
sets over a small alphabet (dense overlaps: values that are prefixes, suffixes and repeats of each other)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from noesis_nb.secrets import occurrences as occ

ALPHABET = "ab-\u00e9"
texts = st.text(alphabet=ALPHABET, max_size=60)
value_sets = st.sets(st.text(alphabet=ALPHABET, min_size=1, max_size=6), min_size=1, max_size=12)


def _every(text: str, values: set[str]) -> set[tuple[int, str]]:
    return {(i, v) for v in values for i in range(len(text) - len(v) + 1) if text.startswith(v, i)}


@settings(max_examples=400, deadline=None)
@given(texts, value_sets)
def test_every_occurrence_is_found_once(text: str, values: set[str]) -> None:
    got = list(occ.occurrences(text, values))
    assert len(got) == len(set(got)) and set(got) == _every(text, values)
    ends = [start + len(v) for start, v in got]
    assert ends == sorted(ends)


@settings(max_examples=400, deadline=None)
@given(texts, value_sets)
def test_the_longest_value_at_each_end(text: str, values: set[str]) -> None:
    want = {}
    for start, v in sorted(_every(text, values), key=lambda o: len(o[1])):
        want[start + len(v)] = (start, start + len(v))
    assert list(occ.longest_ending(text, values)) == [want[e] for e in sorted(want)]


@pytest.mark.parametrize("kind", [frozenset, list])
def test_the_automaton_of_a_value_set_is_made_once_for_many_texts(monkeypatch: pytest.MonkeyPatch, kind: type) -> None:
    """A run's texts are screened one by one against the same learned values: the automaton is not made again
    for each (a run of many events paid its making per event)."""
    made = []
    links = occ._links
    monkeypatch.setattr(occ, "_links", lambda *a: made.append(1) or links(*a))
    values = kind(f"sk-{'x' * n}" for n in range(1, 40))
    for i in range(50):
        list(occ.longest_ending(f"event {i} sk-xxx", values))
    assert len(made) <= 1
