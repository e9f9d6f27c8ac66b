"""Known values are found in a text in one pass, however many there are.

A run may learn thousands of values; replacing each with its own pass over every text written or shown cost
values x length (1,000 values over 1 MB took a second, 5,000 five; 1,000 tokens split by zero-width spaces in
38 KB took 6 s to locate). The work is counted here, not timed: the passes over the text (a ``str`` search or
replace on it, a regex compiled) made while scrubbing or locating, which must not grow with the number of values.
"""

from __future__ import annotations

import random
import string
import sys
from collections.abc import Callable
from typing import Any

from noesis_nb.secrets import REDACTED_VALUE, RunSecrets, find_in_text, redact, scrub_text
from noesis_nb.secrets.known import Known

_SCANS = {"find", "rfind", "index", "count", "replace", "split", "startswith"}
_COMPILERS = ("sre_compile.py", "_compiler.py")


def _passes(call: Callable[[], Any], length: int) -> tuple[Any, int]:
    """``call()`` and the passes it made over a text of about ``length`` characters: each search or replace on a
    string at least half as long, and each regex compiled (a pattern made per value is a scan per value; the
    scans of a compiled pattern do not say which text they read)."""
    count = 0

    def profile(frame: Any, event: str, arg: Any) -> None:
        nonlocal count
        if event == "c_call" and getattr(arg, "__name__", "") in _SCANS:
            receiver = getattr(arg, "__self__", None)
            if isinstance(receiver, (str, bytes)) and len(receiver) >= length // 2:
                count += 1
        elif event == "call" and frame.f_code.co_name == "compile" and frame.f_code.co_filename.endswith(_COMPILERS):
            count += 1

    sys.setprofile(profile)
    try:
        result = call()
    finally:
        sys.setprofile(None)
    return result, count


def _tokens(n: int, seed: int = 7, size: int = 24) -> list[str]:
    rnd = random.Random(seed)
    return ["".join(rnd.choice(string.ascii_letters + string.digits) for _ in range(size)) for _ in range(n)]


def _text(values: list[str], filler: str = "the agent read the log and wrote a summary. ") -> str:
    return filler * 2_000 + f" {values[3]} and {values[-1]} " + filler * 100 + values[5][:12]  # the last one cut off


def test_scrubbing_with_thousands_of_known_values_reads_the_text_a_few_times() -> None:
    few, many = _tokens(20), _tokens(2_000)
    counts = []
    for values in (few, many):
        guard = RunSecrets()
        guard.learn(values)
        text = _text(values)
        out, passes = _passes(lambda g=guard, t=text: g.scrub_text(t), len(text))
        assert values[3] not in out and values[-1] not in out and out.endswith(REDACTED_VALUE)
        assert out.count(REDACTED_VALUE) == 3
        counts.append(passes)
    assert counts[1] <= counts[0] + 2, f"{counts[0]} passes with 20 values, {counts[1]} with 2,000"


def test_values_learned_one_at_a_time_are_read_in_a_few_passes() -> None:
    """A run learns its values one by one: each is compiled a few times (levels), and a text is read once per level."""
    values = _tokens(1_000)
    guard = RunSecrets()
    for value in values:
        guard.learn([value])
    assert len(guard._known.levels) <= 8
    text = _text(values)
    out, passes = _passes(lambda g=guard, t=text: g.scrub_text(t), len(text))
    assert values[3] not in out and values[-1] not in out and out.endswith(REDACTED_VALUE)
    assert passes <= 20, passes


def test_scrubbing_text_full_of_invisible_characters_reads_it_once_for_all_values() -> None:
    """Zero-width spaces send the text to the reading without them: the values are found there in one pass too."""
    counts = []
    for values in (_tokens(20), _tokens(2_000)):
        secret = values[4]
        text = "a\u200bb " * 20_000 + secret[:10] + "\u200b" + secret[10:] + " end"
        out, passes = _passes(lambda t=text, v=values: scrub_text(t, v), len(text))
        assert out.endswith(f" {REDACTED_VALUE} end") and secret[10:] not in out
        counts.append(passes)
    assert counts[1] <= counts[0] + 2, f"{counts[0]} passes with 20 values, {counts[1]} with 2,000"


def test_secrets_split_by_invisible_characters_are_located_in_one_pass() -> None:
    """Each token found in the text read without its zero-width spaces is located as written by mapping offsets,
    not by a search of the text per token (which made 1,000 tokens in 38 KB take 6 s)."""
    counts = []
    for n in (100, 400):
        tokens = ["ghp_" + t for t in _tokens(n, size=36)]
        text = " ".join("\u200b".join(t) for t in tokens)
        found, passes = _passes(lambda t=text: find_in_text(t), len(text))
        assert {"\u200b".join(t) for t in tokens} <= found and set(tokens) <= found
        counts.append(passes)
    assert counts[1] <= counts[0] + 10, f"{counts[0]} passes for 100 tokens, {counts[1]} for 400"


