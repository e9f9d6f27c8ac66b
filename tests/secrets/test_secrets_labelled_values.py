"""A labelled secret is redacted whole: a quoted value to its closing quote, and names written as one word.

``_ASSIGN`` ends a value at ``& ; , ) } ]`` or a space, which a generated password or a passphrase may hold:
the rest was written in clear (and all of it when the part before was under 4 characters). Names such as
``PGPASSWORD``, ``APITOKEN``, ``DB_PASS`` were not read as secret names, so their values in a dict (a tool's
``env=``) were written as they were.
"""

from __future__ import annotations

import random
import string
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.secrets import shown
from noesis_nb.secrets.names import is_secret_key

_RANDOM = random.SystemRandom()


def _password(special: str) -> str:
    """12 letters and digits with ``special`` at a random place: its first one too, except for a blank (a quoted
    value that starts or ends with one is not read: a streamed ``" world"`` piece is no password)."""
    chars = [_RANDOM.choice(string.ascii_letters + string.digits) for _ in range(12)]
    chars.insert(_RANDOM.randrange(1, 12) if special.isspace() else _RANDOM.randrange(0, 13), special)
    return "".join(chars)


@pytest.mark.parametrize("special", ["&", ",", ";", ")", "}", "]", " ", "&,"])
@pytest.mark.parametrize(
    "template",
    [
        'DB_PASSWORD="{v}"',
        "export PGPASSWORD='{v}'",
        'password = "{v}"',
        "passphrase: '{v}'",
        '{{"config": "client_secret: \\"{v}\\""}}',  # JSON inside a string
        'api_key="{v}" region="eu"',
    ],
)
def test_a_quoted_labelled_value_is_redacted_to_its_closing_quote(template: str, special: str) -> None:
    value = _password(special)
    text = template.format(v=value)
    out = shown(text)
    parts = [p for p in value.replace(",", " ").replace(";", " ").split() if len(p) >= 4]
    for part in (value, *(p.strip("&)}]") for p in parts)):
        assert len(part) < 4 or part not in out, (text, out)


def test_a_quoted_passphrase_of_words_is_redacted_whole() -> None:
    out = shown('passphrase: "correct horse battery staple" and more')
    assert "horse" not in out and "battery" not in out and out.endswith(" and more"), out


@pytest.mark.parametrize(
    "text",
    ['name="Ann & Bob, Ltd."', 'title: "Tokens, prices (and more)"', "greeting='hello, world'", 'path="/tmp/a b"'],
)
def test_a_quoted_value_of_an_ordinary_name_is_kept(text: str) -> None:
    assert shown(text) == text


@pytest.mark.parametrize(
    "name",
    ["PGPASSWORD", "APITOKEN", "GITHUBTOKEN", "SECRETKEY", "privkey", "PassWord", "DB_PASS", "SMTP_PASS", "dbPass", "adminPass"],
)
def test_names_written_as_one_word_or_cut_short_are_secret_names(name: str) -> None:
    assert is_secret_key(name)


@pytest.mark.parametrize(
    "name",
    [
        "pass",
        "pass_rate",
        "pass_at_1",
        "passes",
        "pass_count",
        "num_pass",
        "is_pass",
        "test_pass",
        "first_pass",
        "all_pass",
        "KeePass",
        "compass",
        "bypass",
        "input_tokens",
        "token_count",
    ],
)
def test_an_evaluations_pass_and_token_counts_are_not_secret_names(name: str) -> None:
    """A lone ``pass`` (a test's result), ``pass_at_1`` and token counts are what an evaluation reports."""
    assert not is_secret_key(name)


def test_a_tools_environment_under_such_names_is_not_written(tmp_path: Path) -> None:
    env = {name: _password("x") for name in ("PGPASSWORD", "DB_PASS", "SMTP_PASS", "APITOKEN")}

    def agent(task, ctx):
        ctx.tool("db.migrate", {"kwargs": {"env": env}}, protocol="python", fn=lambda **kw: "migrated")
        return "ok"

    noesis_nb.solve("migrate", using=agent, runs_dir=tmp_path, approver="auto")
    written = "".join(p.read_text(errors="replace") for p in tmp_path.rglob("*") if p.is_file())
    assert not [v for v in env.values() if v in written]
    assert "PGPASSWORD" in written  # the names stay: only their values go


@pytest.mark.parametrize(
    "text",
    [
        'data: {"token": " world", "index": 1}',  # a streamed piece: a value starting with a blank
        'log("auth: " + user + " logged in at " + when)',  # the quote after the name's colon closes its text
        "print('password: ' + mask + ' set')",
    ],
)
def test_a_quote_that_closes_a_text_opens_no_value(text: str, tmp_path: Path) -> None:
    """Read as opening a value, the closing quote made ``" world"`` (or ``" + user + "``) a secret: learned by the
    run and removed from every later event (``hello world`` became ``hello[REDACTED]``)."""

    def agent(task, ctx):
        ctx.emit("note", {"text": text})
        ctx.emit("note", {"text": "hello world, the world is round; user logged in"})
        return "ok"

    episode = noesis_nb.solve("t", using=agent, runs_dir=tmp_path)
    written = (tmp_path / episode / "events.jsonl").read_text()
    assert "hello world, the world is round; user logged in" in written
    assert shown(text) == text
