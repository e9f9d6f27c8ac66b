"""A peer's value's preview, read from its head only, is what serialising the whole value and cutting it gives."""

from __future__ import annotations

import random
import re
from typing import Any

import orjson

from noesis_nb._jsonio import to_jsonable
from noesis_nb.integrations._preview import json_head, json_preview

_WORD_END = re.compile(r'[^\s",\[\]{}()]+\Z')


def _value(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.random()
    if depth > 4 or roll < 0.3:
        leaves = ["x" * rng.randint(0, 50), 'q"\\\n' * rng.randint(0, 9), "é😀" * rng.randint(0, 9), 12, -1.5, None]
        return rng.choice([*leaves, True, b"ab\xff" * rng.randint(0, 20), {1: "a", 2.5: "b"}, frozenset([3])])
    if roll < 0.6:
        return [_value(rng, depth + 1) for _ in range(rng.randint(0, 8))]
    if roll < 0.8:
        return tuple(_value(rng, depth + 1) for _ in range(rng.randint(0, 4)))
    return {"k" * rng.randint(0, 30) + str(i): _value(rng, depth + 1) for i in range(rng.randint(0, 8))}


def test_the_preview_is_the_whole_values_json_cut_at_the_limit():
    rng = random.Random(7)
    for _ in range(1500):
        value, limit = _value(rng), rng.randint(1, 300)
        whole = to_jsonable(value)
        text = orjson.dumps(whole, option=orjson.OPT_NON_STR_KEYS).decode()
        got = json_preview(value, limit)
        if len(text) <= limit:
            assert got == whole, (value, limit)
            continue
        assert got["preview"] == _WORD_END.sub("", text[:limit]), (value, limit)
        said = got["truncated"].split(" characters of JSON")[0]
        assert said in (str(len(text)), f"more than {limit}"), (value, limit, said)


def test_only_the_head_of_a_huge_value_is_read():
    huge = {"blob": "z" * 10_000_000, "rows": list(range(200_000)), "nested": [[i] for i in range(200_000)]}
    head, cut = json_head(huge, 500)
    assert cut and len(head["blob"]) <= 500 and head.get("rows", []) == [] and "nested" not in head
    head, cut = json_head(huge["nested"], 500)
    assert cut and len(head) <= 500 // 3 + 1  # each [i] takes three characters at least
    head, cut = json_head([b"\xf0\x9f\x98\x80" * 1_000_000], 100)  # bytes: stored as their text
    assert cut and head == ["😀" * 99]


def test_a_cycle_and_deep_nesting_end():
    loop: list[Any] = []
    loop.append(loop)
    assert json_preview(loop, 50)["preview"].startswith("[[[[")
    deep: list[Any] = []
    inner = deep
    for _ in range(5000):
        inner.append([])
        inner = inner[0]
    assert json_preview(deep, 20_000) is not None
