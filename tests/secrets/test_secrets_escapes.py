"""Secrets behind the escapes ``disguise`` reads besides ``\\uXXXX``: JSON's ``\\/``, octal and named escapes."""

from __future__ import annotations

import orjson
import pytest

from noesis_nb.secrets import find_in_text, might_contain
from noesis_nb.secrets.guard import RunSecrets
from noesis_nb.secrets.text import payload_might_contain

_WIDE = {f"count_{i}": i for i in range(10)}


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ('cfg {"url": "https:\\/\\/bob:Hu8kQz2x!@h.example\\/x"}', "Hu8kQz2x!"),  # JSON's escaped solidus
        ("\\160assword=Hu8kQz2x", "Hu8kQz2x"),  # octal escape
        ("key \\163k-proj-Ab12Cd34Ef56Gh78Ij90Kl12 here", "Ab12Cd34Ef56Gh78Ij90Kl12"),
        ("\\N{LATIN SMALL LETTER P}assword=Hu8kQz2x", "Hu8kQz2x"),
        ("\\ud83d\\ude00 \\u0070assword=Hu8kQz2x", "Hu8kQz2x"),  # surrogate escapes before an escaped name
        ("\\ud83d\\u0067\\u0068\\u0070_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8", "a1B2c3D4e5F6g7H8"),
    ],
)
def test_secrets_behind_more_escapes_are_found(text, secret):
    for payload in ({"text": text}, {**_WIDE, "text": text}):
        blob = orjson.dumps(payload)
        assert might_contain(blob) and payload_might_contain(payload, blob)
        assert secret not in orjson.dumps(RunSecrets().screen(payload)).decode(), payload


@pytest.mark.parametrize("text", ["C:\\Users\\bob\\100 files\\notes.txt", "a regex like ^https?:\\/\\/ matches a scheme"])
def test_ordinary_text_with_these_escapes_is_kept(text):
    assert find_in_text(text) == set()
    assert RunSecrets().screen({"note": text}) == {"note": text}


@pytest.mark.parametrize(
    ("first", "later"),
    [
        ("password=Hu8k\\ud83d\\ude00Qz2x", "typed Hu8k\U0001f600Qz2x"),  # a surrogate pair is one character
        ("password=Hu8k\U0001f600Qz2x", "typed Hu8k\\ud83d\\ude00Qz2x"),
        ("password=Hu8kQz2xAb", "typed \\u0048\\u0075\\u0038\\u006bQz2xAb"),  # a known value, spelled in escapes later
        ("password=Hu8kQz2xAb", "typed &#x48;&#x75;8kQz2xAb"),
    ],
)
def test_a_known_value_is_scrubbed_however_it_is_escaped_later(first, later, tmp_path):
    """Before: ``\\ud83d\\ude00`` was kept as two escapes (no character), and a value learned in one spelling was
    not scrubbed from a later text that wrote it in escapes: the text showed it as written."""
    from noesis_nb.secrets import for_run, shown

    run = for_run(tmp_path)  # registered: views scrub what any run learned
    run.screen({"t": first})
    assert run.screen({"t": later}) == {"t": "typed [REDACTED]"}
    assert run.screen({**_WIDE, "t": later})["t"] == "typed [REDACTED]"
    assert shown(later) == "typed [REDACTED]"
