"""What a run says in the field: passwords given by commands' own flags are hidden, and the words around secrets
are not.

A password goes to a command by a flag only that command reads (``docker login -p``, ``redis-cli -a``, ``zip -P``,
``openssl -passin pass:…``, a ``.netrc`` line, npm's ``:_authToken``), and those were written in clear. The other
way round, a word given to a secret-looking name that says how it is set (``auth: required``), the name of the
variable holding a key (``api_key_env=OPENAI_API_KEY``), a model's tokens under ``"token"`` (logprobs) and a
commit named by git or by SWE-bench's ``base_commit`` were hidden; learned, each was then hidden in every later
text of the run: the task, a schema's keys, the answer.
"""

from __future__ import annotations

import secrets as stdlib_secrets
import string
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.secrets import find_in_text, redact, shown


def _key(prefix: str = "") -> str:
    """A random password of letters and digits with each class in it (what the rules must catch)."""
    rnd = stdlib_secrets.SystemRandom()
    body = [rnd.choice(string.ascii_uppercase), rnd.choice(string.digits), rnd.choice(string.ascii_lowercase)]
    body += [rnd.choice(string.ascii_letters + string.digits) for _ in range(11)]
    rnd.shuffle(body)
    return prefix + "".join(body)


def _files_and_frames(runs: Path) -> str:
    """Every written byte under ``runs`` and every frame's cells, as one text to search."""
    texts = [p.read_text("utf-8", "replace") for p in sorted(runs.rglob("*")) if p.is_file()]
    for frame in (noesis_nb.events_df, noesis_nb.runs_df, noesis_nb.tools_df, noesis_nb.usage_df):
        texts.append(frame(runs).to_csv())
    return "\n".join(texts)


COMMAND_LINES = [
    "docker login -u bob -p {key} registry.example.com",
    "podman --log-level=info login -p={key} quay.io",
    "redis-cli -h cache -a {key} ping",
    "zip -r -P {key} out.zip notes/",
    "openssl enc -aes256 -k {key} -in a -out b",
    "openssl rsa -in k.pem -passin pass:{key} -out plain.pem",
    "machine api.example.com\n  login bob\n  password {key}\n",
    "default login bob password {key}",
    "npm config set //registry.npmjs.org/:_authToken {key}",
    "passcode={key}",
    "SESSION_KEY={key}",
    "docker login -p{key} registry.example.com",
    "redis-cli --user bob --pass {key} ping",
    'docker login -u bob -p "{key} {key}" registry.example.com',
    "zip -P '{key} two' out.zip a.txt",
    "postgres://bob:p@{key}@db.example.com/app",
    "redis://:{key}@cache:6379/0",
]
ARGVS = [
    ["docker", "login", "-u", "bob", "-p", "{key}", "registry.example.com"],
    ["redis-cli", "-a", "{key}", "ping"],
    ["zip", "-P", "{key}", "out.zip", "a.txt"],
    ["openssl", "enc", "-k", "{key}"],
    ["openssl", "rsa", "-passin", "pass:{key}"],
    ["docker", "login", "-p{key}", "registry.example.com"],
    ["redis-cli", "--pass", "{key}", "ping"],
]


@pytest.mark.parametrize("line", COMMAND_LINES)
def test_a_password_given_by_a_commands_own_flag_is_found(line: str) -> None:
    key = _key()
    text = line.format(key=key)
    assert key not in shown(text)
    assert any(key in found for found in find_in_text(text))


@pytest.mark.parametrize("argv", ARGVS, ids=lambda a: " ".join(a[:2]))
def test_a_password_in_an_argv_after_a_commands_own_flag_is_redacted(argv: list[str]) -> None:
    key = _key()
    out, _ = redact({"argv": [a.format(key=key) for a in argv]})
    assert key not in str(out) and "[REDACTED]" in str(out)


@pytest.mark.parametrize(
    "text",
    [
        "docker run -p 8080:80 nginx",
        "docker login registry.example.com && docker run -p 8080:80 nginx",
        "docker ps -a",
        "zip -r out.zip notes/",
        "redis-cli -h cache ping",
        "by default password authentication is disabled",
        "the machine learning password managers we compared",
        "postgres://db.example.com/app?sslmode=require",
        '{"dsn":"postgres://bob:hunter2x@db","mail":"ann@example.com"}',
    ],
)
def test_the_same_commands_and_words_without_a_password_keep_their_words(text: str) -> None:
    kept = shown(text)
    for word in ("8080:80", "nginx", "notes/", "ping", "authentication", "managers", "sslmode=require", "ann@example.com"):
        if word in text:
            assert word in kept, (text, kept)


def test_a_url_password_is_read_to_the_last_at_sign_and_its_scheme_is_kept() -> None:
    key = _key()
    text = f"postgres://bob:p@{key}@db.example.com/app"
    assert shown(text) == "postgres://bob:[REDACTED]@db.example.com/app"


