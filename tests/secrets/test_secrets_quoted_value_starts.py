"""A quoted value given to a secret name is read whole whatever stands between the name and its quote.

A string's prefix (``b'X'``, ``rb"X"``, ``u'X'``, f-strings, C#'s ``@"X"``/``$"X"``, SQL's ``N'X'``), triple quotes,
a type annotation (``password: str = 'X'``, ``password: Final = 'X'``), a secret's wrapper (``SecretStr('X')``) or a
name and its value as a pair (``("password", b'X')``) made the prefix letter or the type read as the value: it was
hidden (``{'password'[REDACTED]'X'}``) and the password written in clear. And a value holding a quote was cut there:
an unquoted value (YAML's plain ``password: O'Brien2024``, ``DB_PASSWORD=Tr0ub'3xyz``, ``--password=a'b``) runs on
through a quote between two letters or digits, and a quoted one ends at its matching quote not escaped
(``"Zq8\\"Lm2"``, ``'Zq8\\'Lm2'``, and inside a JSON string)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import noesis_nb
from noesis_nb.secrets import redact, shown

# -- a prefix, an annotation, a wrapper or a pair before the quote -----------------------------------------------------
_PREFIXED = [
    "{{'password': b'{v}'}}",  # repr of a dict holding bytes
    "{{'user': 'svc', 'password': b'{v}'}}",
    "password=b'{v}'",
    'password = b"{v}"',
    "password = B'{v}'",
    "password = rb'{v}'",
    "password = bR'{v}'",
    'password = r"{v}"',
    "password = u'{v}'",
    'api_key = f"{v}"',
    "token = Rb'{v}'",
    "password = '''{v}'''",  # triple quotes
    'password = """{v}"""',
    'password = @"{v}"',  # C#
    'password = $"{v}"',
    "password = N'{v}'",  # SQL
    "PASSWORD=$'{v}'",  # the shell's ANSI-C quoting
    "password: str = '{v}'",  # annotations
    "password: Final = '{v}'",
    'password: Optional[str] = "{v}"',
    "DB_PASSWORD: str | None = '{v}'",
    "password: Final[str] = b'{v}'",
    "db_password: SecretStr = SecretStr('{v}')",  # a wrapper
    "password = SecretStr('{v}')",
    "[('password', b'{v}')]",  # pairs
    "('password', '{v}')",
    'headers = [("X-Api-Key", "{v}")]',
]


def _value(middle: str) -> str:
    return f"Zk{middle}7q"  # a digit in it: no word


@pytest.mark.parametrize("layout", _PREFIXED)
def test_a_quoted_value_after_a_prefix_an_annotation_or_a_pair_is_hidden(layout: str) -> None:
    value = _value("8sLm2pQx")
    text = layout.format(v=value)
    for out in (shown(text), redact({"text": text})[0]["text"]):
        assert value not in out and "8sLm2pQx" not in out, out


_MIDDLE = st.text(
    st.sampled_from("abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789-_.!@#%^*+~"), min_size=4, max_size=30
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(layout=st.sampled_from(_PREFIXED), middle=_MIDDLE)
def test_any_such_value_is_hidden_whole(layout: str, middle: str) -> None:
    value = _value(middle)
    out = shown(layout.format(v=value))
    assert middle not in out, out


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("password = b'Zk8sLm2pQx7q'", "password = b'"),  # the prefix and the sign are no value
        ("password: Final = 'Zk8sLm2pQx7q'", "password: Final = '"),  # nor the type
        ("password: Optional[str] = 'Zk8sLm2pQx7q'", "password: Optional[str] = '"),
        ("db_password: SecretStr = SecretStr('Zk8sLm2pQx7q')", "db_password: SecretStr = SecretStr('"),
        ("password: Optional[str] = None", "password: Optional[str] = None"),
        ("password: str = field(default=None)", "password: str = field(default=None)"),
        ('password = f"{prefix}{suffix}"', 'password = f"{prefix}{suffix}"'),
        ("fields = ('username', 'password', 'email')", "fields = ('username', 'password', 'email')"),
        ("('password', 'password_confirm')", "('password', 'password_confirm')"),
        ("choices = [('password', 'Password')]", "choices = [('password', 'Password')]"),
        ("password = getpass('Password: ')", "password = getpass('Password: ')"),
    ],
)
def test_ordinary_code_around_such_values_is_kept(text: str, kept: str) -> None:
    assert kept in shown(text)


# -- a quote inside a value --------------------------------------------------------------------------------------------
_UNQUOTED = [
    "password: {v}",  # YAML's plain scalar
    "db:\n  password: {v}\n  user: bob",
    "DB_PASSWORD={v}",  # .env
    "export DB_PASSWORD={v}",
    "[db]\npassword = {v}\nuser = bob",  # INI
    "--password={v}",
    "--password {v} --verbose",
    "Server=db;Password={v};Database=app",
    "config: password={v} user=bob",
]
_INNER = ["O'Brien2024Zq!", "Tr0ub'3xyzQk", 'Tr0ub"3xyzQk', "Zq8'Lm2'pXw9", "a'b4Zq8Lm2"]


@pytest.mark.parametrize("value", _INNER)
@pytest.mark.parametrize("layout", _UNQUOTED)
def test_an_unquoted_value_runs_on_through_a_quote_inside_it(layout: str, value: str) -> None:
    text = layout.format(v=value)
    head, tail = value[:4], value[-4:]
    for out in (shown(text), redact({"text": text})[0]["text"]):
        assert head not in out and tail not in out, out


_ESCAPED = [
    ('log: {{"password": "{a}\\"{b}"}}', "JSON in text"),
    ("password = '{a}\\'{b}'", "single quotes"),
    ('password = "{a}\\"{b}"', "double quotes"),
    ('{{\\"password\\": \\"{a}\\\\\\"{b}\\"}}', "JSON in a JSON string"),
    ("password = b'{a}\\'{b}'", "bytes"),
    ("'token': '{a}\\'{b}', 'user': 'bob'", "a dict's repr"),
]


@pytest.mark.parametrize(("layout", "what"), _ESCAPED)
def test_a_quoted_value_ends_at_its_closing_quote_not_an_escaped_one(layout: str, what: str) -> None:
    text = layout.format(a="Zq8k", b="Lm2pXw7")
    for out in (shown(text), redact({"text": text})[0]["text"]):
        assert "Zq8k" not in out and "Lm2pXw7" not in out, (what, out)


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ('api_key = os.environ["OPENAI_API_KEY"]', 'os.environ["OPENAI_API_KEY"]'),
        ("token = data['token']", "data['token']"),
        ("{'password': 'Zk8sLm2pQx7q', 'user': 'bob'}", "'user': 'bob'"),
        ('{"password":"Zk8sLm2pQx7q","user":"bob"}', '"user":"bob"'),
        ("token='Zk8sLm2pQx7q'+suffix", "'+suffix"),
        ("password: 'Zk8sLm2pQx7q' # don't share", "# don't share"),
    ],
)
def test_a_quote_opening_or_closing_a_string_still_ends_a_value(text: str, kept: str) -> None:
    out = shown(text)
    assert "Zk8sLm2pQx7q" not in out and kept in out, out


@pytest.mark.parametrize(
    "text",
    [
        "password: it's complicated",  # words with an apostrophe: prose, no value
        "token: don't share it",
        "the password: isn't set",
        "auth: won't work",
        "secret: O'Reilly",
        "cookie: it's a biscuit",
        "[('api_key', 'API key'), ('password', 'Password')]",  # a form's labels
        "headers = {'Authorization': f'Bearer {token}'}",  # an interpolated string holding no value of its own
        "token = f'{prefix}-{n}'",
    ],
)
def test_prose_and_labels_around_a_secret_name_are_kept(text: str) -> None:
    assert shown(text) == text


# -- a live run writes none of them ------------------------------------------------------------------------------------
def test_a_live_run_writes_and_shows_none_of_these_values(tmp_path: Path) -> None:
    texts, values = [], []
    for n, layout in enumerate([*_PREFIXED, *_UNQUOTED]):
        value = _value(f"{n:02d}Lm{'Q' * (n % 3)}x") if layout in _PREFIXED else f"Tr0ub'{n:02d}xyzQk"
        texts.append(layout.format(v=value))
        values.append(value.partition("'")[2] or value)  # (an inner quote's tail: the part that was written)
    texts.append('log: {"password": "Zq8k\\"Lm2pXw7"}')
    values.append("Lm2pXw7")

    def agent(task: str, ctx: Any) -> str:
        for text in texts:  # (under ``msg``: texts under ``text`` are read joined, as a stream's pieces)
            ctx.emit("note", {"msg": text})
        return "done"

    ep = noesis_nb.solve("t", using=agent, runs_dir=tmp_path, approver="auto")
    written = {p.name: p.read_text("utf-8") for p in (tmp_path / ep).rglob("*") if p.is_file()}
    html = noesis_nb.show(tmp_path / ep).snapshot_html()
    for value in values:
        assert not [name for name, body in written.items() if value in body], value
        assert value not in html, value
    notes = [json.loads(line)["payload"]["msg"] for line in written["events.jsonl"].splitlines() if '"note"' in line]
    assert len(notes) == len(texts)
