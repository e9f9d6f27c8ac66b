"""Random keys of no known format are found by how random they read, as good as never missed.

The randomness rule's limit followed the length at 0.82·log2 n bits: 0.1-0.2% of random base62 and base64 keys of
32+ characters fell under it (``FeUr8+8DPrRYUfydjt4LbLILpPPmb7rrO00ymdORjIfL``), so about one secret in 500 of a
random corpus was written whole. From 32 characters the limit is 0.78·log2 n; below, where model ids with dates
read close to random, it stays. (A key of 32+ characters that reads as made of words, some one in 1,000, is still
taken for a name: the rule that keeps CamelCase names and model ids.) Google's OAuth codes (``?code=4/0A…``) are
issued codes whatever a draw reads like.
"""

from __future__ import annotations

import random
import string

import pytest

from noesis_nb.secrets.scan import redact

_ALPHABETS = {"base62": string.ascii_letters + string.digits, "base64": string.ascii_letters + string.digits + "+/"}


@pytest.mark.parametrize("alphabet", sorted(_ALPHABETS))
def test_random_keys_of_32_to_64_characters_are_found(alphabet: str) -> None:
    draw = random.Random(f"keys-{alphabet}")  # the same 10,000 keys each run
    keys = ["".join(draw.choice(_ALPHABETS[alphabet]) for _ in range(draw.randint(32, 64))) for _ in range(10_000)]
    missed = [key for key in keys if redact(f"the key is {key} here")[1] == []]
    # 0.82·log2 n missed 15-17 of these; what is left (about one in 1,000) reads as prose to the word-cover rule
    assert len(missed) <= 12, missed[:5]


def test_the_base64_key_a_corpus_drew_is_found() -> None:
    key = "FeUr8+8DPrRYUfydjt4LbLILpPPmb7rrO00ymdORjIfL"
    for text in (key, f"export TOKEN_X={key}", f"value: {key}", f"({key})"):
        shown, hits = redact(text)
        assert hits and key not in str(shown), text


@pytest.mark.parametrize("code", ["4/0AKKH5eubaGkUatoqjQIMWIaevz156lsr5HZWlMnaq", "4/0AXXf06uNfbbLejH7Tlj0iVMECL0UtfMYEVffpfMuT"])
def test_a_google_oauth_code_in_a_callback_url_is_found(code: str) -> None:
    shown, hits = redact(f"redirected to https://app.example/cb?state=xyz&code={code}&scope=email")
    assert hits and code not in str(shown) and "scope=email" in str(shown)


def test_a_model_id_with_a_date_is_kept() -> None:
    for text in ("gpt-4o-mini-2024-07-18", "claude-3-5-sonnet-20241022", "gemini-1.5-pro-002"):
        assert redact(f"model {text} answered")[1] == [], text
