"""The linear forms of detect-secrets' patterns (``secrets.linear``) find what the originals find.

They are compared on small texts (the originals are fast on those) built from the shapes that made the
originals slow and from real secret shapes. ``test_secrets_linear_time`` holds them to their speed.
"""

from __future__ import annotations

import importlib
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from noesis_nb.secrets.linear import per_line, widen_all
from noesis_nb.secrets.plugins import plugins
from noesis_nb.secrets.text import _EXTRA, _LINE_HEADS

# the shapes that made a pattern retry from every start, and the punctuation around them
_RISKY = [
    "secret_",
    "password",
    "api_key",
    "db_pass",
    "contraseña",
    "sk-",
    "sk-ant-",
    "T3BlbkFJ",
    "//a",
    "/:_authToken=",
    "eyJ",
    "eyJa",
    "AKIA",
    "ghp_",
    "://a:",
    "://a@",
    "https://",
    "AIza",
    "glpat-a",
    "cl_key",
    "ibm_cloud_key",
    "sl_key",
    "curl -u ",
    "mysql -p",
    " -p",
    "-u ",
    "--user=",
    "npm_",
    "cos_secret_key",
]
_PUNCT = [
    " ",
    "  ",
    "\n",
    "\v",
    "=",
    "==",
    "!==",
    "=>",
    ":",
    ":=",
    "::",
    ";",
    ",",
    "'",
    '"',
    "`",
    "[",
    "]",
    "(",
    ".",
    "a",
    "Z9",
    "-",
    "_",
    "@",
    "/",
]
# real shapes of secrets the detectors exist for
_SAMPLES = [
    "AKIAIOSFODNN7EXAMPLE",
    "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5",
    "sk-" + "Ab1" * 7 + "T3BlbkFJ" + "Zy9" * 7,
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl",
    "//registry.npmjs.org/:_authToken=npm_" + "a1B2" * 9,
    "//npm.example.com/:_authToken=0123abcd-0123-abcd-0123-0123456789ab",
    "abcdefghijklmnopqrstuvwx",
    "0123456789abcdef" * 4,
    "aB3_dE5-fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5bC7dE9",
    "0123456789abcdef" * 3,
    "bob:hunter22@db",
    "hunter22",
]
_TEXTS = st.lists(st.sampled_from(_RISKY + _PUNCT + _SAMPLES), max_size=14).map("".join)
# names, signs and quoted values only: most of these texts assign something to a secret-looking name
_KEYWORD_PIECES = ["password", "secret_", "api_key", "my_db_pass", "x", "hunter22", "s3cr3t,x"]
_KEYWORD_BITS = st.sampled_from(
    _KEYWORD_PIECES + [" ", ":", "=", "==", "=>", "'", '"', "`", ";", ",", "\n", "\v", "]", "`;", "`a ", ",`;"]
)
_SOME = st.lists(_KEYWORD_BITS, max_size=4).map("".join)
_KEYWORD_TEXTS = st.lists(st.tuples(_SOME, st.sampled_from(_KEYWORD_PIECES[:4]), _SOME, _SOME), max_size=4).map(
    lambda parts: "".join("".join(p) for p in parts)
)


def _originals() -> dict[str, object]:
    """Fresh detect-secrets plugins, as they ship (their patterns are class attributes)."""
    found = {}
    for plugin in plugins()[0]:
        cls = type(plugin)
        found[cls.__name__] = getattr(importlib.import_module(cls.__module__), cls.__name__)()
    return found


_ORIGINALS = _originals()


@settings(max_examples=600, deadline=None, derandomize=True)
@given(_TEXTS)
def test_value_plugins_find_what_detect_secrets_finds(text: str) -> None:
    for plugin in plugins()[0]:
        original = _ORIGINALS[type(plugin).__name__]
        assert list(plugin.analyze_string(text)) == list(original.analyze_string(text)), (type(plugin).__name__, text)


@settings(max_examples=1000, deadline=None, derandomize=True)
@given(st.one_of(_TEXTS, _KEYWORD_TEXTS))
def test_keyword_patterns_find_what_detect_secrets_finds(text: str) -> None:
    from detect_secrets.plugins.keyword import CONFIG_DENYLIST_REGEX_TO_GROUP, QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP

    for original, linear in zip(
        (CONFIG_DENYLIST_REGEX_TO_GROUP, QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP), plugins()[2], strict=True
    ):
        for (pattern, group), (rewritten, same_group) in zip(original.items(), linear.items(), strict=True):
            before, after = pattern.search(text), rewritten.search(text)
            assert group == same_group
            assert (before and before.group(group)) == (after and after.group(group)), (pattern.pattern, text)


