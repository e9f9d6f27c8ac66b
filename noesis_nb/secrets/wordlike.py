"""Whether a run of letters in one case reads as a word (``rotate``, ``download``, ``README``) or as drawn at random
(``doaivq``, ``HKJJYL``): a piece of a key cut at a URL's ``/`` may hold letters of one case only.

Judged by how likely each letter is after the one before it in English words: ``_BITS`` holds, for each letter (and
``^``, a word's start or end), how many bits of surprise each next letter carries (``-log2 P(next | letter)``, learnt
from the words of documentation and code comments, 0 to 9). A word averages under ~4.5 bits a letter pair; letters
drawn at random ~6. No dictionary: a name never seen (``pyperclip``) reads as a word when it is spelt like one.
"""

from __future__ import annotations

import re

__all__ = ["reads_as_word", "surprise"]

_LETTERS = "^abcdefghijklmnopqrstuvwxyz"
# one row a letter, in ``_LETTERS``'s order: the bits of each next letter, in the same order
_BITS = (
    "945445455477544547434566788 574459759597343959343677669 435563678359367469446489959 438663783594477279553589979"
    " 246652669389677479555578779 357446569798454767334866579 348664479299466379455488869 248672765499565579446588988"
    " 337762799398667379554598969 656455559998442459544959795 347663678575665358837377988 256762668388565669736675969"
    " 338752789398477369845579949 325762889398657438757588969 347443538586676469743668989 566547669696442549344465799"
    " 338663775498477459354588959 267759698799476777545166989 337552759396656469544678969 259573885496677557843488969"
    " 347673784399677469445688958 654564669599342749343999799 428671888399678579757999999 337563674397564469445888899"
    " 256454687499656638653877568 156565678599545639644977787 348871697398767479767798865"
).split()
_PAIRS = {a + b: int(bits) for a, row in zip(_LETTERS, _BITS, strict=True) for b, bits in zip(_LETTERS, row, strict=True)}
# the mean surprise past which letters read as random: with ``_UNSPELT``, 89% of random 6-letter runs and 93% of
# 8-letter ones are past it; 6% of the words of documentation are too (names: ``arogozhnikov``); ``download`` 4.4
_RANDOM_BITS = 4.8
_SEPARATORS = re.compile(r"[-_]+")
# what no single word of 4+ letters is: without a vowel (``dwstrc``; ``HTML`` alone is a name, not a word; inside
# ``using-https-viewers`` one), or with 6 consonants in a row (``strengths`` has 5): pairs each likely in English
# spell these
_UNSPELT = re.compile(r"[b-df-hj-np-tv-xz]{4,}|[a-z]*[b-df-hj-np-tv-xz]{6}[a-z]*")


def reads_as_word(part: str) -> bool:
    """Whether ``part`` (ASCII letters in one case, maybe words joined by ``-`` or ``_``) reads as words: spelt as
    words are (``_UNSPELT``), and the mean surprise of its letter pairs, each word read from its start to its end, is
    under ``_RANDOM_BITS``."""
    lowered = part.lower()
    if _UNSPELT.fullmatch(lowered) is not None:
        return False
    spelt = "^" + _SEPARATORS.sub("^", lowered).strip("^") + "^"
    pairs = [spelt[i : i + 2] for i in range(len(spelt) - 1)]
    if not pairs or any(p not in _PAIRS for p in pairs if p != "^^"):
        return False
    return sum(_PAIRS.get(p, 0) for p in pairs) / len(pairs) <= _RANDOM_BITS


def surprise(run: str) -> tuple[int, int]:
    """The bits of surprise of ``run``'s letter pairs read as one word from its start to its end, and how many pairs
    (``reads_as_word``'s measure, summed: several short runs of a longer word are judged together)."""
    spelt = "^" + run.lower() + "^"
    return sum(_PAIRS.get(spelt[i : i + 2], 9) for i in range(len(spelt) - 1)), len(spelt) - 1
