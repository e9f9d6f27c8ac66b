"""Secrets split across adjacent strings of a list (``noesis_nb.secrets.joined``): streamed chunks, argv words."""

from __future__ import annotations

import secrets as stdlib_secrets

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from noesis_nb.secrets import might_contain, redact
from noesis_nb.secrets.guard import RunSecrets
from noesis_nb.secrets.text import payload_might_contain

_WIDE = {f"count_{i}": i for i in range(10)}


@pytest.mark.parametrize(
    "pieces",
    [
        ["password=", "{pw}"],
        ["export API_TOKEN=", "{pw}", "; make deploy"],
        ["Authorization: Bearer", "{pw}"],
        ["postgres://admin:", "{pw}", "@db.example.com/app"],
        ["ghp_{a}", "{b}", "{c}"],
        ["sk-proj-{a}", "{b}"],
    ],
)
def test_a_secret_split_across_adjacent_strings_of_a_list_is_found(pieces):
    """Streamed chunks and argv words: no piece shows the secret, their joined text does."""
    pw = "Hu" + stdlib_secrets.token_hex(5)
    token = stdlib_secrets.token_hex(18)
    items = [p.format(pw=pw, a=token[:10], b=token[10:24], c=token[24:]) for p in pieces]
    for payload in ({"chunks": items}, {**_WIDE, "chunks": items}, {"msg": {"parts": items}}):
        blob = orjson.dumps(payload)
        assert might_contain(blob) and payload_might_contain(payload, blob)
        run = RunSecrets()
        written = orjson.dumps(run.screen(payload)).decode()
        assert pw not in written and token[:8] not in written and token[10:18] not in written, written
        assert any(pw in v or token[:24] in v for v in run.values)
    out, _ = redact({"argv": ["git", "commit", "-m", "rotate the token", "--author", "bob"]})
    assert out == {"argv": ["git", "commit", "-m", "rotate the token", "--author", "bob"]}


@settings(max_examples=80, deadline=None)
@given(cuts=st.lists(st.integers(min_value=1, max_value=39), min_size=1, max_size=5, unique=True))
def test_a_token_cut_anywhere_into_list_pieces_is_redacted(cuts):
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    bounds = [0, *sorted(cuts), len(token)]
    pieces = [token[a:b] for a, b in zip(bounds, bounds[1:])]
    written = orjson.dumps(RunSecrets().screen({"chunks": ["see ", *pieces, " ok"]})).decode()
    assert not any(len(p) >= 4 and p in written for p in pieces), (pieces, written)
    assert '"see "' in written and '" ok"' in written  # streamed text: the words around a token stay
