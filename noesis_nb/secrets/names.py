"""Secret-looking names: keys, environment variables, command-line flags and HTTP headers.

A value stored under such a name is a secret whatever it looks like (``DB_PASSWORD=hunter2``).
Names are split into words, so ``auth_token`` is a secret name and ``max_tokens`` is not.
"""

from __future__ import annotations

import re
from functools import lru_cache

from .disguise import plain
from .environ import CODE_WORDS, SETTING_WORDS, WHOLE_WORDS

__all__ = [
    "is_secret_key",
    "names_secrets",
    "credential_shaped",
    "looks_like_credential",
    "names_no_value",
    "names_variable",
    "stands_for",
    "vocabulary_token",
    "REDACTED_VALUE",
    "PLACEHOLDERS",
    "WELL_KNOWN",
    "hunted",
    "unwrapped",
    "WRAPS",
]

REDACTED_VALUE = "[REDACTED]"
WRAPS = "`'\""  # what may stand around a value as written (shell, Markdown, code): no part of it


def unwrapped(value: str) -> str:
    """``value`` without the backticks and quotes around it (``"`TOKEN=abc`"``, ``"token = `abc`;"``): learned with them,
    the bare value written elsewhere was not hunted. ``value`` itself when nothing of it is left."""
    bare = value.strip(WRAPS)
    return bare or value


# values that stand for "no secret here" (templates, nulls, earlier redactions)
PLACEHOLDERS = frozenset(
    {
        "",
        "none",
        "null",
        "nil",
        "true",
        "false",
        "undefined",
        "redacted",
        "[redacted]",
        "changeme",
        "password",
        "secret",
        "token",
        "xxx",
        "xxxx",
        "****",
        "*****",
        "********",
        "...",
    }
)

# the credentials a default install or a local server is given, as its documentation writes them (Docker's
# ``POSTGRES_PASSWORD=postgres``, Ollama's ``api_key="ollama"``, LM Studio's ``"lm-studio"``, vLLM's ``"EMPTY"``,
# MinIO's ``minioadmin``, RabbitMQ's ``guest``): redacted where a secret-looking name gives them, but never learned
# as a value to hunt in the run's other texts, where the same word names the server, the image, the user, the
# database or the model's provider (taken as secrets, ``postgres.query`` and ``ollama`` read ``[REDACTED]``)
WELL_KNOWN = frozenset(
    {
        "postgres", "postgresql", "mysql", "mariadb", "root", "admin", "administrator", "guest", "user", "test",
        "testing", "demo", "example", "sample", "default", "dummy", "fake", "mock", "local", "localhost", "dev",
        "development", "pass", "passwd", "changeit", "minioadmin", "neo4j",
        "elastic", "rabbitmq", "redis", "mongo", "mongodb", "ollama", "lm-studio", "lmstudio", "llama", "llamacpp",
        "vllm", "empty", "no-key", "nokey", "no_key", "not-needed", "not-used", "unused", "sk-no-key-required",
        "sk-dummy", "sk-fake", "sk-test", "sk-xxx", "sk-1234", "api-key", "apikey", "api_key", "your-api-key",
        "your_api_key", "your-key", "your_key", "your-token", "your_token", "<your-api-key>", "anything", "any",
    }
)  # fmt: skip

# what a secret-looking name may be given that says how it is set, not what it is: ``auth: required``,
# ``password: disabled`` (once taken as secrets, such words were hidden in every later text of the run)
_SETTINGS = frozenset(
    {
        "required", "optional", "enabled", "disabled", "missing", "invalid", "expired", "revoked", "empty", "unset",
        "default", "hidden", "masked", "anonymous", "unknown", "granted", "denied", "provided", "present", "absent",
        "needed", "omitted", "inherit", "inherited", "automatic", "manual", "sometimes", "always", "never",
        # how a check of it went, or what it must be (``auth: failed for user bob``, ``password: must be 8 long``)
        "failed", "incorrect", "wrong", "rejected", "accepted", "changed", "updated", "rotated", "succeeded",
        "verified", "valid", "mismatch", "locked", "unchanged", "saved", "stored", "must", "should", "cannot",
    }
)  # fmt: skip
# the name of the variable a secret is in, given instead of it: ``api_key_env=OPENAI_API_KEY``, ``${DB_PASSWORD}``
_VARIABLE = re.compile(r"\$?\{?([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\}?")

