"""A password said in words with another grammar than ``password is X``: set ``to``/``as`` it (``set the password to
X``, ``changed password to X``), a few words naming what it opens before ``is`` (``the password to the db is X``),
``password => X``, a short name (``my pw is X``), and a ``.pgpass`` line inside a command or a list (``echo '…:X' >>
~/.pgpass``, ``- host:5432:…:X``). Each was written and shown in clear; sentences naming a password without giving one
are kept whole."""

from __future__ import annotations

import secrets as stdlib_secrets
import string

import pytest

from noesis_nb.secrets import redact, shown


def _password() -> str:
    rnd = stdlib_secrets.SystemRandom()
    return "".join(rnd.choice(string.ascii_letters + string.digits) for _ in range(9)) + rnd.choice("!#%") + "t7"


_SAID = [
    "set the password to {pw}",
    "I changed password to {pw} yesterday",
    "Please reset the root password as {pw}.",
    "updated my passphrase to '{pw}'",
    "the password to the db is {pw}",
    "The password for the staging server was {pw}",
    "password => {pw}",
    "pwd -> {pw}",
    "my pw is {pw}",
    "root pwd was {pw}",
    "echo 'db.example.com:5432:app:app:{pw}' >> ~/.pgpass",
    "- db.example.com:5432:app:app:{pw}",
    'printf "*:*:*:postgres:{pw}" > ~/.pgpass',
]


@pytest.mark.parametrize("form", _SAID)
def test_a_password_said_otherwise_is_hidden(form: str) -> None:
    pw = _password()
    text = form.format(pw=pw)
    out, _ = redact({"msg": text})
    assert pw not in shown(text) and pw not in out["msg"]


_ORDINARY = [
    "Set the password to something memorable.",
    "The password to access the server is stored in the vault.",
    "Remember the password for the wifi is required at login.",
    "I changed password to match the new policy.",
    "The password to the db is rotated every week.",
    "my pw is expired",
    "Set the password as described in the README.",
    "Reset the password to default afterwards.",
    "echo 'hello world' >> notes.txt",
    "- item one: 12:30 meeting",
]


@pytest.mark.parametrize("text", _ORDINARY)
def test_sentences_naming_a_password_without_one_are_kept(text: str) -> None:
    assert shown(text) == text
