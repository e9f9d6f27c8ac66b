"""A long unbroken word holding a keyword literal or a hex run costs about what prose of its length does, and finds the same.

In such a word the keyword detector's patterns tried every keyword at every place from the word's start
(``\\w*?(keyword)``), the hex-tail shape gave a long hex run back one character at a time for each length of its prefix,
and ``name: value``'s value read its characters through an alternation: a megabyte word took seconds, where prose of
the same length with the same keyword took a fraction of one. The cost is compared with prose measured in turn, in
process CPU time (the least of a few tries each), with a wide margin; what is found is compared with the detectors
run without their cheap tests (``unfiltered``).
"""

from __future__ import annotations

import random
import time

import pytest

from noesis_nb.secrets.gates import unfiltered
from noesis_nb.secrets.text import _find_short, _judged, find_in_text

_VOCAB = "the of and to in is was for on that with as by at from this be are or an it not have".split()


def _cpu(text: str) -> float:
    start = time.process_time()
    _judged(text, True)  # (not ``find_in_text``: it remembers its verdicts on long texts)
    return time.process_time() - start


def _prose(length: int, rng: random.Random) -> str:
    return " ".join(rng.choice(_VOCAB) for _ in range(length // 3))[:length]


@pytest.mark.parametrize(("run", "middle"), [("A", "key"), ("f", "key"), ("A", "secret"), ("e", "api_key")])
def test_long_word_costs_about_what_prose_does(run: str, middle: str) -> None:
    find_in_text("warm up: password=abcdefgh123")  # (the detectors are loaded on first use)
    rng, half = random.Random(5), 150_000
    word = '{"x":"' + run * half + middle + run * half + '"}'
    prose = '{"x":"' + _prose(half, rng) + f" {middle} " + _prose(half, rng) + '"}'
    word_cpu, prose_cpu = min(_cpu(word) for _ in range(2)), min(_cpu(prose) for _ in range(2))
    # (about 1x now; 4-8x before, growing with the word's length)
    assert word_cpu < 3 * prose_cpu + 0.02, (run, middle, word_cpu, prose_cpu)


KEY = "AKIAIOSFODNN7EXAMPLQ"
GITHUB = "ghp_" + "Zq9xW2vB7nK4mT1pR8sL3dF6hJ0cY5aE2uGi"


@pytest.mark.parametrize(
    "text",
    [
        "A" * 20_000,
        "A" * 20_000 + KEY,
        KEY + "A" * 20_000,
        "f" * 20_000 + "key" + "f" * 300,
        "0123456789abcdef" * 1_500 + "xyz",
        "shpat_" + "ab12" * 5_000 + "q",
        "A" * 20_000 + "api_key=" + GITHUB,
        "Ab3+/" * 4_000 + "api_keyX" + "A" * 100,
        "password" + "A" * 20_000,
        "x" * 5_000 + "database_password" + "A" * 5_000 + " = hunter2hunter2",
        "api_key: " + "A" * 20_000 + "key" + "A" * 50,
        GITHUB + "A" * 20_000,
        "z" * 20_000 + " " + GITHUB,
    ],
)
def test_long_word_finds_what_the_detectors_find(text: str) -> None:
    for written in (text, f'{{"x":"{text}"}}'):
        found = _judged(written, True)
        _find_short.cache_clear()
        with unfiltered():  # every pattern over every text: the reference
            expected = _judged(written, True)
        _find_short.cache_clear()
        assert found == expected, (written[:40], found, expected)
    if KEY in text or GITHUB in text:
        assert any(KEY in v or GITHUB in v for v in _judged(text, True)), text[:40]