_SECRET_WORDS = frozenset(
    {
        "password",
        "passwords",
        "passwd",
        "passphrase",
        "passcode",
        "secret",
        "secrets",
        "token",
        "apikey",
        "authorization",
        "auth",
        "oauth",
        "bearer",
        "cookie",
        "cookies",
        "credential",
        "credentials",
        "privatekey",
        "privkey",
        "accesskey",
        "secretkey",
    }
)
# short secret words, counted in a short name only (``user_pw``, ``totp_code``): split at its capitals, a random
# word holds them (``…wwrPwV81…`` has ``pw``), and a key beside a list's first text made that text a secret's name
_SHORT_WORDS = frozenset(word.lower() for word in CODE_WORDS)  # (``environ`` reads the same words in a variable's name)
# names that hold a secret when they are the whole name (``{"pin": "4821"}``), not inside another (``pin_memory``).
# ``sig``, ``signature`` and ``hmac`` are none: a signature or a digest proves, it grants nothing (a thinking block's
# ``signature``, a webhook's); one that authorises a request is in a URL's query, where ``url_parts`` finds it
_WHOLE_NAMES = frozenset(word.lower() for word in WHOLE_WORDS)
# what a ``<word>_pass`` name holds the password of (``DB_PASS``, ``smtpPass``, ``KEYSTORE_PASS``)
_PASS_OWNERS = frozenset(
    {
        "db", "database", "smtp", "imap", "pop", "mail", "email", "admin", "root", "user", "keystore", "truststore",
        "key", "mysql", "pg", "postgres", "redis", "mongo", "ftp", "sftp", "ldap", "proxy", "vault", "login",
        "account", "service", "bind", "master", "wifi", "vpn", "ssh", "app", "api", "http", "amqp", "rabbitmq",
        # Ansible's ``ansible_become_pass`` (the password of ``become``: sudo, su), ``sudo_pass``
        "become", "sudo", "su",
    }
)  # fmt: skip
# what a ``<word>_key`` name holds the key of, past the pairs below: a service's API key (``OPENAI_KEY``,
# ``STRIPE_KEY``), a signing or encryption key (``JWT_KEY``, ``APP_KEY``, ``FERNET_KEY``); not ``sort_key``,
# ``cache_key``, ``idempotency_key``, ``primary_key`` (a key of data, no credential)
_KEY_OWNERS = frozenset(
    {
        "jwt", "jws", "jwe", "app", "fernet", "cipher", "crypt", "crypto", "aes", "decryption", "license", "licence",
        "openai", "anthropic", "claude", "gemini", "google", "groq", "mistral", "cohere", "deepseek", "xai", "grok",
        "perplexity", "together", "fireworks", "replicate", "huggingface", "hf", "stripe", "sendgrid", "mailgun",
        "twilio", "pinecone", "tavily", "serpapi", "openrouter", "voyage", "elevenlabs", "deepgram", "azure", "aws",
    }
)  # fmt: skip
# a name written as one word holds a secret word at its end: ``PGPASSWORD``, ``APITOKEN``, ``GITHUBTOKEN``,
# ``clientsecret`` (split at a capital or ``_``, the same names were already read so)
_SECRET_ENDINGS = ("password", "passwd", "passphrase", "token", "secret", "apikey", "secretkey", "privatekey", "accesskey")
_SECRET_PAIRS = frozenset(
    {
        ("api", "key"),
        ("private", "key"),
        ("access", "key"),
        ("secret", "key"),
        ("ssh", "key"),
        ("signing", "key"),
        ("encryption", "key"),
        ("master", "key"),
        ("client", "key"),
        ("session", "key"),
        ("hmac", "key"),
        ("pass", "word"),  # ``PassWord``
        ("subscription", "key"),  # Azure's ``Ocp-Apim-Subscription-Key``
    }
)
# the plurals of the pairs: a name holding several (``api_keys``, ``private_keys``), as ``passwords`` and ``secrets`` do
_SECRET_PAIRS |= frozenset((first, second + "s") for first, second in _SECRET_PAIRS if second == "key")
# ``tokens`` after a word saying which (``access_tokens``, ``auth_tokens``); not ``max_tokens``, ``input_tokens`` (counts)
_TOKEN_OWNERS = frozenset({"access", "auth", "api", "bearer", "refresh", "bot", "session", "personal", "deploy"})
_OWNED = {"key": _KEY_OWNERS, "keys": _KEY_OWNERS, "tokens": _TOKEN_OWNERS}  # a last word -> the words naming whose
# a last word that makes the name describe a secret rather than hold one: ``token_file``, ``secret_name``,
# ``password_stdin``, ``approval_token_ref``, ``auth_type``, ``token_count``
_ABOUT = frozenset(
    {
        "file",
        "files",
        "path",
        "dir",
        "stdin",
        "env",
        "var",
        "name",
        "names",
        "id",
        "ids",
        "type",
        "method",
        "count",
        "limit",
        "length",
        "len",
        "url",
        "uri",
        "endpoint",
        "host",
        "user",
        "username",
        "ref",
        "policy",
        "prompt",
        "helper",
        "required",
        "enabled",
        "expiry",
        "expires",
        "ttl",
        "kind",
        "scope",
        "scopes",
        "mode",
        "source",
        "provider",
        # what is said about it to its owner, not it: ``password_hint``, ``password_strength``, ``password_rules``
        "hint",
        "hints",
        "strength",
        "rules",
        "requirements",
    }
)
_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
# a password's names (``pw``, ``password``) followed by a word making the name a setting about passwords (the words
# ``environ`` reads so: ``pw_timeout``, ``password_max_age``, ``pw_attempts``) or a field of an account's entry
# (Python's ``pwd``/``spwd`` fields, ``getent``'s, Ansible's user module: ``pw_uid``, ``pw_gecos``, ``pw_changed``): no
# secret (a passwd entry printed as YAML lost its numbers and names). ``pw_hash``/``pw_passwd`` still hold one
_PW_WORDS = frozenset({"pw", "pwd", "password", "passwd", "passwords"})
_PW_FIELDS = frozenset({word.lower() for word in SETTING_WORDS}) | frozenset(
    {
        "uid", "gid", "gecos", "dir", "home", "shell", "name", "changed", "change", "lstchg", "last", "expire",
        "expired", "inact", "inactive", "warn", "warning", "min", "max", "attempts", "width", "height", "length",
        "policy", "age", "days", "reset",
    }
)  # fmt: skip
# a file's name (``test_auth.py``, ``token.go``, ``secrets.yaml``): a compiler's, linter's or test runner's
# ``auth.py:42:`` and ``test_auth.py::test_login`` name a place in a file, not a value (taken as one, the test's
# name was hidden in every later text of the run)
_FILE_NAME = re.compile(
    r"\.(?:pyi?|pyx|ipynb|[cm]?[jt]sx?|go|rs|rb|java|kts?|scala|swift|c|h|cc|cpp|hpp|cs|php|lua|pl|dart|exs?|erl"
    r"|sh|bash|zsh|sql|proto|vue|svelte|html?|css|scss|md|rst|txt|json|ya?ml|toml)\Z"
)


