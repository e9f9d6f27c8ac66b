"""Secrets the process holds in its environment: the values of variables whose names say so (``DB_PASSWORD``,
``STRIPE_SECRET``, ``MY_APP_CREDENTIALS``, ``OPENAI_API_KEY``). An agent may print or return such a value without
naming its variable; each run learns them when it starts (``guard.for_run``), so they are hunted in everything it
writes, and views hide them (``guard.known_shown``). Read again at each run's start, and by a view when the
environment changed: a variable set later (``load_dotenv()`` after import) is learned by the runs started after it and
hidden by the views shown after it.

A name says secret by a word of it followed by none saying the value points at the secret or sets how it is used
(``DB_PASSWORD_PROD`` and ``GITHUB_TOKEN_RO`` do, ``TOKEN_FILE``, ``VAULT_SECRET_ID``, ``API_KEY_HEADER``,
``TOKEN_BUDGET``, ``GIT_PRIVATE_REPO``, ``PASSWORD_HASHERS`` do not) and after none making the name a setting
(``OPENAI_MAX_TOKENS``, ``USE_PRIVATE_REGISTRY``; split at ``_``, ``-``, ``.`` and case changes; a trailing number
skipped): ``PASSWORD``/``PASSWD``/``PASS``/``PWD``, ``SECRET``, ``TOKEN`` (``TOKENS`` is a count),
``CREDENTIAL(S)``/``CREDS``, ``PASSPHRASE``, ``AUTH``, ``PRIVATE``, ``KEY`` (not after ``PUBLIC``, ``GPG``,
``SORT``... : ``GPG_KEY`` is a fingerprint), or one word ending so (``PGPASSWORD``, ``APITOKEN``, ``SECRETKEY``,
``PRIVATEKEY``, ``WEBHOOKSECRET``, ``NGROK_AUTHTOKEN``); or it is a well-known one (sshpass's ``SSHPASS``, Bitwarden's
``BW_SESSION``, 1Password's ``OP_SESSION_<account>``, Rails' ``SECRET_KEY_BASE``, a forge's personal access token
``GITHUB_PAT``/``GH_PAT``/``GITLAB_PAT``). A setting about a credential names none (``COOKIE_DOMAIN``,
``OAUTH_AUDIENCE``, ``AUTH_TYPE``, ``TOKENIZERS_PARALLELISM``, ``JWT_SECRETKEY_ROTATION``): its value is learned by no
run, as a learned value is redacted wherever it appears. ``PWD`` and ``OLDPWD`` are directories and ``SSH_AUTH_SOCK``
the path of the ssh agent's socket (no credential: whoever reaches the socket reaches the agent already). A value is
kept when it has 8+ characters and is no boolean, number, path, plain short word or URL without credentials
(``forms.no_secret``). Each is hunted as written and in the forms every learned value is (``forms.written_forms``:
JSON-escaped, ``repr``'d, shell-quoted, percent- and base64-encoded...).
"""

from __future__ import annotations

import os
import re
from functools import lru_cache

from .forms import LEAST, no_secret, written_forms

__all__ = ["environ_secrets", "environ_read", "names_secret", "SETTING_WORDS", "WHOLE_WORDS", "CODE_WORDS"]

#: the short words naming a secret, shared with ``names.is_secret_key`` (one list): a PIN or passcode (a name of its
#: own in data, ``{"pin": "4821"}``; in a variable's name after another word, ``MASTER_PIN``, ``ADMIN_PASSCODE``) and a
#: one-time code's or a short password's (in a short name, ``totp_code``, ``user_pw``; ``TOTP_SEED``, ``DB_PW``). Read
#: as whole words of a name (split at ``_`` and case changes): ``PIPELINE`` and ``SPINNER`` hold no ``PIN``
WHOLE_WORDS = frozenset({"PIN", "PASSCODE"})
CODE_WORDS = frozenset({"OTP", "TOTP", "HOTP", "PW"})

