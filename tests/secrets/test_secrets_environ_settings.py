"""Settings about tokens and secrets are no secrets: a secret word followed by a word making the name a setting about
it (``TOKEN_BUDGET``, ``TOKEN_CACHE``, ``GIT_PRIVATE_REPO``, ``PASSWORD_HASHERS``, ``VAULT_SECRET_ENGINE``), after
``MAX_``/``MIN_``/``USE_``/``ENABLE_``/``NUM_``... (``OPENAI_MAX_TOKENS``, ``USE_PRIVATE_REGISTRY``), or ``TOKENS``
(a count) names a variable whose value is learned by no run, so ordinary values (a repository, a hasher list) stay
readable in every file and view; the names saying which secret (``DB_PASSWORD_PROD``) are still learned."""

from __future__ import annotations

from pathlib import Path

import pytest

from noesis_nb.secrets.environ import names_secret

from .child import clean_env, run_child

# common frameworks' and tools' own variables: none holds a credential
_FRAMEWORK_SETTINGS = (
    # Django
    ["PASSWORD_HASHERS", "AUTH_PASSWORD_VALIDATORS", "PASSWORD_RESET_TIMEOUT", "SESSION_COOKIE_AGE"]
    + ["SESSION_COOKIE_HTTPONLY", "CSRF_COOKIE_HTTPONLY", "AUTH_USER_MODEL", "DJANGO_SETTINGS_MODULE"]
    # Rails, Devise, Flask
    + ["RAILS_MAX_THREADS", "RAILS_ENV", "DEVISE_PASSWORD_LENGTH", "PERMANENT_SESSION_LIFETIME", "WTF_CSRF_TIME_LIMIT"]
    # Hugging Face
    + ["HF_HUB_DISABLE_IMPLICIT_TOKEN", "HF_TOKEN_PATH", "TOKENIZERS_PARALLELISM", "HF_HUB_ENABLE_HF_TRANSFER"]
    # OpenAI's and other model SDKs' and servers' settings
    + ["OPENAI_MAX_TOKENS", "OPENAI_MAX_RETRIES", "OPENAI_BASE_URL", "ANTHROPIC_MAX_TOKENS", "LLM_MAX_TOKENS"]
    + ["MAX_TOKENS", "MAX_NEW_TOKENS", "MAX_INPUT_TOKENS", "MAX_TOTAL_TOKENS", "MAX_BATCH_PREFILL_TOKENS"]
    + ["MAX_NUM_BATCHED_TOKENS", "CONTEXT_TOKENS", "MODEL_TOKENS", "TOKENS_PER_MINUTE", "MAX_TOKENS_PER_REQUEST"]
    + ["TOKEN_BUDGET", "TOKEN_LIMIT_PER_DAY", "TOKEN_COUNTER"]
    # identity, secret stores and registries
    + ["TOKEN_CACHE", "TOKEN_REFRESH_MARGIN", "JWT_TOKEN_LEEWAY", "VAULT_SECRET_ENGINE", "SECRET_SCANNING_ENABLED"]
    + ["USE_PRIVATE_REGISTRY", "GIT_PRIVATE_REPO", "DOCKER_PRIVATE_NETWORK", "NPM_CONFIG_ALWAYS_AUTH"]
    + ["GITHUB_TOKEN_PERMISSIONS", "AUTH_LOG_LEVEL", "PASSWORD_STRENGTH", "SECRETS_PROFILE"]
)
# names saying which secret: still learned
_QUALIFIED = ["DB_PASSWORD_PROD", "API_KEY_PROD", "GITHUB_TOKEN_RO", "STRIPE_SECRET_V2", "JWT_SECRET_B64"]
_QUALIFIED += ["APP_SECRETS_JSON", "SESSION_COOKIE", "RAILS_MASTER_KEY", "NEXTAUTH_SECRET", "ACTIONS_RUNTIME_TOKEN"]
_QUALIFIED += ["HUGGING_FACE_HUB_TOKEN", "AIRFLOW__WEBSERVER__SECRET_KEY", "POETRY_HTTP_BASIC_PYPI_PASSWORD"]


@pytest.mark.parametrize("name", _FRAMEWORK_SETTINGS)
def test_a_framework_setting_about_tokens_or_secrets_stays_unlearned(name: str) -> None:
    assert not names_secret(name)


@pytest.mark.parametrize("name", _QUALIFIED)
def test_a_name_saying_which_secret_is_still_learned(name: str) -> None:
    assert names_secret(name)


_CHILD = r"""
import json, os, sys
import noesis_nb

names = sys.argv[2].split(",")

def agent(task, ctx):
    for name in names:
        ctx.emit("note", {"stdout": os.environ[name] + "\n"})
    return "done"

print(json.dumps({"episode": noesis_nb.solve("print config", using=agent, runs_dir=sys.argv[1])}))
"""


def test_settings_values_are_written_as_they_are_and_a_qualified_secret_is_hidden(tmp_path: Path) -> None:
    settings = {"GIT_PRIVATE_REPO": "github.com/acme/platform-infra", "PASSWORD_HASHERS": "argon2,bcrypt_sha256"}
    settings |= {"USE_PRIVATE_REGISTRY": "registry.acme.internal", "TOKEN_CACHE": "hf-token-cache-volume"}
    settings |= {"VAULT_SECRET_ENGINE": "kv-engine-v2", "TOKENS_PER_MINUTE": "tpm-tier-nine"}
    secrets = {"DB_PASSWORD_PROD": "Qm7vT2xLp9Rk4W02", "STRIPE_SECRET_V2": "Zr4kQ9mVx2Lp7Tn3"}
    names = ",".join([*settings, *secrets])
    report = run_child(_CHILD, str(tmp_path / "runs"), names, env=clean_env(**settings, **secrets))
    data = (tmp_path / "runs" / report["episode"] / "events.jsonl").read_text("utf-8")
    assert [v for v in settings.values() if v not in data] == []
    assert [v for v in secrets.values() if v in data] == []
