"""A key in a URL's ``?key=`` or ``?code=`` with a word beside it (``?key=download-<24 random characters>``,
``?code=<random>_weather``): those names count only a value that reads random as a whole, and a word piece made the
whole read as words and a name's parts, so about one key in ten of that shape was shown. A piece of 16+ characters
that reads random on its own now counts; product keys and slugs (``ThinkPadX1Carbon``, ``my-product-name-2024``)
stay. The oracle is the key's random piece alone: whatever hides it alone under the name hides it beside a word."""

from __future__ import annotations

import random
import string

import pytest

from noesis_nb.secrets import shown

_WORDS = ["download", "abcdefgh", "rotate", "README", "weather", "token", "user", "Summer", "v2"]
_SEPARATORS = ["-", "_", ".", "~"]


def _pieces(seed: int, count: int) -> list[str]:
    rnd = random.Random(seed)
    return ["".join(rnd.choice(string.ascii_letters + string.digits) for _ in range(24)) for _ in range(count)]


@pytest.mark.parametrize("name", ["key", "code"])
def test_a_key_beside_a_word_in_a_url_query_is_hidden(name: str) -> None:
    shown_keys = []
    for i, piece in enumerate(_pieces(20261207, 90)):
        alone = f"see https://h.example.com/x?{name}={piece}&page=2"
        if piece in shown(alone):  # a piece the rules take for no key alone (one in some hundreds): no oracle
            continue
        word, sep = _WORDS[i % len(_WORDS)], _SEPARATORS[i % len(_SEPARATORS)]
        for value in (f"{word}{sep}{piece}", f"{piece}{sep}{word}"):
            text = f"see https://h.example.com/x?{name}={value}&page=2"
            if piece in shown(text):
                shown_keys.append(value)
    assert not shown_keys, shown_keys


@pytest.mark.parametrize(
    "url",
    [
        "https://shop.example.com/p?key=ThinkPadX1Carbon",
        "https://shop.example.com/p?key=my-product-name-2024-edition",
        "https://example.com/c?code=SUMMER25",
        "https://example.com/o?key=order-2024120512345678",
        "https://example.com/p?key=getUserAccountSettings-v2",
        "https://example.com/p?key=Introduction_to_Machine_Learning",
        "https://example.com/d?key=2024-12-07T18-40-12Z-report",
    ],
)
def test_product_keys_and_slugs_are_kept(url: str) -> None:
    assert shown(url) == url