# a word of a name saying its value is a credential, wherever it stands (``DB_PASSWORD_PROD``, ``GITHUB_TOKEN_RO``)
_STRONG = frozenset(
    {"SECRET", "SECRETS", "TOKEN", "PASSWORD", "PASSWORDS", "PASSWD", "CREDENTIAL", "CREDENTIALS", "CREDS"}
    | {"PASSPHRASE", "PASSCODE", "TOTP", "HOTP"}
)
# short or loose words saying so after another word of the name (``DB_PASS_RO``), or as its last (``PW`` and
# ``COOKIE`` only there: ``PW_BROWSER``, ``COOKIE_DOMAIN`` are settings)
_LOOSE = frozenset({"PASS", "PWD", "AUTH", "PRIVATE"})
_LAST_ONLY = frozenset({"COOKIE"}) | (WHOLE_WORDS | CODE_WORDS) - _STRONG  # (``PW``, ``PIN``, ``OTP``: ``PIN_MEMORY``)
# a word after the secret word saying the value points at the secret or sets how it is used rather than holds it
# (``TOKEN_FILE``, ``SECRET_NAME``, ``API_KEY_HEADER``, ``PASSWORD_MIN_LENGTH``, ``JWT_SECRETKEY_ROTATION``). ``URL``
# too: a URL holding a password is hidden by its shape wherever it is written (``user:pass@`` and a query's ``token=``)
_ABOUT = frozenset(
    {"FILE", "FILES", "PATH", "PATHS", "DIR", "DIRS", "FOLDER", "ID", "IDS", "NAME", "NAMES", "ENV", "VAR", "VARS"}
    | {"URL", "URI", "URLS", "ENDPOINT", "HOST", "HOSTS", "PORT", "SOCK", "SOCKET", "HEADER", "HEADERS", "PARAM"}
    | {"FIELD", "TYPE", "KIND", "COUNT", "LIMIT", "LENGTH", "LEN", "SIZE", "BITS", "MIN", "MAX", "TTL", "EXPIRY"}
    | {"EXPIRES", "EXPIRATION", "LIFETIME", "TIMEOUT", "INTERVAL", "DAYS", "HOURS", "SECONDS", "AGE", "ROTATION"}
    | {"ALGORITHM", "ALG", "ALGO", "ENCODING", "FORMAT", "ISSUER", "AUDIENCE", "SCOPE", "SCOPES", "REALM", "DOMAIN"}
    | {"MODE", "PROVIDER", "BACKEND", "STORE", "MANAGER", "REGION", "REF", "ARN", "HELPER", "CMD", "COMMAND"}
    | {"PROMPT", "POLICY", "ENABLED", "DISABLED", "REQUIRED", "ENABLE", "DISABLE", "SECURE", "SAMESITE", "PREFIX"}
    | {"SUFFIX", "USER", "USERNAME", "LOGIN", "EMAIL", "VERSION", "LOCATION", "SOURCE", "TEMPLATE", "PATTERN"}
    # settings about tokens or secrets: a rate, a budget, where they are cached or kept, how they are hashed or made
    | {"PER", "BUDGET", "BUDGETS", "QUOTA", "RATE", "RATIO", "WINDOW", "THRESHOLD", "USAGE", "MAXIMUM", "MINIMUM"}
    | {"LIMITS", "COUNTS", "COUNTER", "NUM", "NUMBER", "TOTAL", "MARGIN", "REFRESH", "RENEW", "RENEWAL", "LEEWAY"}
    | {"CACHE", "CACHED", "CACHING", "STORAGE", "REPO", "REPOS", "REPOSITORY", "REGISTRY", "REGISTRIES", "NETWORK"}
    | {"NETWORKS", "SUBNET", "HASHER", "HASHERS", "HASHING", "ENGINE", "ENGINES", "VALIDATOR", "VALIDATORS"}
    | {"STRATEGY", "METHOD", "METHODS", "LEVEL", "SERVER", "SERVICE", "CALLBACK", "REDIRECT", "PERMISSIONS"}
    | {"DURATION", "DELAY", "RETRY", "RETRIES", "ATTEMPTS", "STRENGTH", "RULES", "HINT", "HISTORY", "COMPLEXITY"}
    | {"STREAMING", "SCANNING", "PROFILE", "NAMESPACE", "OPTIONS", "LOG", "LOGGING", "DEBUG", "VERBOSE"}
)
SETTING_WORDS = _ABOUT  # (``names``: after a password's name, such a word names no secret either)
# a word before the secret word making the name a setting about it (``MAX_TOKENS``, ``USE_PRIVATE_REGISTRY``,
# ``HF_HUB_DISABLE_IMPLICIT_TOKEN``, ``NUM_AUTH_RETRIES``)
_SETTING_BEFORE = frozenset(
    {"MAX", "MIN", "USE", "ENABLE", "DISABLE", "NUM", "ALLOW", "REQUIRE", "SKIP", "NO", "ALWAYS", "IMPLICIT"}
)
# a last word of one piece ending in one of these (``PGPASSWORD``, ``APITOKEN``, ``WEBHOOKSECRET``); ``KEY`` only after
# a word saying which key (``HOTKEY``, ``TURNKEY`` name none)
_ENDINGS = ("PASSWORD", "PASSWORDS", "PASSWD", "SECRET", "SECRETS", "TOKEN", "CREDENTIALS", "PASSPHRASE")
_KEY_ENDINGS = ("APIKEY", "SECRETKEY", "PRIVATEKEY", "ACCESSKEY", "SIGNINGKEY", "MASTERKEY", "ENCRYPTIONKEY", "AUTHKEY")
# ``KEY`` after one of these names no secret (a fingerprint, a public key, a setting)
_PLAIN_KEYS = frozenset({"PUBLIC", "PUB", "GPG", "PGP", "SORT", "PARTITION", "ROUTING", "PRIMARY", "CACHE", "HOT"})
# the shell's working directories; the ssh agent's socket (a path, no credential)
_NOT_SECRET_NAMES = frozenset({"PWD", "OLDPWD", "SSH_AUTH_SOCK"})
# sshpass -e, Bitwarden's CLI, Rails, AWS's key pair
_WELL_KNOWN_NAMES = frozenset({"SSHPASS", "BW_SESSION", "BW_CLIENTSECRET", "SECRET_KEY_BASE", "AWS_ACCESS_KEY_ID"})
_SESSION_PREFIXES = ("OP_SESSION_",)  # 1Password's CLI: ``OP_SESSION_<account>``
# a forge's (or registry's) personal access token, ``GITHUB_PAT``: ``PAT`` as the last word after one of these only
# (``PAT_COUNT``, ``SPATIAL`` name no secret)
_PAT_OWNERS = frozenset(
    {"GITHUB", "GH", "GITLAB", "GL", "GITEA", "FORGEJO", "CODEBERG", "BITBUCKET", "AZURE", "ADO", "DEVOPS", "HF"}
    | {"HUGGINGFACE", "DOCKER", "DOCKERHUB", "NPM", "ATLASSIAN", "JIRA", "CONFLUENCE"}
)
_NAME_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
# the environment as ``environ_secrets`` last read it (a copy), the secret-named variables in it and their values'
# forms: one object, replaced whole, so a thread reading it meanwhile gets the old three or the new three
_LAST: tuple[object, tuple[tuple[str, str], ...], frozenset[str]] = (None, (), frozenset())


