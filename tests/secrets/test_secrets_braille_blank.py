"""The blank braille pattern (U+2800) shows as nothing, as the Hangul fillers do: one put inside a learned password or a
key of a known format hid it from every pattern, and the value was written in clear."""

from __future__ import annotations

from noesis_nb.secrets import shown
from noesis_nb.secrets.guard import RunSecrets

BLANK = "\u2800"


def test_a_learned_value_is_found_through_a_blank_braille_pattern() -> None:
    password = "Tr0ub4dorHorse93"
    guard = RunSecrets()
    guard.screen({"password": password})
    text = f"logged in with {password[:5]}{BLANK}{password[5:]} today"
    for out in (guard.screen({"text": text})["text"], guard.scrub_text(text)):
        assert "Tr0ub" not in out and "Horse" not in out, out


def test_a_key_of_a_known_format_is_found_through_one() -> None:
    key = "sk-proj-" + "AbCdEfGhIjKlMnOpQrStUvWxYz012345"
    out = shown(f"use {key[:12]}{BLANK}{key[12:]} now")
    assert out == "use [REDACTED] now", out