@lru_cache(maxsize=4096)
def is_secret_key(name: str) -> bool:
    """True for ``GITHUB_TOKEN``, ``apiKey``, ``X-Api-Key``, ``db_password``, ``auth``, ``--client-secret``.

    False for ``max_tokens``, ``author``, ``idempotency_key``, ``path``, a file's name (``test_auth.py``), for names
    that describe a secret rather than hold one (``token_file``, ``secret_name``, ``password_stdin``, ``auth_type``)
    and for ``PWD`` (the working directory). A name is read as it shows: ``pass\u200bword`` (a zero-width space inside) and
    ``\u0070assword`` (an escape) are ``password``.
    """
    read = plain(str(name))
    if "." in read and _FILE_NAME.search(read) is not None:
        return False
    words = [w.lower() for w in _WORD.findall(read)]
    if len(words) == 1 and words[0] in _WHOLE_NAMES:
        return True
    if len(words) > 1 and words[-1] in _ABOUT:
        return False
    if len(words) > 1 and any(w in _PW_WORDS and not _PW_FIELDS.isdisjoint(words[at + 1 :]) for at, w in enumerate(words)):
        return False
    if any(w in _SECRET_WORDS or w.endswith(_SECRET_ENDINGS) for w in words):
        return True
    if len(words) <= 4 and not any(c.isspace() for c in read) and any(w in _SHORT_WORDS for w in words):
        return True  # (``pwd`` below alike)
    # MYSQL_PWD, not PWD (the working directory); DB_PASS, smtpPass, where ``pass`` follows what holds an
    # account, not a lone ``pass`` nor ``num_pass``, ``test_pass``, ``pass_at_1`` (an evaluation's results)
    short = len(words) <= 4 and not any(c.isspace() for c in read)  # a name, not a random word split at capitals
    if len(words) > 1 and ((short and "pwd" in words) or (words[-1] == "pass" and words[-2] in _PASS_OWNERS)):
        return True
    if len(words) > 1 and words[-1] in _OWNED and words[-2] in _OWNED[words[-1]]:
        return True  # ``OPENAI_KEY``, ``JWT_KEY``, ``access_tokens``
    return any(pair in _SECRET_PAIRS for pair in zip(words, words[1:]))