@lru_cache(maxsize=1024)
def names_secret(name: str) -> bool:
    """Whether an environment variable's name says its value is a secret: a word of it does (``DB_PASSWORD``, also
    followed by what says which one, ``DB_PASSWORD_PROD``, ``GITHUB_TOKEN_RO``, ``JWT_SECRET_B64``), and no word after
    it says the value is about the secret (``TOKEN_FILE``, ``SECRET_NAME``, ``API_KEY_HEADER``); or it is a well-known
    one. Not ``PWD`` nor ``SSH_AUTH_SOCK``."""
    upper = name.upper()
    if upper in _NOT_SECRET_NAMES:
        return False
    if upper in _WELL_KNOWN_NAMES or upper.startswith(_SESSION_PREFIXES):
        return True
    words = [word.upper() for word in _NAME_WORD.findall(name)]
    while words and words[-1].isdigit():  # ``API_KEY_2``
        words.pop()
    if not words:
        return False
    for at in range(len(words)):
        if _says_secret(words, at, last=at == len(words) - 1):
            setting = any(before in _SETTING_BEFORE for before in words[:at])
            return not setting and not any(after in _ABOUT for after in words[at + 1 :])
    return False


def _says_secret(words: list[str], at: int, *, last: bool) -> bool:
    """Whether ``words[at]`` says the value is a secret: a strong word anywhere (``PASSWORD``, ``TOKEN``, ``SECRET``,
    ``KEY`` after a word saying which key); the short or loose ones (``PASS``, ``PWD``, ``AUTH``, ``PRIVATE``, a lone
    ``KEY``) after a word of the name only (``PW_BROWSER`` is Playwright's); ``PW``, ``COOKIE`` and a forge's ``PAT``
    as the last word only."""
    word, before = words[at], words[at - 1] if at else ""
    if word == "PAT":
        return last and before in _PAT_OWNERS
    if word in ("KEY", "KEYS"):
        return before not in _PLAIN_KEYS and (bool(before) or last)
    if word in _STRONG or word.endswith(_ENDINGS) or word.endswith(_KEY_ENDINGS):
        return True
    if word in _LOOSE:
        return bool(before) or last
    return last and word in _LAST_ONLY


def environ_secrets() -> frozenset[str]:
    """The secret values of the process environment now, and their encoded forms; the same set while it is unchanged
    (then answered in a comparison of the environment with its copy: views call it for each text they show)."""
    global _LAST
    last = _LAST
    data = getattr(os.environ, "_data", None)  # CPython's own mapping: compared whole in ~2 µs, unchanged
    if data is not None and data == last[0]:
        return last[2]
    seen = dict(data) if data is not None else None  # copied before it is read: a change meanwhile is read again
    given = tuple((name, value) for name, value in os.environ.items() if names_secret(name))
    if given == last[1]:
        _LAST = (seen, given, last[2])
        return last[2]
    found: set[str] = set()
    for _, value in given:
        value = value.strip()
        if no_secret(value, LEAST):
            continue
        found.update(written_forms(value, LEAST))
    secrets = frozenset(found)
    _LAST = (seen, given, secrets)
    return secrets


def environ_read() -> frozenset[str]:
    """The secret values of the environment as last read (at import, then at each run's start)."""
    return _LAST[2]


environ_secrets()
