"""Key formats beyond detect-secrets' plugins, keys written as UUIDs under a secret's name, nested YAML, and what is
no secret though it sits beside a secret-looking word: a file's place (``test_auth.py:42:``, a pytest node id), an
SSH public key, a ``sha256-<hex>`` blob name.

Each secret is read in a model's text (all rules) and in tool output (known formats and names only), and run end to
end: no file of the run and no view of it holds 8 characters of it. What is no secret reaches the run's answer whole.
"""

from __future__ import annotations

import hashlib
import json
import random
import string
import uuid
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb import DiskRun
from noesis_nb.secrets import RunSecrets, shown
from noesis_nb.store import read_events
from tests.hardening.secret_corpus import run_files
from tests.hardening.test_secrets import _surfaces

_RNG = random.Random(20261203)
ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"


def _r(n: int, alphabet: str = ALNUM) -> str:
    return "".join(_RNG.choice(alphabet) for _ in range(n))


VENDOR_KEYS = {
    "slack app token": f"xapp-1-A{_r(10, string.digits)}-{_r(13, string.digits)}-{_r(64, HEX)}",
    "digitalocean": f"dop_v1_{_r(64, HEX)}",
    "shopify": f"shpat_{_r(32, HEX)}",
    "databricks": f"dapi{_r(32, HEX)}",
    "pulumi": f"pul-{_r(40, HEX)}",
    "langsmith": f"lsv2_pt_{_r(32, HEX)}_{_r(10, HEX)}",
    "langfuse": f"sk-lf-{uuid.UUID(int=_RNG.getrandbits(128), version=4)}",
    "e2b": f"e2b_{_r(40, HEX)}",
    "supabase": f"sbp_{_r(40, HEX)}",
    "firecrawl": f"fc-{_r(32, HEX)}",
    "postman": f"PMAK-{_r(24, HEX)}-{_r(34, HEX)}",
    "mailgun": f"key-{_r(32, HEX)}",
    "vault": f"hvs.{_r(24)}",
    "tavily": f"tvly-{_r(32)}",
    "groq": f"gsk_{_r(52)}",
    "stripe test": f"sk_test_{_r(24)}",
    "an unknown vendor's prefix on hex": f"acme_live_{_r(40, HEX)}",
    # Atlassian API tokens, Heroku's (``HRKU-`` then a UUID or ``AA…``: a UUID alone stays an id, ``KEPT``), Microsoft
    # Entra client secrets (``~`` and ``.`` cut them into short words the prefilter passed by), Terraform Cloud's and
    # Airtable's, each with its id part
    "atlassian": "ATATT3xFfGF0" + _r(180, ALNUM + "_-=") + "=" + _r(8, HEX.upper()),
    "atlassian ctt": "ATCTT3xFfGN0" + _r(120, ALNUM + "_-"),
    "heroku uuid": "HRKU-" + "-".join(_r(n, HEX) for n in (8, 4, 4, 4, 12)),
    "heroku aa": "HRKU-AA" + _r(58, ALNUM + "_-"),
    "entra": _r(3) + "8Q~" + _r(34, ALNUM + "_.~-"),
    "terraform": _r(14) + ".atlasv1." + _r(67),
    "airtable": "pat" + _r(14) + "." + _r(64, HEX),
}
UUID_KEYS = {
    "env": "HEROKU_API_KEY={}",
    "header": "x-api-key: {}",
    "bearer": "Authorization: Bearer {}",
    "bare bearer": "curl -H 'bearer {}' https://api.example.com",
    "flag": "exa search --api-key {} 'agents'",
}
UUID_SECRETS = {name: str(uuid.UUID(int=_RNG.getrandbits(128), version=4)) for name in UUID_KEYS}
YAML = {
    "nested under auth": ("auth:\n  token: {}\n", "Zx9" + _r(4)),
    "nested env, short": ("env:\n  API_TOKEN: {}\n", _r(5)),
    "block scalar |": ("db:\n  password: |\n    {}\n", _r(14)),
    "folded block >-": ("db:\n  password: >-\n    {}\n", _r(14)),
}
KEPT = [
    "FAILED tests/test_auth.py::test_login_rejects_expired_token - assert 1 == 2",
    "tests/test_secrets.py::TestRedact::test_bearer PASSED",
    "src/auth/token.py:17:5: E501 line too long",
    "password_reset.py:10: note: defined here",
    "auth.go:45:2: undefined: token",
    "public key: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl bob@host",
    "ollama blob sha256-" + hashlib.sha256(b"weights").hexdigest(),
    "request_id: " + str(uuid.UUID(int=7, version=4)),
    "request a333e62b-0b0b-04f2-b5ea-f170cd7312ec done",
    "celery worker --task-id " + str(uuid.UUID(int=8, version=4)),
    "SHA-256: " + hashlib.sha256(b"release").hexdigest(),
    "auth: failed for user bob",
    "password: must be at least 8 characters",
    "token: rotated yesterday, password: incorrect",
    '"integrity": "sha512-z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUdBeoGlODJ6+SfaPg=="',
]