def names_secrets(name: str) -> bool:
    """Whether ``name`` names a set of secrets by a plural no other use gives it alone: ``tokens`` (a mapping of them
    by what each is for, ``{"tokens": {"ci": X}}``, a config's section). Not ``max_tokens`` (a count); a model's tokens
    in a list are no credentials, so the caller reads such a name above secrets given by name (text or a mapping)."""
    return plain(str(name)).strip().lower() == "tokens"


def looks_like_credential(text: str) -> bool:
    """Whether an object's attribute under a secret-looking name (an exception's ``self.token``) holds a
    credential rather than a word: 8+ characters without spaces and not a plain word (a digit, a sign or mixed
    case in it). ``token`` and ``key`` also name a model's vocabulary entry or a dict key (``"function"``,
    ``"user_id"``), which taken as secrets would be redacted everywhere the run writes them."""
    value = text.strip()
    if len(value) < 8 or any(c.isspace() for c in value) or value.lower() in PLACEHOLDERS or REDACTED_VALUE in value:
        return False
    return not (value.isalpha() and (value.islower() or value.isupper() or value.istitle()))


# what stands for a secret kept elsewhere, not one (a vault path, ``env:NAME``, ``${NAME}``, ``{{ name }}``, ``%NAME%``),
# and a measure (``12chars``, ``90-days``, ``>=8``): a policy's or a reference's cell under a secret's header
_KEPT_ELSEWHERE = re.compile(
    r"(?:[a-z][a-z0-9+.-]{1,20}:(?://)?)?(?:[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[a-z0-9_.-]+(?:[/#:][a-z0-9_.-]+)+)"
    r"|\$\{[^{}]*\}|\{\{[^{}]*\}\}|%[A-Za-z_]\w*%"
)
_MEASURE = re.compile(r"[<>=~]{0,2}[0-9]+(?:[.,][0-9]+)?[ _-]?[A-Za-z]{0,12}s?")
_TOKENIZER_MARKS = ("Ġ", "▁", "Ċ", "##")


def credential_shaped(value: str) -> bool:
    """Whether a value no label stands beside (a table's cell under a secret's header, a secret section's entry, a
    value of ``{"tokens": {...}}``) has a credential's shape: 8+ characters, no blank, two or more of lower case, upper
    case, digits and signs, and neither a reference to a secret kept elsewhere (``vault/prod/db``, ``env:API_KEY``),
    a measure (``12chars``, ``90-days``) nor a tokenizer's piece (``ĠLondon``, ``##ing2``, ``<|endoftext|>``). A word,
    ``Paris.`` or ``Hello,``, in a tokenizer's or a log-probability table is none, and hidden it would be learned and
    hidden in every later text of the run."""
    if len(value) < 8 or any(c.isspace() for c in value) or any(m in value for m in _TOKENIZER_MARKS):
        return False
    if value[0] + value[-1] in ("<>", "[]"):  # a special token (``<|endoftext|>``, ``[MASK]``) or a placeholder
        return False
    if _KEPT_ELSEWHERE.fullmatch(value) is not None or _MEASURE.fullmatch(value) is not None:
        return False
    kinds = (str.islower, str.isupper, str.isdigit)
    classes = sum(any(kind(c) for c in value) for kind in kinds) + any(not c.isalnum() for c in value)
    return classes >= 2


