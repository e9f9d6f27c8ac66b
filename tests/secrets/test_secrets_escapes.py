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
