"""Environment secrets in the forms code commonly writes them (``quote`` keeping ``/``, ``quote_plus``/``urlencode``,
every byte as lower-case ``%xx``, base64 behind a prefix of any length, Python's writing of a non-ASCII value's bytes),
and under well-known names one word long (``PGPASSWORD``, ``SSHPASS``, ``NGROK_AUTHTOKEN``, ``BW_SESSION``…): none is in
any file of a real run, nor in what a view shows. Ordinary variables' names stay unlearned."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from noesis_nb.secrets.environ import names_secret

from .child import clean_env, run_child

_CHILD = r"""
import base64, json, os, sys
from urllib.parse import quote, quote_plus, urlencode
import noesis_nb
from noesis_nb.secrets import shown

names = json.loads(sys.argv[2])
texts = []
for name in names:
    v = os.environ[name]
    b = v.encode()
    texts += [
        f"connected using {v} ok",
        quote(v),
        quote_plus(v),
        urlencode({"q": v}),
        "".join(f"%{c:02x}" for c in b),
        base64.b64encode(b"\n" + b).decode(),
        base64.b64encode(b"p " + b).decode(),
        base64.b64encode(b"# db\nhost=db.internal\nsecret value follows: " + b + b"\n").decode(),
        "Authorization: Basic " + base64.b64encode(b"admin:" + b).decode(),
        repr(b),
    ]

def agent(task, ctx):
    for text in texts:
        ctx.emit("note", {"text": text})
    return "done"

