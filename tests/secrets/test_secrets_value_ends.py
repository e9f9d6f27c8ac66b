"""A value given to a secret name runs to where its layout ends it, whatever it holds: ``DB_PASSWORD=Tr0ub4dor&3xyzQ``
was read as ending at ``&`` (as a URL query's value does) and ``&3xyzQ`` was written in clear; ``;``, ``,``, ``)``,
``]`` and ``}`` cut a value alike. A value ends at such a sign only where a blank, a quote, the text's end or a next
``name=`` follows it (a connection string's ``;Database=x``, a form's ``&next=1``, mount options' ``,uid=1000``),
and inside a URL's query (a ``?`` or ``&`` before its name) always at ``&``: the next parameter is kept."""

from __future__ import annotations

import pytest

from noesis_nb.secrets import redact, shown

_SIGNS = list("&;#,|!$%^*()[]{}<>?/\\=+@:")
_LAYOUTS = [
    "DB_PASSWORD={v}",  # .env
    "export DB_PASSWORD={v}",
    "DB_PASSWORD={v} # the staging one",
    "DB_PW={v}",
    "[database]\npassword = {v}\nuser = bob",  # INI
    "db:\n  password: {v}\n  user: bob",  # YAML
    "  db_pw: {v}",
    "api_key: {v}\nregion: eu",
    "--password {v}",  # command lines
    "--password={v}",
    "mytool -pw {v} --verbose",
    "Server=db;Password={v};Database=app",  # connection strings
    "Host=db;Username=app;Password={v}",
    "password = {v}",  # code, logs
    "secret_token={v}",
    "config: password={v} user=bob",
]
_VALUE = "Tr0ub4dor{sign}3xyzQ"


@pytest.mark.parametrize("sign", _SIGNS)
@pytest.mark.parametrize("layout", _LAYOUTS)
def test_a_value_holding_a_sign_is_hidden_whole(layout: str, sign: str) -> None:
    text = layout.format(v=_VALUE.format(sign=sign))
    for out in (shown(text), redact({"text": text})[0]["text"]):
        assert "Tr0ub4dor" not in out and "3xyzQ" not in out, out


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("https://app.example.com/cb?password=Tr0ub4dor&next=keepme1", "&next=keepme1"),
        ("GET /login?user=bob&token=Tr0ub4dorXY&page=keepme2 HTTP/1.1", "&page=keepme2"),
        ("https://x.example.com/?a=1&password=Tr0ub4dor&b=keepme3#top", "&b=keepme3#top"),
        ("curl -d 'user=bob&password=Tr0ub4dorXY&next=keepme4' https://x.example.com", "&next=keepme4"),
        ("Password=Tr0ub4dorXY;Database=keepme5", ";Database=keepme5"),
        ("mount -o username=bob,password=Tr0ub4dorXY,uid=1000 //h/s /mnt", ",uid=1000"),
        ("export DB_PASSWORD=Tr0ub4dorXY; echo keepme6", "; echo keepme6"),
        ("DB_PASSWORD=Tr0ub4dorXY && ./run keepme7", "&& ./run keepme7"),
        ("connect(password=Tr0ub4dorXY), keepme8", "), keepme8"),
        ("{pw: Tr0ub4dorXY, user: keepme9}", ", user: keepme9}"),
    ],
)
def test_a_value_still_ends_where_its_layout_ends_it(text: str, kept: str) -> None:
    out = shown(text)
    assert "Tr0ub4dor" not in out and kept in out, out
