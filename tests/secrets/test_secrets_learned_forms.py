"""A value the run learned is hunted in the forms it is passed on in: percent-encoded (a query string, a form),
escaped for a shell. Only the form it was learned in was hunted, so the same password in a later URL or command
line was written in clear. (Case is not folded: a learned ``Postgres`` would hide every ``postgres``.)"""

from __future__ import annotations

import json
import random
import string
import urllib.parse
from pathlib import Path

import pytest

import noesis_nb

_RANDOM = random.SystemRandom()


def _password() -> str:
    """Letters and digits with two signs a shell or a URL escapes, at random places."""
    chars = [_RANDOM.choice(string.ascii_letters + string.digits) for _ in range(14)]
    for sign in _RANDOM.sample("!#$&;*?", 2):
        chars.insert(_RANDOM.randrange(1, len(chars)), sign)
    return "".join(chars)


def _shell(value: str) -> str:
    return "".join("\\" + c if c in "!#$&;*?" else c for c in value)


FORMS = {
    "percent-encoded": lambda v: urllib.parse.quote(v, safe=""),
    "form-encoded": lambda v: urllib.parse.quote_plus(v),
    "shell-escaped": _shell,
}


@pytest.mark.parametrize("form", list(FORMS))
def test_a_learned_password_is_hunted_in_the_forms_it_is_passed_on_in(tmp_path: Path, form: str) -> None:
    password = _password()
    shown_as = FORMS[form](password)

    def agent(task, ctx):
        ctx.emit("note", {"login": {"user": "bob", "password": password}})  # redacted, and learned
        ctx.emit("note", {"later": f"then ran: vault login -u bob -p {shown_as} --to https://intranet.example"})
        return "ok"

    episode = noesis_nb.solve("log in", using=agent, runs_dir=tmp_path)
    written = (tmp_path / episode / "events.jsonl").read_text()
    as_json = json.dumps(shown_as)[1:-1]  # as the log holds it (a shell's backslashes doubled)
    assert password not in written and as_json not in written, as_json
    assert "--to https://intranet.example" in written  # the rest of the text stays