def test_redacting_thousands_of_found_values_replaces_them_in_one_pass() -> None:
    counts = []
    for n in (100, 400):
        tokens = ["ghp_" + t for t in _tokens(n, size=36)]
        text = " ".join(tokens)
        (out, hits), passes = _passes(lambda t=text: redact(t), len(text))
        assert out == " ".join([REDACTED_VALUE] * n)
        counts.append(passes)
    assert counts[1] <= counts[0] + 10, f"{counts[0]} passes for 100 tokens, {counts[1]} for 400"


def test_the_longest_known_value_wins_and_overlapping_ones_are_redacted_whole() -> None:
    values = ["abcdefgh123", "abcdefgh", "xyabcdef", *(_tokens(20))]
    assert scrub_text("1 abcdefgh123 2 abcdefgh 3", values) == f"1 {REDACTED_VALUE} 2 {REDACTED_VALUE} 3"
    assert scrub_text("zz xyabcdefgh123 zz", values) == f"zz {REDACTED_VALUE} zz"  # no part of either is left
    assert scrub_text("abcdefghabcdefgh", values) == REDACTED_VALUE * 2  # side by side: two redactions
    for few in (values[:3], values):  # searched one by one, and through the trie: the same
        assert Known(few).replaced("-abcdefgh123-", "#") == "-#-"


def test_cut_off_values_are_redacted_before_an_ellipsis_and_at_the_end() -> None:
    values = _tokens(50, size=30)
    text = f"a {values[1][:9]}… b {values[2][:15]}... c {values[3][:8]} d {values[4][:20]}"
    out = scrub_text(text, values)
    assert out == f"a {REDACTED_VALUE}… b {REDACTED_VALUE}... c {values[3][:8]} d {REDACTED_VALUE}"


def test_values_sharing_a_head_at_many_lengths_are_found_without_a_lookup_per_length() -> None:
    """``sk-`` repeated: each value a suffix of the next, all at every third character; the automaton reads them."""
    values = ["sk-" * j for j in range(8, 158)]
    text = "x " + "sk-" * 30_000 + " y"
    out, passes = _passes(lambda t=text, v=values: scrub_text(t, v), len(text))
    assert out == f"x {REDACTED_VALUE} y"
    assert passes <= 4, passes


def test_percent_encoded_secrets_are_located_in_one_pass() -> None:
    """Each secret found in the percent-decoded reading is located as written by mapping offsets, not by a
    pattern per secret (``password%3D…%40…`` 1,200 times took 7 s under a profiler, most of it compiling)."""
    counts = []
    for n in (100, 400):
        values = _tokens(n, size=20)
        text = " ".join(f"password%3D{v[:10]}%40{v[10:]}" for v in values)
        found, passes = _passes(lambda t=text: find_in_text(t), len(text))
        assert {f"{v[:10]}@{v[10:]}" for v in values} <= found and {f"{v[:10]}%40{v[10:]}" for v in values} <= found
        counts.append(passes)
    assert counts[1] <= counts[0] + 10, f"{counts[0]} passes for 100 secrets, {counts[1]} for 400"


def test_the_percent_decoded_reading_is_what_unquote_reads() -> None:
    from urllib.parse import unquote

    from noesis_nb.secrets.disguise import percent_decoded

    rnd = random.Random(3)
    pieces = ["%41", "%c3", "%A9", "%e2%82%ac", "%f0%9f%98%80", "%zz", "%", "a", "é", "%C3%A9", "%ff", "%80", "b%2", "%25"]
    for _ in range(5_000):
        text = "".join(rnd.choice(pieces) for _ in range(rnd.randint(0, 12)))
        reading, starts = percent_decoded(text)
        assert reading == unquote(text, errors="replace"), text
        assert len(starts) == len(reading) + 1 and starts[-1] == len(text) and starts == sorted(starts), text
    reading, starts = percent_decoded("pw=p%C3%A9ss%40x!")
    assert reading == "pw=péss@x!" and "pw=p%C3%A9ss%40x!"[starts[3] : starts[9]] == "p%C3%A9ss%40x"


class _Copies(str):
    """A text that counts the characters of every slice taken of it."""

    copied = 0

    def __getitem__(self, key: Any) -> str:
        part = str.__getitem__(self, key)
        _Copies.copied += len(part)
        return part