episode = noesis_nb.solve("plain task", using=agent, runs_dir=sys.argv[1])
print(json.dumps({"episode": episode, "texts": texts, "shown": [shown(t) for t in texts]}))
"""

_SECRETS = {
    "DB_PASSWORD": "correct horse/battery+staple",
    "API_PASSWORD": "pässwörd-Ωmega-77/x",
    "PGPASSWORD": "Maple#Otter2025",
    "SSHPASS": "River&Stone1987",
    "NGROK_AUTHTOKEN": "Tiger.Lily.Moon42",
    "DJANGO_SECRETKEY": "Blue%Falcon*Night7",
    "BW_SESSION": "Quartz~Meadow~Echo9",
    "OP_SESSION_myteam": "Lk3Jq9Zr7Wm2Xp5Tn8",
    "GITHUB_PAT": "Hx4Rv8Nc2Qs6Yd1Fm0",
}


def test_common_encodings_and_one_word_names_are_hidden_in_the_run_and_its_views(tmp_path: Path) -> None:
    report = run_child(_CHILD, str(tmp_path / "runs"), json.dumps(list(_SECRETS)), env=clean_env(**_SECRETS))
    files = [p for p in (tmp_path / "runs" / report["episode"]).rglob("*") if p.is_file()]
    assert "events.jsonl" in {p.name for p in files}
    data = "\n".join(p.read_text("utf-8", "replace") for p in files)
    for value in _SECRETS.values():
        assert value not in data and json.dumps(value)[1:-1] not in data, value
    for text, shown in zip(report["texts"], report["shown"]):
        assert text not in data and json.dumps(text)[1:-1] not in data, text
        assert text != shown, text
    assert not any(v in s for v in _SECRETS.values() for s in report["shown"])


@pytest.mark.parametrize(
    "name",
    ["PGPASSWORD", "SSHPASS", "NGROK_AUTHTOKEN", "DJANGO_SECRETKEY", "BW_SESSION", "SECRETKEY", "APITOKEN"]
    + ["AUTHTOKEN", "PRIVATEKEY", "WEBHOOKSECRET", "GITHUB_PAT", "GH_PAT", "GITLAB_PAT", "OP_SESSION_my_team"]
    + ["OPENAI_API_KEY", "AWS_SECRET_ACCESS_KEY", "COOKIE_SECRET", "OAUTH2_PROXY_COOKIE_SECRET", "JUPYTER_TOKEN"]
    + ["MYSQL_PWD", "USER_PW", "COMPOSER_AUTH", "API_KEY_2", "SECRET_KEY_BASE", "DB_PASSWORDS", "apiKey"],
)
def test_well_known_and_one_word_names_say_secret(name: str) -> None:
    assert names_secret(name)


@pytest.mark.parametrize(
    "name",
    ["PATH", "HOME", "PWD", "OLDPWD", "PYTHONPATH", "SSH_AUTH_SOCK", "TOKENIZERS_PARALLELISM", "HF_HUB_DISABLE_TELEMETRY"]
    + ["PAT_COUNT", "PAT", "SPATIAL", "SHELL", "USER", "LANG", "TERM", "XAUTHORITY", "GIT_ASKPASS", "AUTHOR_NAME"]
    + ["CUDA_VISIBLE_DEVICES", "MPLBACKEND", "JUPYTER_PLATFORM_DIRS", "KEYBOARD_LAYOUT", "PASSENGER_COUNT"]
    # settings about a credential, not one: learned, their values were redacted in every file and view
    + ["COOKIE_DOMAIN", "SESSION_COOKIE_DOMAIN", "SESSION_COOKIE_SECURE", "SESSION_COOKIE_SAMESITE"]
    + ["CSRF_COOKIE_SECURE", "COOKIE_JAR", "OAUTH_AUDIENCE", "OAUTH_ISSUER", "OAUTH_TENANT", "OAUTH_JWKS"]
    + ["OAUTH_CALLBACK", "OAUTH_SCOPE_DEFAULTS", "OAUTH2_PROXY_EMAIL_DOMAINS", "OAUTH2_PROXY_UPSTREAMS"]
    + ["BEARER_REALM", "BEARER_AUDIENCE", "AUTHORIZATION_SERVER", "OTP_VERSION", "OTP_ROOT", "OTP_APP", "OTP_RELEASE"]
    + ["PW_BROWSER", "PW_TEST_SOURCE_TRANSFORM", "JWT_SECRETKEY_ROTATION", "GPG_KEY", "AUTH_TYPE", "TOKEN_AUDIENCE"]
    + ["SECRETS_MANAGER_REGION", "AWS_SHARED_CREDENTIALS_FILE", "HOTKEY", "COMPASS", "ACTIONS_ID_TOKEN_REQUEST_URL"],
)
def test_ordinary_names_stay_unlearned(name: str) -> None:
    assert not names_secret(name)


@pytest.mark.parametrize(
    "name",
    ["DB_PASSWORD_PROD", "API_KEY_PROD", "GITHUB_TOKEN_RO", "STRIPE_SECRET_V2", "JWT_SECRET_B64", "APP_SECRETS_JSON"]
    + ["SESSION_COOKIE", "DB_PASS_RO", "MYSQL_PWD_STAGING", "OPENAI_API_KEY_TEAM_A", "AWS_SECRET_ACCESS_KEY_OLD"]
    + ["SLACK_BOT_TOKEN_2_LIVE", "ServicePasswordPrimary", "gitlab-token-ci", "ADMIN_CREDENTIALS_YAML"],
)
def test_a_secret_word_followed_by_what_says_which_one_still_says_secret(name: str) -> None:
    assert names_secret(name)


@pytest.mark.parametrize(
    "name",
    ["DB_PASSWORD_FILE", "GITHUB_TOKEN_PATH", "API_KEY_HEADER", "VAULT_SECRET_ID", "SECRET_NAME_PROD", "TOKEN_URL"]
    + ["PASSWORD_MIN_LENGTH", "JWT_SECRET_ALGORITHM", "TOKEN_ENCODING", "SESSION_COOKIE_NAME", "KEY_VAULT_NAME"]
    + ["PUBLIC_KEY_PROD", "SORT_KEY_PREFIX", "PW_TEST_HTML_REPORT_OPEN", "SECRETS_DIR", "TOKEN_TTL_SECONDS"]
    + ["GOOGLE_APPLICATION_CREDENTIALS_FILE", "API_KEY_ENV", "PASSWORD_RESET_TIMEOUT", "DB_PASSWORD_CMD"],
)
def test_a_name_pointing_at_a_secret_or_setting_how_it_is_used_stays_unlearned(name: str) -> None:
    assert not names_secret(name)