@pytest.mark.parametrize(
    "text, words",
    [
        ("server says auth: required", ["required"]),
        ("run it with the --no-auth flag", ["flag"]),
        ("password: disabled for this realm", ["disabled"]),
        ("the realm says password: disabled.", ["disabled."]),
        ('passphrase: "[REDACTED] horse battery staple" ok', [" ok"]),
        ("api_key_env=OPENAI_API_KEY", ["OPENAI_API_KEY"]),
        ("export OPENAI_API_KEY=${OPENAI_API_KEY}", ["${OPENAI_API_KEY}"]),
        ('{"token": " Paris", "logprob": -0.1}', [" Paris"]),
        ("commit_sha={sha}", ["{sha}"]),
        ("git checkout {sha}", ["{sha}"]),
        ("git reset --hard {sha}", ["{sha}"]),
        ("base_commit: {sha}", ["{sha}"]),
    ],
)
def test_words_that_stand_for_no_secret_are_kept(text: str, words: list[str]) -> None:
    sha = stdlib_secrets.token_hex(20)
    text = text.replace("{sha}", sha)
    kept = shown(text)
    for word in words:
        assert word.replace("{sha}", sha) in kept, (text, kept)


def test_values_of_secret_names_that_stand_for_none_are_kept_in_data() -> None:
    sha = stdlib_secrets.token_hex(20)
    data: dict[str, Any] = {
        "auth": "required",
        "contains_password": False,
        "logprobs": {"content": [{"token": "The", "logprob": -0.01}, {"token": " Paris", "logprob": -0.03}]},
        "instance": {"base_commit": sha, "environment_setup_commit": sha},
    }
    out, hits = redact(data)
    assert out == data and not hits
    key = _key()
    secret, _ = redact({"token": key, "auth": key, "password": key})  # the same names with a credential in them
    assert key not in str(secret)
    beside, _ = redact({"token": key, "logprob": -0.1})  # a credential-like token is hidden wherever it stands
    assert key not in str(beside)
    weak, _ = redact({"password": "PASSWORD_2024", "db_password": "ADMIN_SECRET_9", "api_key": "MASTER_KEY"})
    assert "PASSWORD_2024" not in str(weak) and "ADMIN_SECRET_9" not in str(weak) and "MASTER_KEY" not in str(weak)
    # a token is a model's only beside its logprob; a setting word only in small letters (a reviewer's cases)
    for value in ("Xk9#mQ2", "483920", "correct horse battery staple"):
        assert value not in str(redact({"token": value})[0]), value
    for value in ("Disabled!", "Never!"):
        assert value not in str(redact({"password": value})[0]) and value not in shown(f"password: {value}"), value


@pytest.mark.parametrize(
    "url, password",
    [
        ("https://admin:{k}#2024@db.example.com/x", "{k}#2024"),
        ('postgres://app:{k}"w0rd@db:5432/x', '{k}"w0rd'),
        ("https://u:{k}?x@h/", "{k}?x"),
        ("postgres://bob:p@{k}@db.example.com/app", "p@{k}"),
    ],
)
def test_a_url_password_holding_signs_is_found_whole(url: str, password: str) -> None:
    key = _key()
    assert password.format(k=key) in find_in_text(url.format(k=key))


def test_the_rest_of_a_quoted_value_whose_first_word_was_redacted_is_found() -> None:
    """A quoted passphrase whose first word a streamed piece taught the run (``"[REDACTED] horse battery staple"``):
    the rest is read as the value (it was skipped, and the folded message kept three words of four)."""
    assert find_in_text('passphrase: "[REDACTED] horse battery staple" ok') == {"horse battery staple"}


async def _agent(task: str, ctx: Any) -> str:
    sha = task.rsplit(" ", 1)[-1]
    ctx.emit("note", {"text": "server says auth: required", "cfg": "api_key_env=OPENAI_API_KEY"})
    ctx.emit("note", {"cmd": f"git checkout {sha}", "instance": {"base_commit": sha}})
    ctx.emit(
        "model",
        {
            "event_name": "model.call",
            "model": "gpt-4o-mini",
            "logprobs": {"content": [{"token": "Paris", "logprob": -0.03}, {"token": " required", "logprob": -0.2}]},
        },
    )
    return f"required fields ok; Paris; OPENAI_API_KEY set; at commit {sha}"


def test_a_run_keeps_the_words_it_saw_beside_secret_names(runs_dir: Path) -> None:
    """Through a real run: nothing of these is learned, so the task, the events, the answer and every frame keep
    them (before, ``required``, ``Paris``, ``OPENAI_API_KEY`` and the commit were hidden everywhere)."""
    sha = stdlib_secrets.token_hex(20)
    task = f"check required: OPENAI_API_KEY, answer Paris, commit {sha}"
    noesis_nb.solve(task, using=_agent, runs_dir=runs_dir, approver="auto")
    everything = _files_and_frames(runs_dir)
    assert "[REDACTED]" not in everything
    for word in ("required fields ok", "Paris", "OPENAI_API_KEY set", f"at commit {sha}", f"git checkout {sha}"):
        assert word in everything


def _commands(key: str) -> Any:
    async def agent(task: str, ctx: Any) -> str:
        for line in COMMAND_LINES:
            ctx.emit("note", {"cmd": line.format(key=key)})
        for argv in ARGVS:
            ctx.emit("note", {"argv": [a.format(key=key) for a in argv]})
        return "done"

    return agent


def test_a_run_writes_no_password_given_by_a_commands_own_flag(runs_dir: Path) -> None:
    key = _key()
    noesis_nb.solve("deploy", using=_commands(key), runs_dir=runs_dir, approver="auto")
    everything = _files_and_frames(runs_dir)
    assert not any(key[i : i + 8] in everything for i in range(len(key) - 7))
    assert "registry.example.com" in everything and "out.zip" in everything