def test_many_authorization_schemes_copy_the_text_a_bounded_number_of_times() -> None:
    """``auth: bearer`` repeated: the token after each scheme was read from a copy of the rest of the text (n
    characters per scheme: 1.6 MB took 3.4 s, 12 times 400 KB)."""
    from noesis_nb.secrets.text import _assignments

    text = _Copies("auth: bearer x1y2z3w4 token: Bearer " * 5_000)
    _Copies.copied = 0
    values, _ = _assignments(text)
    assert values.count("x1y2z3w4") == 5_000
    assert _Copies.copied <= 2 * len(text), f"{_Copies.copied} characters copied from a text of {len(text)}"


def _compiled(call: Callable[[], Any]) -> int:
    """The characters of the regexes ``call()`` compiled."""
    count = 0

    def profile(frame: Any, event: str, arg: Any) -> None:
        nonlocal count
        if event == "call" and frame.f_code.co_name == "compile" and frame.f_code.co_filename.endswith(_COMPILERS):
            pattern = frame.f_locals.get("p")
            count += len(pattern) if isinstance(pattern, (str, bytes)) else 1

    sys.setprofile(profile)
    try:
        call()
    finally:
        sys.setprofile(None)
    return count


def test_scrubbing_while_a_run_learns_compiles_each_value_a_few_times() -> None:
    """Views scrub with every value any run learned (``known_everywhere``, a new tuple after each value
    learned): the new values are added to the compiled set as a level, not all compiled again (1,000 values
    learned one by one: 70 KB of patterns compiled so, 7.8 MB and two minutes compiling all each time). A
    short text with a few values of its own (an error's named values) is searched without replacing that set."""
    values = _tokens(1_000, seed=11)
    guard = RunSecrets()
    text = "x" * 2_000 + " " + values[0]
    compiled = 0
    for value in values:
        guard.learn([value])
        compiled += _compiled(lambda v=guard.values: scrub_text(text, v))
        named = scrub_text("an error naming named-value-1", ["named-value-1", "named-value-2"])
        assert named == f"an error naming {REDACTED_VALUE}"
    assert scrub_text(text, guard.values) == "x" * 2_000 + " " + REDACTED_VALUE
    assert compiled <= 200 * len(values), f"{compiled} characters of patterns compiled for {len(values)} values"


def _every_occurrence(text: str, values: set[str]) -> list[tuple[int, int]]:
    """The spans of ``text`` that some value covers, found the slow way: every value tried at every position."""
    from noesis_nb.secrets.known import spans

    return spans((i, i + len(v)) for v in values for i in range(len(text)) if text.startswith(v, i))


def test_every_occurrence_is_covered_however_the_values_overlap_themselves() -> None:
    """Values of two or three letters overlap themselves and each other (``abcab`` occurs again 3 on in
    ``abcabcab``): the union of all their occurrences is redacted, searched one by one or compiled, on a first
    text and on later ones (after a head was read apart). Searching on past each whole occurrence once left
    ``cab`` of ``abcabcab`` in clear."""
    rnd = random.Random(5)
    for trial in range(1_500):
        alphabet = "ab" if trial % 2 else "abc"
        values = {"".join(rnd.choices(alphabet, k=rnd.randint(6, 12))) for _ in range(rnd.randint(1, 30))}
        known = {each: Known(values, each=each) for each in (True, False)}
        for _ in range(2):
            text = "".join(rnd.choices(alphabet, k=rnd.randint(0, 300)))
            want = _every_occurrence(text, values)
            for each, found in known.items():
                assert found.spans(text) == want, (sorted(values), text, each)


def _calls(call: Callable[[], Any]) -> int:
    count = 0

    def profile(frame: Any, event: str, arg: Any) -> None:
        nonlocal count
        count += event in ("call", "c_call")

    sys.setprofile(profile)
    try:
        call()
    finally:
        sys.setprofile(None)
    return count


def test_a_head_found_at_every_character_costs_no_work_per_character() -> None:
    """A learned key that starts with many x's (``x`` * 70 + a key) and a megabyte of x's: its first characters
    are found at every position and no value goes on. The text is read by patterns, with as many calls for a
    megabyte as for 10 KB (a lookup per position once made 1 MB cost ~3 million calls and 1.5 s)."""
    values = {"x" * 70 + "Ab3k9Zq1Lm", *_tokens(40, seed=3)}
    known = Known(values)
    assert known.levels[0].each is False  # compiled, as a run's learned values are
    small, large = (_calls(lambda n=n: known.spans("x" * n)) for n in (10_000, 1 << 20))
    assert large < 2 * small + 200, f"1 MB of x's took {large:,} calls, 10 KB {small:,}"
    text = "x" * 50_000 + "x" * 70 + "Ab3k9Zq1Lm" + "x" * 1_000
    assert known.spans(text) == [(50_000, 50_080)]
    assert Known(values).spans(text) == [(50_000, 50_080)]  # a fresh set, before any head is read apart
