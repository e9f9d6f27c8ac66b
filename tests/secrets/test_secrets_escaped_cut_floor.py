"""A cut-off secret is hidden when the text keeps ``FRAGMENT`` (8) or more of its first characters: counted as the text
reads, each escape one character. A learned value's written forms (JSON's ``\\u00fc``, ``repr``'s ``\\xfc``) spell one
letter in several characters, so six letters of a surname that opens a secret (``Müller`` of
``Müller-Lüdenscheidt#2024``), written escaped at the end of a cut excerpt, passed the floor and were destroyed on disk,
where the same six letters as written are kept."""

from __future__ import annotations

import json

import pytest

from noesis_nb.secrets.guard import RunSecrets

SECRET = "Müller-Lüdenscheidt#2024"


@pytest.fixture
def guard() -> RunSecrets:
    found = RunSecrets("ep_01K9TESTRUNXXXXXXXXXXXXXX")
    found.learn([SECRET])
    return found


@pytest.mark.parametrize(
    "text",
    [
        "rows: Anna M\\u00fcller... (2 more)",
        "Kunde: M\\u00fcller",
        "Kunde: Müller",
        json.dumps({"name": "Anna Müller"})[:-2],  # an excerpt cut inside a JSON string
        "'Anna M\\xfcller",
    ],
)
def test_a_short_word_a_secret_opens_with_is_kept_in_every_form(guard: RunSecrets, text: str) -> None:
    assert guard.screen({"t": text})["t"] == text


@pytest.mark.parametrize(
    "text",
    [
        "Kunde: Müller-Lüdensch",
        "Kunde: M\\u00fcller-L\\u00fcdensch",
        json.dumps({"pw": SECRET})[:-6],
        "'M\\xfcller-L\\xfcdensch",
    ],
)
def test_a_cut_off_secret_is_still_hidden_in_every_form(guard: RunSecrets, text: str) -> None:
    shown = guard.screen({"t": text})["t"]
    assert "[REDACTED]" in shown and "densch" not in shown