def _secrets() -> dict[str, str]:
    out = dict(VENDOR_KEYS)
    out.update({f"uuid key ({name})": value for name, value in UUID_SECRETS.items()})
    out.update({f"yaml {name}": value for name, (_, value) in YAML.items()})
    return out


def _texts() -> list[str]:
    texts = [f"use {key} for the call" for key in VENDOR_KEYS.values()]
    texts += [UUID_KEYS[name].format(value) for name, value in UUID_SECRETS.items()]
    texts += [template.format(value) for template, value in YAML.values()]
    return texts


def _leaks(secrets: dict[str, str], text: str) -> list[str]:
    return [name for name, v in secrets.items() if any(v[i : i + 8] in text for i in range(max(1, len(v) - 7)))]


@pytest.mark.parametrize("text", _texts())
def test_each_shape_is_redacted_in_model_text_and_in_tool_output(text: str) -> None:
    secrets = _secrets()
    assert _leaks(secrets, RunSecrets().screen({"text": text})["text"]) == []
    assert _leaks(secrets, shown(text)) == []
    if not any(k in text for k in ("acme_live_", "|", ">-")):  # tool output: known formats and names only
        assert _leaks(secrets, RunSecrets().redact({"stdout": text}, entropy=False)["stdout"]) == []


@pytest.mark.parametrize("name", sorted(VENDOR_KEYS))
@pytest.mark.parametrize("template", ["{k}", "note: {k} ok", "TOKEN={k}", '{{"v": "{k}"}}'])
def test_a_key_is_shown_redacted_bare_in_prose_after_a_name_and_in_json(name: str, template: str) -> None:
    key = VENDOR_KEYS[name]
    out = shown(template.format(k=key))
    assert "[REDACTED]" in out and _leaks({name: key}, out) == [], out


@pytest.mark.parametrize("text", KEPT)
def test_a_files_place_a_public_key_and_a_labelled_blob_are_kept(text: str) -> None:
    assert RunSecrets().screen({"text": text}) == {"text": text}
    assert shown(text) == text


def test_a_test_named_beside_its_file_is_not_learned_and_hidden_later() -> None:
    secrets = RunSecrets()
    secrets.screen({"stdout": "FAILED tests/test_auth.py::test_login_rejects_expired_token - assert 1 == 2"})
    answer = "I fixed test_login_rejects_expired_token by refreshing the token first."
    assert secrets.screen({"text": answer}) == {"text": answer}


ANSWER = "Fixed tests/test_auth.py::test_login_rejects_expired_token; see auth.go:45:2."


def lookup(argv: list[str]) -> dict[str, Any]:
    """A tool printing an env file and a YAML config holding the keys."""
    return {"stdout": "\n".join(_texts()), "argv": argv}


async def agent(task: str, ctx: Any) -> Any:
    ctx.emit("model", {"event_name": "model.call", "model": "m", "text": "\n".join(_texts())})
    ctx.emit("note", {"log": "\n".join(KEPT)})
    await ctx.tool_async("py.lookup", {"kwargs": {"argv": ["cat", ".env"]}}, fn=lookup, effect="read", risk="low")
    ctx.emit("reason", {"text": "the keys were " + " ".join(VENDOR_KEYS.values())})
    return ANSWER


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    runs = tmp_path_factory.mktemp("vendor") / "runs"
    episode_id = noesis_nb.solve("sync", using=agent, runs_dir=runs, approver="auto")
    return runs / episode_id


def test_no_file_and_no_view_of_the_run_holds_a_secret(run_dir: Path) -> None:
    blobs = run_files(run_dir) + _surfaces(DiskRun(run_dir))
    blobs.append(("events_df", noesis_nb.events_df(run_dir.parent).to_json().encode()))
    secrets = _secrets()
    found = sorted({(name, where) for where, blob in blobs for name in _leaks(secrets, blob.decode("utf-8", "replace"))})
    assert found == []


