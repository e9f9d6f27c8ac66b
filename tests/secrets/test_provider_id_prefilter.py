"""A provider's request or response id is cleared of cloud keys by two substring tests before the pattern runs: the
tests answer as ``CLOUD_KEY_IN_ID`` does, for ids with and without a key's start in them. A start too near the id's
end for its key to follow (a random id's ``…SKVvx8``, one in forty) holds no key the detectors find, and a whole key
in an id is still judged by them."""

from __future__ import annotations

import random
import string

from noesis_nb.secrets.randomness import ALNUM_TOKEN, CLOUD_KEY_IN_ID
from noesis_nb.secrets.text import _no_cloud_key, find_in_text


def test_every_branch_of_the_cloud_key_pattern_starts_with_a_or_is_sk():
    branches = ALNUM_TOKEN.pattern.split("|")
    assert all(b.isalnum() and (b.startswith("A") or b == "SK") for b in branches), branches
    for branch in branches:  # each start is one of the keys' the id pattern looks for
        assert CLOUD_KEY_IN_ID.search(f"req_{branch}{'a1B2' * 9}"), branch


def test_the_substring_tests_answer_as_the_pattern_does():
    rng = random.Random(7)
    ids = [f"chatcmpl-{''.join(rng.choices(string.ascii_letters + string.digits, k=29))}" for _ in range(2000)]
    ids += ["req_0000057a7a7a7a7a7a7a7a7a7a7a7a", "msg_01AKIAxyz0123456789abcd", "resp_SKabc0123456789abcdef0"]
    assert [_no_cloud_key(v) for v in ids] == [CLOUD_KEY_IN_ID.search(v) is None for v in ids]
    assert not all(_no_cloud_key(v) for v in ids) and any(_no_cloud_key(v) for v in ids)


def test_an_id_holding_a_key_start_with_no_room_for_its_key_holds_none_the_detectors_find():
    rng = random.Random(11)
    started = []
    while len(started) < 12:  # random ids of the providers' length that hold a key's start (most hold "SK" or "AC")
        rid = f"req_{''.join(rng.choices(string.ascii_letters + string.digits, k=28))}"
        if ALNUM_TOKEN.search(rid):
            started.append(rid)
    started += ["req_0064y047f7LZdidHFK2qYpSKVvx8", "msg_01AKIAIOSFODNN7EXAM", "resp_01AIzaSyA1b2c3d4e5f6g7h8i9"]
    for rid in started:
        if _no_cloud_key(rid):
            assert not find_in_text(rid), rid


def test_an_id_holding_a_whole_key_is_still_judged_by_the_detectors():
    keys = ["AKIAIOSFODNN7EXAMPLE", "SK" + "a1b2c3d4" * 4, "AC" + "a1b2c3d4" * 4, "AIzaSyA1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6q"]
    for key in keys:
        rid = f"msg_01{key}"
        assert not _no_cloud_key(rid), rid
        assert key in find_in_text(rid), rid
