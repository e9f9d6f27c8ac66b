"""A random key whose letters keep one case for stretches is judged by how its letter runs are spelt, not only by how
much of it they cover.

``LmGrnukuZvqoxAs0Tt2zCxsgoUSIOMVd0IikfCnLe`` under ``shared_key`` or after ``leaked`` was shown: its runs
(``Grnuku``, ``Zvqox``, ``Cxsgo``, ``USIOM``) held vowels and covered 60% of it, which read as a name's words. Names
spelt as words, alphabets and public digests stay.
"""

from __future__ import annotations

import random
import string

from hypothesis import given, settings
from hypothesis import strategies as st

from noesis_nb.secrets import REDACTED_VALUE, redact

KEY_NAMES = ["shared_key", "sharedKey", "hash_key", "note", "value", "detail"]
LEAKED = "LmGrnukuZvqoxAs0Tt2zCxsgoUSIOMVd0IikfCnLe"


@st.composite
def stretched_keys(draw: st.DrawFn) -> str:
    """A random key of 40-48 characters whose letters run in stretches of one case (3-8 small letters, 1-6 capitals),
    one character in eight a digit, each drawn at random."""
    rnd = random.Random(draw(st.integers(0, 2**32)))
    size, out, upper = rnd.randint(40, 48), [], rnd.random() < 0.5
    while len(out) < size:
        letters = string.ascii_uppercase if upper else string.ascii_lowercase
        for _ in range(rnd.randint(1, 6) if upper else rnd.randint(3, 8)):
            out.append(rnd.choice(string.digits) if rnd.random() < 0.12 else rnd.choice(letters))
        upper = not upper
    return "".join(out[:size])


def _shown(key: str, value: str) -> str:
    out, _ = redact({"event": {key: value}})
    return str(out["event"][key])


def test_the_reported_key_is_hidden_under_a_key_name_and_in_prose() -> None:
    for key in ("shared_key", "sharedKey", "note"):
        assert _shown(key, LEAKED) == REDACTED_VALUE, key
    shown = _shown("note", f"I leaked {LEAKED}")
    assert LEAKED not in shown and shown.startswith("I leaked "), shown


@settings(max_examples=30, deadline=None)
@given(key=st.sampled_from(KEY_NAMES), secret=stretched_keys(), before=st.sampled_from(["", "I leaked ", "key: "]))
def test_generated_stretched_keys_are_hidden(key: str, secret: str, before: str) -> None:
    shown = _shown(key, before + secret + " yesterday")
    assert secret not in shown and REDACTED_VALUE in shown, (key, shown)
    assert shown.startswith(before) and shown.endswith(" yesterday"), shown


ORDINARY = [
    "getUserAccountSettingsHandlerFactory",
    "KnnAlgoParamEfSearch",
    "EKRecurrenceDayOfWeek",
    "WebkitBoxOrdinalGroup",
    "SOCKSHTTPSConnectionPool",
    "MLDSA44Ed25519PrivateKey",
    "CrtXxhash128Checksum",
    "TestSecretsIdNamedKeysRandom",
    "Donaudampfschifffahrtsgesellschaft",
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "MetaLlama31405BInstructTurbo",
    "test_redaction_keeps_ordinary_identifiers",
]


def test_ordinary_names_stay() -> None:
    for word in ORDINARY:
        text = f"see {word} in the log"
        assert _shown("note", text) == text, word


_WORDS = ["account", "settings", "handler", "factory", "request", "session", "Stream", "Buffer", "Token", "Count",
          "parser", "Config", "loader", "Window", "Event", "Queue", "JSON", "Id", "Of", "By", "v2"]  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(parts=st.lists(st.sampled_from(_WORDS), min_size=4, max_size=8))
def test_generated_camel_case_names_stay(parts: list[str]) -> None:
    # (a name of vowel-less acronyms, ``httpFactorySessionHTTPHTTP``, was hidden before this rule and still is)
    name = parts[0].lower() + "".join(p[:1].upper() + p[1:] for p in parts[1:])
    text = f"called {name}() twice"
    assert _shown("note", text) == text


def test_public_digests_stay() -> None:
    sha = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b"
    for key, value in (("sha", sha), ("etag", sha), ("checksum", sha), ("note", f"commit {sha}")):
        assert _shown(key, value) == value, key
