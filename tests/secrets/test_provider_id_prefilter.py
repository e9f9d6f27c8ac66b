"""A provider's request or response id is cleared of cloud keys by two substring tests before the pattern runs: the
tests answer as ``ALNUM_TOKEN`` does, for ids with and without a key's start in them."""

from __future__ import annotations

import random
import string

from noesis_nb.secrets.randomness import ALNUM_TOKEN
from noesis_nb.secrets.text import _no_cloud_key


def test_every_branch_of_the_cloud_key_pattern_starts_with_a_or_is_sk():
    branches = ALNUM_TOKEN.pattern.split("|")
    assert all(b.isalnum() and (b.startswith("A") or b == "SK") for b in branches), branches


def test_the_substring_tests_answer_as_the_pattern_does():
    rng = random.Random(7)
    ids = [f"chatcmpl-{''.join(rng.choices(string.ascii_letters + string.digits, k=29))}" for _ in range(2000)]
    ids += ["req_0000057a7a7a7a7a7a7a7a7a7a7a7a", "msg_01AKIAxyz0123456789abcd", "resp_SKabc0123456789abcdef0"]
    assert [_no_cloud_key(v) for v in ids] == [ALNUM_TOKEN.search(v) is None for v in ids]
    assert not all(_no_cloud_key(v) for v in ids) and any(_no_cloud_key(v) for v in ids)
