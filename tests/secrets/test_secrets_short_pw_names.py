"""``pw`` (``pw=X``, ``user_pw=X``, ``db_pw: X``, ``--pw X``) and ``pwd`` as a flag or before a quoted value name a
password in text as they do as JSON keys: the event screen's prefilter looked for ``pw`` only as a whole JSON key
(``"pw": …``) or said in words (``my pw is X``), so ``user_pw=X`` in a config file, a connection string or a command
line never reached the detectors and was written in clear; ``--pwd X`` and ``pwd="X Y"`` were read under no secret
name (``PWD`` is the working directory). The working directory is still shown (``$ pwd`` then ``/home/x``,
``PWD=/srv/app``), and ``pw`` inside a word (``pwm``, ``mapping``) sends no text to the detectors."""

from __future__ import annotations

import secrets as stdlib_secrets
import string
from pathlib import Path
from typing import Any

import orjson
import pytest

import noesis_nb
from noesis_nb.secrets import redact, shown
from noesis_nb.secrets.text import might_contain


def _password() -> str:
    rnd = stdlib_secrets.SystemRandom()
    return "".join(rnd.choice(string.ascii_letters + string.digits) for _ in range(9)) + rnd.choice("!#%") + "q7"


_FORMS = [
    "pw={pw}",
    "user_pw={pw}",
    "db_pw: {pw}",
    "export DB_PW={pw}",
    'DB_PW="{pw}"',
    "APP_PW={pw}\nAPP_USER=bob\n",  # .env
    "[database]\nhost = db\npw = {pw}\n",  # INI
    "database:\n  user: app\n  pw: {pw}\n",  # YAML
    "Server=db;Uid=sa;Pw={pw};Database=app",  # a connection string
    "mytool --pw {pw} --host db",
    "mytool --db-pw={pw}",
    "plink -ssh root@10.0.0.5 -pw {pw} uptime",  # PuTTY
    "pscp -pw {pw} file root@h:/tmp",
    "pw2 = {pw}",
    "mytool --pwd {pw}",
    "mytool -pwd {pw} -u sa",
]


@pytest.mark.parametrize("form", _FORMS)
def test_a_password_named_by_pw_in_text_is_hidden(form: str) -> None:
    pw = _password()
    text = form.format(pw=pw)
    out, _ = redact({"cmd": text})
    assert pw not in shown(text) and pw not in out["cmd"]
    assert might_contain(orjson.dumps({"step": 1, "text": text}))


@pytest.mark.parametrize("form", ['pwd="{pw} horse"', "user_pw = '{pw} horse'"])
def test_a_quoted_value_is_hidden_whole(form: str) -> None:
    pw = _password()
    text = form.format(pw=pw)
    assert "horse" not in shown(text) and pw not in shown(text)


def test_pw_written_in_an_event_reaches_no_file(tmp_path: Path) -> None:
    pws = [_password() for _ in _FORMS]

    def agent(task: str, ctx: Any) -> str:
        for form, pw in zip(_FORMS, pws, strict=True):
            ctx.emit("tool.output", {"step": 1, "stdout": form.format(pw=pw)})
        ctx.emit("reason", {"text": "the pwm duty is 128 and the mapping: done"})
        return "ok"

    episode = noesis_nb.solve("t", using=agent, runs_dir=tmp_path, approver="auto")
    files = sorted(p for p in (tmp_path / episode).rglob("*") if p.is_file())
    written = "\n".join(p.read_text("utf-8", "replace") for p in files)
    for pw in pws:
        assert pw not in written
    assert "the pwm duty is 128 and the mapping: done" in written


_ORDINARY = [
    "$ pwd\n/home/x\n$ ls\nnotes.txt",
    "pwd\n/srv/app",
    "HOME=/root\nPWD=/srv/app\nOLDPWD=/root\nSHLVL=1",
    'cd "$(pwd)/build" && make',
    "mytool --pwd $HOME/work",
    "pwd = os.getcwd()",
    "pwd: ~/projects/app",
    "pwm: 128\nduty: 50",
    "haveibeenpwned: checked",
    "the mapping: done, shipping: 3 days",
    '{"cwd": "/srv/app", "pwd": "/srv/app"}',
    "pw: -",
]


@pytest.mark.parametrize("text", _ORDINARY)
def test_the_working_directory_and_words_holding_pw_are_kept(text: str) -> None:
    assert shown(text) == text


@pytest.mark.parametrize("text", ["pwm: 128, duty: 50", "a mapping: x", "upwards: 3", "swpwr=1"])
def test_pw_inside_a_word_sends_no_text_to_the_detectors(text: str) -> None:
    assert not might_contain(orjson.dumps({"step": 1, "text": text}))


# the fields of an account's entry (Python's ``pwd``/``spwd``, ``getent``, Ansible's user module) and settings about
# passwords: ``pw_`` starts their names, no secret follows (the value alone in a text was hidden: ``[REDACTED] Smith``)
_FIELDS = [
    "pw_uid: 1000",
    "pw_gid: 1000",
    "pw_gecos: Alice Smith",
    "pw_dir: /home/alice",
    "pw_shell: /bin/bash",
    "pw_name: alice",
    "pw_changed: 2024-01-01",
    "pw_expire: 2025-06-30",
    "pw_attempts=3",
    "pw_timeout: 30s",
    "pw_max_age: 90",
    "pw_min: 12",
    "pw.width = 3",
    "password_max_age: 90",
    "policy: {pw_max_age: 90, pw_attempts=3, pw_timeout: 30s}",
]


@pytest.mark.parametrize("text", _FIELDS)
def test_account_fields_and_password_settings_named_pw_are_kept(text: str) -> None:
    assert shown(text) == text
    out, _ = redact({"text": text})
    assert out["text"] == text


@pytest.mark.parametrize("form", ["pw_hash: {pw}", "pw_passwd: {pw}", "pw_new={pw}", "db_pw: {pw}", "password_old={pw}"])
def test_a_hash_or_a_password_under_a_pw_name_is_still_hidden(form: str) -> None:
    pw = _password()
    assert pw not in shown(form.format(pw=pw))