def names_no_value(value: str) -> bool:
    """Whether a value given to a secret-looking name stands for no secret: a placeholder (``changeme``,
    ``[REDACTED]``) or a word saying how it is set, in small letters (``required``, ``disabled``, also ending a
    sentence: ``disabled.``; not ``Disabled!``)."""
    word = value.strip()
    if word.lower() in PLACEHOLDERS:
        return True
    word = word[:-1] if word.endswith(".") else word
    return word.islower() and word in _SETTINGS


def hunted(value: str, name: str = "") -> bool:
    """Whether a secret's value is one to learn and hunt in every other text of the run: not a placeholder or a
    setting (``names_no_value``), not a well-known default (``WELL_KNOWN``: ``postgres``, ``ollama``), not a word of
    the name that gives it (``WEBSHOP_PASSWORD=webshop``, ``{"redis_password": "redis"}``). Such a value is still
    redacted where the name gives it; ``hunter2`` or a key is hunted everywhere."""
    word = value.strip()
    if names_no_value(word) or word.lower() in WELL_KNOWN:
        return False
    return not (name and word.lower() in {w.lower() for w in _WORD.findall(plain(name))})


def names_variable(value: str) -> bool:
    """Whether a value written in text after a secret-looking name is the name of the variable holding the secret
    (``api_key_env=OPENAI_API_KEY``, ``${DB_PASSWORD}``): capitals spelling a secret's name, ending in a word."""
    variable = _VARIABLE.fullmatch(value.strip())
    return variable is not None and variable.group(1).rpartition("_")[2].isalpha() and is_secret_key(variable.group(1))


# a shell, environment or template reference written where the value would be: ``$DB_PASSWORD``, ``$db_pass2``,
# ``$dbPassword``, ``$1``, ``$?``, ``${VAR}``, ``${VAR:-x}``, ``${{ secrets.TOKEN }}``, ``$(pass show db)``, ``$((n))``,
# ``$env:API_KEY``, a lone ``$`` (a prompt's). Names only: a password may start with ``$`` too (``$uperS3cret99``,
# ``$9fK2mQ…``) and reads as no name (a digit inside a word past its 4th character, a capital before a digit, a digit
# after ``$`` and more after it)
_NAME_WORD = r"(?:[A-Z]+|[A-Z0-9]{1,4}|[a-z]+|[a-z0-9]{1,4})[0-9]*"  # a word of a name, in one case: ``S3``, ``k8s2``
_REFERENCE = re.compile(
    rf"\$(?:(?=_*[A-Za-z])_*{_NAME_WORD}(?:_+{_NAME_WORD})*_*|[A-Za-z][a-z]*(?:[A-Z][a-z]+)+[0-9]*|[0-9]|[?#@*$!_-]"
    r"|env:[A-Za-z_][A-Za-z0-9_]*|\{(?:\{.*|[!#]?[A-Za-z_].*)|\(\(.*|\([ \t]*[A-Za-z_./~\[].*)?",
    re.S,
)


def stands_for(value: str) -> bool:
    """Whether ``value``, starting with ``$``, is a reference standing for a secret rather than one (``$DB_PASSWORD``,
    ``${VAR}``, ``$(cmd)``, ``$1``): judged by its shape, so ``password=$uperS3cret99`` is a password."""
    return _REFERENCE.fullmatch(value.strip()) is not None


def vocabulary_token(name: str, value: object, beside: object = None) -> bool:
    """Whether ``value`` under ``name`` is a model's token: the name is ``token``, its record holds a ``logprob``
    (``{"token": " Paris", "logprob": -0.1}``, OpenAI's logprobs) and the value is no credential-like word."""
    return (
        name.lower() == "token"
        and isinstance(beside, dict)
        and "logprob" in beside
        and isinstance(value, str)
        and not looks_like_credential(value)
    )
