"""Labelled values (``name=value``, ``"name": "value"``) are found in text with long runs of name characters
(a base64 blob, a long path) exactly as the plain pattern finds them, without trying a name at every place of
each run (``text._assign_matches``)."""

from __future__ import annotations

import random
import string

from hypothesis import given, settings
from hypothesis import strategies as st

from noesis_nb.secrets import find_in_text
from noesis_nb.secrets.text import _ASSIGN, _assign_matches, _by_separators

# pieces that make names, separators, quotes, escapes and values, and runs of name characters around 81 long
_PIECES = st.one_of(
    st.sampled_from(["=", ":", '"', "'", "\\", " ", "\n", ",", ";", "&", "}", "]", ")", "password", "token", "_", ".", "-"]),
    st.sampled_from(["\u00a0", "\u2003", "\t", "é", "ß", " " * 30, '\\"', "=:", ":="]),
    st.text(alphabet="aZ09_.-", min_size=1, max_size=6),
    st.integers(min_value=70, max_value=200).map(lambda n: "".join(random.Random(n).choices("aB3_.-x", k=n))),
)


def _found(matches: object) -> list[tuple[tuple[int, int], str, str]]:
    return [(m.span(), m.group("name"), m.group("value")) for m in matches]  # type: ignore[attr-defined]


@settings(max_examples=400, deadline=None)
@given(st.lists(_PIECES, max_size=40).map("".join))
def test_the_same_matches_as_the_plain_pattern(text: str) -> None:
    assert _found(_by_separators(text)) == _found(_ASSIGN.finditer(text))


def test_a_name_just_before_or_inside_a_long_run_is_found_where_the_plain_pattern_finds_it() -> None:
    run = "A" * 100
    for text in (
        f"key={run}",  # the value starts where the run does
        f"x {run}token=abc",  # a name at the run's end (longer than 81: its last 81 characters)
        f"{run[:81]}=v {run}",  # a name of 81 characters, then a run
        f"{run}=v",  # a run of 100 ending at '=': the name is its last 81 characters
        f'"api_key": "{run}", "{run}": 1, password: {run}\\"x',
        f'{{"msg":"\\"hi\\""}} {run}',  # a value that starts with an escaped quote (read with what follows)
    ):
        assert _found(_by_separators(text)) == _found(_ASSIGN.finditer(text)), text


def test_a_labelled_secret_between_blobs_is_found_as_the_plain_pattern_finds_it() -> None:
    """(What reading a blob costs is measured by ``benchmarks/bench_secrets.py``, against the plain pattern.)"""
    rng = random.Random(7)
    blob = "".join(rng.choices(string.ascii_letters + string.digits + "+/", k=1 << 17))
    secret = "".join(rng.choices(string.ascii_letters + string.digits, k=24))
    text = f"{blob} password={secret} {blob}x-api-key:{secret}"
    found = _found(_assign_matches(text))
    assert found == _found(_ASSIGN.finditer(text))
    assert [value for _, _, value in found] == [secret, secret]
    assert secret in find_in_text(text)