@settings(max_examples=600, deadline=None, derandomize=True)
@given(_TEXTS)
def test_line_patterns_find_what_finditer_finds(text: str) -> None:
    for pattern, head in _LINE_HEADS.items():
        assert [m.span(m.lastindex or 0) for m in per_line(pattern, head, text)] == [
            m.span(m.lastindex or 0) for m in pattern.finditer(text)
        ]


def _widen(text: str, value: str) -> str:
    """Widening as every occurrence followed by token characters, found by ``re.finditer``."""
    longest = value
    for m in re.finditer(re.escape(value) + r"[A-Za-z0-9_-]+", text):
        longest = max(longest, m.group(), key=len)
    return longest


@settings(max_examples=600, deadline=None, derandomize=True)
@given(_TEXTS, st.lists(st.sampled_from(_RISKY + _SAMPLES + ["a", "eyJa", "AKIAAKIA"]), min_size=1, max_size=4))
def test_widening_takes_each_value_to_its_end(text: str, values: list[str]) -> None:
    values = [v for v in values if v in text] or values
    assert widen_all(text, values) == {_widen(text, v) for v in values}


@settings(max_examples=300, deadline=None, derandomize=True)
@given(_TEXTS, st.lists(st.sampled_from(_RISKY + _SAMPLES + _PUNCT + ["a", "aa", "eyJa", "AKIAAKIA"]), min_size=1, max_size=6))
def test_many_values_are_widened_as_each_alone(text: str, values: list[str]) -> None:
    """Past the number searched for one by one, the values are found in one pass: each is widened the same,
    those overlapping each other or their own occurrences (``aa`` in ``aaaa``) included."""
    pieces = {text[i : i + n] for n in (1, 2, 3, 5, 8, 13) for i in range(len(text))}
    many = [*values, *pieces, *(f"unseen{n}" for n in range(70))]
    assert widen_all(text, many) == {_widen(text, v) for v in many if v}


def test_every_pattern_named_is_rewritten() -> None:
    """A detect-secrets release that changed a pattern keeps its own: the forms here would then be stale."""
    for mapping in plugins()[2]:
        # all but the one starting at a quote (``'value' == password``) start at a keyword
        assert sum(p.pattern.startswith(r"(?<!\w)(?>") for p in mapping) == len(mapping) - 1
        assert not any(r"(?=[^\v\'\"]*)" in p.pattern for p in mapping)
    by_name = {type(p).__name__: p for p in plugins()[0]}
    for name in ("OpenAIDetector", "JwtTokenDetector", "NpmDetector"):
        assert type(by_name[name].denylist[0]).__name__ == "_FirstStart"
    for name in ("CloudantDetector", "IbmCloudIamDetector", "IbmCosHmacDetector", "SoftlayerDetector"):
        assert not any("(?: *)(?:=|:" in p.pattern for p in by_name[name].denylist)
    assert len(_LINE_HEADS) == 6 and set(_LINE_HEADS) <= set(_EXTRA)


def test_searched_stretch_by_stretch_the_keyword_patterns_find_the_first_match() -> None:
    """``'value' == password`` searched stretch by stretch, and ``password `value`;`` with the backticks that open
    and close nothing read as commas, give detect-secrets' own first match (its groups) on texts of quotes,
    backticks, semicolons, line ends, signs and keywords."""
    import random

    from detect_secrets.plugins import keyword

    from noesis_nb.secrets.linear import keyword_maps

    originals = (keyword.CONFIG_DENYLIST_REGEX_TO_GROUP, keyword.QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP)
    pairs = [
        (old, new)
        for before, after in zip(originals, keyword_maps(originals), strict=True)
        for old, new in zip(before, after, strict=True)
        if not isinstance(new, re.Pattern)
    ]
    assert {type(new).__name__ for _, new in pairs} == {"_QuotedComparison", "_Unopened", "KeywordFirst"}
    parts = ["'", '"', "`", "\x0b", "\n", " ", "=", "!", "==", "!=", "a", "b", "_", ",", "password", "secret"]
    parts += ["api_key", "x1", "é", "\t", "===", "!==", "pwd", "`v`", ";", "`;", ",`;", "``;", "`a ", "secret `a` "]
    rnd = random.Random(7)
    for _ in range(20_000):
        text = "".join(rnd.choice(parts) for _ in range(rnd.randint(0, 25)))
        for old, new in pairs:
            want, got = old.search(text), new.search(text)
            # the same groups where they are; a keyword starts its word (``xpassword``), the match too
            assert (want and [want.span(g) for g in range(1, want.re.groups + 1)]) == (
                got and [got.span(g) for g in range(1, want.re.groups + 1)]
            ), repr(text)
            assert (want and (want.groups(), want.group(1, 2))) == (got and (got.groups(), got.group(1, 2))), repr(text)