def test_the_run_keeps_what_is_no_secret(run_dir: Path) -> None:
    payloads = [e["payload"] for e in read_events(run_dir / "events.jsonl", strict=True)]
    assert [p["log"] for p in payloads if "log" in p] == ["\n".join(KEPT)]
    assert json.loads((run_dir / "summary.json").read_text())["answer"] == {"result": ANSWER}  # the test and the place whole


SHORT_NAMED = [
    {"pin": "4821"},
    {"otp": "482913"},
    {"totp_code": "482913"},
    {"pw": "Hu7xq2Lm9zPw"},
    {"Ocp-Apim-Subscription-Key": "Hu7xq2Lm9zPw"},
]


@pytest.mark.parametrize("payload", SHORT_NAMED, ids=lambda p: next(iter(p)))
def test_a_short_secret_name_of_its_own_is_redacted_as_a_key(payload: dict[str, str]) -> None:
    """As a key, flat, nested or in records (as a word in text, ``pin`` is too often no name to be looked for)."""
    ((name, value),) = payload.items()
    assert RunSecrets().screen(payload) == {name: "[REDACTED]"}
    nested = {"request": {"body": [{"user": "bob", **payload}]}}
    assert value not in str(RunSecrets().screen(nested))
    flat = {f"field_{i}": "plain" for i in range(10)} | payload  # judged value by value
    assert RunSecrets().screen(flat)[name] == "[REDACTED]"


CODE = [
    {"signature": "(x: int) -> str"},
    {"hmac": "a1b2c3d4e5f6", "sig": "deadbeefcafe1234"},  # a digest or a signature proves, it grants nothing
    {"pin_memory": True, "num_workers": 4},
    {"text": '"signature": "def foo(a, b)"'},
    {"text": "signature_version: v4, mapping design signal shipping"},
    {"text": 'api_key = os.environ["OPENAI_API_KEY"]'},
    {"text": "token = self.get_token()"},
    {"text": 'password = getpass.getpass("Password: ")'},
    {"text": "password_hash = bcrypt.hashpw(pw, salt)"},
    {"text": "secret = secrets.token_hex(32)"},
]


@pytest.mark.parametrize("payload", CODE, ids=lambda p: str(p)[:40])
def test_code_and_a_functions_signature_beside_a_secret_name_are_kept(payload: dict[str, Any]) -> None:
    secrets = RunSecrets()
    assert secrets.screen(payload) == payload
    assert secrets.values == ()  # nothing learned, so nothing hidden later


LOGIN_PASSWORD = "Hu7" + _r(11)
LOGINS = [
    f"docker login \\\n  -u bob \\\n  -p {LOGIN_PASSWORD} \\\n  registry.example.com",
    f"mysql -u root \\\n  -p{LOGIN_PASSWORD} shop",
    f"echo {LOGIN_PASSWORD} | docker login -u bob --password-stdin registry.example.com",
    f"echo -n '{LOGIN_PASSWORD}' | sudo docker login --username bob --password-stdin",
    f"printf %s {LOGIN_PASSWORD} | helm registry login registry.example.com -u bob --password-stdin",
    f"docker login -u bob --password-stdin registry.example.com <<< {LOGIN_PASSWORD}",
]
LOGINS_KEPT = [
    'echo "$DOCKER_PASSWORD" | docker login -u bob --password-stdin registry.example.com',
    "cat token.txt | docker login -u bob --password-stdin registry.example.com",
    "echo hello | docker build --password-stdin .",
    'python -m pytest \\\n  -k "login and not slow" tests/',
]


@pytest.mark.parametrize("command", LOGINS)
def test_a_login_password_on_a_continued_line_or_given_on_stdin_is_redacted(command: str) -> None:
    for screened in (
        RunSecrets().screen({"cmd": command})["cmd"],
        RunSecrets().redact({"stdout": command}, entropy=False)["stdout"],
    ):
        assert LOGIN_PASSWORD not in screened and "[REDACTED]" in screened


@pytest.mark.parametrize("command", LOGINS_KEPT)
def test_a_login_given_no_password_in_its_text_is_kept(command: str) -> None:
    assert RunSecrets().screen({"cmd": command}) == {"cmd": command}
