"""The verdicts kept on long texts (``secrets.verdicts``): given only for an equal exact ``str``, never holding the
text, and enough of them for a payload of many long fields."""

from __future__ import annotations

import itertools
import sys

from noesis_nb.secrets import text as detectors
from noesis_nb.secrets.verdicts import LONG_TEXT

GITHUB = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
_TEXTS = itertools.count(1)


def _long(*, token: bool = False) -> str:
    head = f"log number {next(_TEXTS)}\n"
    body = "2026-01-05 12:00:01 INFO worker copied block 0042 to the archive\n" * (LONG_TEXT // 60)
    return head + body + (f"token={GITHUB}\n" if token else "")


class Lenient(str):
    """A str that says it equals any text (as a case-insensitive string class says it equals another casing)."""

    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = str.__hash__


def test_a_str_subclass_that_equals_anything_neither_takes_nor_leaves_a_verdict() -> None:
    clean = _long()
    assert detectors.find_in_text(clean) == set()
    assert GITHUB in detectors.find_in_text(Lenient(_long(token=True)))  # not the clean text's verdict
    lenient_clean = Lenient(_long())
    assert detectors.find_in_text(lenient_clean) == set()
    for _ in range(3):  # a later plain text is judged for itself, not by what the subclass said it equals
        assert GITHUB in detectors.find_in_text(_long(token=True))


def test_a_long_text_is_not_held_after_its_screen() -> None:
    secret_bearing = _long(token=True)
    before = sys.getrefcount(secret_bearing)
    assert GITHUB in detectors.find_in_text(secret_bearing)
    assert sys.getrefcount(secret_bearing) == before


def test_many_long_fields_are_each_read_once(monkeypatch) -> None:
    fields = [_long(token=i % 7 == 0) for i in range(60)]
    reads: list[int] = []
    read = detectors._find_read

    def counted(text: str, entropy: bool) -> set[str]:
        if len(text) >= LONG_TEXT:
            reads.append(len(text))
        return read(text, entropy)

    monkeypatch.setattr(detectors, "_find_read", counted)
    first = [detectors.find_in_text(f) for f in fields]
    for _ in range(6):  # as a payload's several screens read it again
        assert [detectors.find_in_text(f) for f in fields] == first
    assert len(reads) == len(fields)
    assert [GITHUB in found for found in first] == [i % 7 == 0 for i in range(60)]
