"""A base64 ``user:password`` standing alone (a registry's ``auth``, as ``jq -r '.auths[].auth' ~/.docker/config.json``
prints it; ``echo -n user:pw | base64``) was kept: only ``Basic <base64>`` was read as a credential. It is hidden now,
and the password learned as it reads; base64 of ordinary text holding a ``:`` (a note, a path, a host, a version, a
media type, a digest) is kept."""

from __future__ import annotations

import base64
import secrets as stdlib_secrets
import string

import pytest

from noesis_nb.secrets import redact, shown
from noesis_nb.secrets.guard import RunSecrets


def _password() -> str:
    rnd = stdlib_secrets.SystemRandom()
    return "".join(rnd.choice(string.ascii_letters + string.digits) for _ in range(12)) + rnd.choice("!#%^*") + "q7"


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


@pytest.mark.parametrize("user", ["admin", "ci-bot", "deploy@example.com", "AWS"])
def test_a_bare_base64_user_password_is_hidden_and_its_password_hunted(user: str) -> None:
    pw = _password()
    word = _b64(f"{user}:{pw}")
    assert word not in shown(word)
    out, _ = redact({"msg": f"registry auth {word} printed"})
    assert word not in out["msg"]
    run = RunSecrets()  # what a run learns from it: the password as it reads, hunted in the run's later text
    assert word not in run.redact({"msg": word})["msg"]
    assert pw not in run.redact({"msg": f"logged in with {pw} ok"})["msg"]
    assert word not in shown(f"$ jq -r '.auths[].auth' ~/.docker/config.json\n{word}\n")


@pytest.mark.parametrize(
    "text",
    [
        "note: hello there friend",
        "path:/usr/local/bin/python3",
        "host:db-01.internal.example.com",
        "version:1.2.3-beta.4+build5",
        "Content-Type:application/json",
        "mailto:someone@example.com",
        "sha256:" + "ab12" * 16,
        "user:correcthorsebatterystaple",
    ],
)
def test_base64_of_ordinary_text_with_a_colon_is_kept(text: str) -> None:
    word = _b64(text)
    assert shown(word) == word
