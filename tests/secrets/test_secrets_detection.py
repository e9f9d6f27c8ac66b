"""Detection by value and by name (noesis_nb.secrets): every corpus shape is found, ordinary data is not."""

from __future__ import annotations

import json
import logging
import random
import secrets as stdlib_secrets
import uuid

import orjson
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from ulid import ULID

from noesis_nb.secrets import find_in_text, is_secret_key, might_contain, redact, scan
from noesis_nb.secrets.guard import RunSecrets, scrub_text
from noesis_nb.secrets.text import payload_might_contain
from tests.hardening.secret_corpus import corpus, leaks


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_every_shape_is_redacted_in_every_carrier(seed):
    for shape in corpus(seed):
        for carrier in ("text", "argv", "env", "kwargs"):
            out, hits = redact(getattr(shape, carrier))
            assert hits, (shape.name, carrier)
            assert leaks([shape], [(carrier, json.dumps(out).encode())]) == [], (shape.name, carrier, out)


def test_random_words_without_context_are_found():
    rng = random.Random(11)
    alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    words = ["".join(rng.choice(alnum) for _ in range(rng.randrange(32, 64))) for _ in range(1000)]
    words += [format(rng.getrandbits(256), "064x") for _ in range(200)]
    found = sum(bool(find_in_text(f"value {w} here")) for w in words)
    assert found >= 0.99 * len(words)


def test_secret_names():
    for key in (
        "password",
        "DB_PASSWORD",
        "apiKey",
        "X-Api-Key",
        "Authorization",
        "auth",
        "MYSQL_PWD",
        "client_secret",
        "AWS_SECRET_ACCESS_KEY",
        "auth_token",
        "passwd",
        "ssh_key",
        "--client-secret",
    ):
        assert is_secret_key(key), key
    for key in (
        "max_tokens",
        "tokenizer",
        "path",
        "PWD",
        "OLDPWD",
        "monkey",
        "keyboard",
        "author",
        "idempotency_key",
        "token_file",
        "secret_name",
        "password_stdin",
        "approval_token_ref",
        "auth_type",
        "token_count",
    ):
        assert not is_secret_key(key), key


ulids = st.builds(lambda: str(ULID()))
ordinary = st.one_of(
    st.uuids().map(str),
    ulids,
    ulids.map(lambda u: f"ep_{u}"),
    ulids.map(lambda u: f"draft:ep_{u}:req_{u}"),
    st.binary(min_size=8, max_size=64).map(lambda b: "sha256:" + __import__("hashlib").sha256(b).hexdigest()),
    st.sampled_from(
        [
            "claude-sonnet-4-5-20250929",
            "gpt-4o-mini-2024-07-18",
            "gemini-2.5-pro",
            "meta-llama/Llama-3.3-70B-Instruct",
            "mistral-large-latest",
            "o3-mini-2025-01-31",
        ]
    ),
    st.integers(min_value=0, max_value=10**9),
    st.datetimes().map(lambda d: d.isoformat() + "+00:00"),
    st.lists(
        st.sampled_from(["src", "tests", "noesis_nb", "runs", "tool_invocations", "prepared", "README.md", "data"]),
        min_size=1,
        max_size=6,
    ).map(lambda parts: "/" + "/".join(parts)),
    st.sampled_from(
        [
            ["git", "commit", "-m", "fix bug in parser"],
            ["ls", "-la", "/tmp"],
            ["pytest", "-q", "-k", "token and not slow"],
            ["grep", "-r", "password", "docs/"],
            ["docker", "login", "--password-stdin", "registry.example.com"],
        ]
    ),
)


@settings(max_examples=300, deadline=None)
@given(value=ordinary)
def test_ids_digests_models_paths_and_ordinary_commands_are_not_secrets(value):
    assert scan(value) == [], value
    assert scan({"model": value, "request_id": value, "text": f"see {value}", "argv": [value]}) == [], value


_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
ulids_spelling_secret_words = st.tuples(
    st.sampled_from(["PWD", "KEY", "PASS", "SECRET", "PASSWD", "CREDS", "BEARER", "APKEY"]),
    st.text(alphabet=_CROCKFORD, min_size=25, max_size=25),
    st.integers(min_value=1, max_value=18),
).map(lambda t: ("0" + t[1][: t[2]] + t[0] + t[1][t[2] :])[:26])


@settings(max_examples=300, deadline=None)
@given(ulid=ulids_spelling_secret_words, other=ulids_spelling_secret_words)
def test_ids_that_spell_a_secret_word_by_chance_are_still_ids(ulid, other):
    """A ULID may contain PWD or KEY; the ids the runtime writes must never be taken for credentials."""
    draft = f"draft:ep_{ulid}:req_{other}"
    assert scan({"draft_id": draft, "request_id": f"req_{other}", "text": f"run ep_{ulid} paused on {draft}"}) == []


pieces = st.one_of(
    st.text(max_size=20),
    st.sampled_from([s.text for s in corpus(1)] + [s.value for s in corpus(2)]),
    st.sampled_from(
        [
            "password",
            "--token",
            "Authorization:",
            "Bearer",
            "=",
            ": ",
            " ",
            "://",
            "@",
            "mysql",
            "-p",
            "key",
            "'",
            '"',
            "\n",
            "sk-",
            "eyJ",
            "xoxb-",
            "AKIA",
            "-----BEGIN RSA PRIVATE KEY-----",
        ]
    ),
    st.sampled_from(  # disguises: an invisible character, character escapes, form encoding
        ["\u200b", "\u00ad", "\ufeff", "\\u0070", "\\u0073", "\\x77", "&#x70;", "&#116;", "\\", "&", "+", "%2B"]
    ),
    st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/=_-", min_size=15, max_size=40),
)
texts = st.lists(pieces, max_size=8).map("".join)
payloads = st.recursive(
    texts | st.integers(min_value=-(2**63), max_value=2**63 - 1) | st.floats(allow_nan=False) | st.none(),
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(texts | st.sampled_from(["token", "auth", "x"]), kids, max_size=4),
    max_leaves=10,
)


@settings(max_examples=400, deadline=None)
@given(payload=payloads)
@example(payload="00000%2B012345A678B9CD")  # a random word of 20 only as it reads percent-decoded
def test_the_prefilter_never_misses_what_the_detectors_find(payload):
    """The event hot path skips the detectors when ``might_contain`` is False: it must be True whenever they find something."""
    blob = orjson.dumps(payload, option=orjson.OPT_NON_STR_KEYS)
    event = {"text": payload} if not isinstance(payload, dict) else payload
    if scan(payload):
        assert might_contain(blob)
        assert payload_might_contain(event, orjson.dumps(event, option=orjson.OPT_NON_STR_KEYS))


def test_cut_off_secrets_are_scrubbed_but_ordinary_prefixes_are_not():
    secret = "production-key-" + stdlib_secrets.token_hex(8)
    assert scrub_text(f"msg {secret[:12]}", [secret]) == "msg [REDACTED]"  # cut at the end of a message
    assert scrub_text(f"msg {secret[:12]}…", [secret]) == "msg [REDACTED]…"
    assert scrub_text("production-keys are rotated", [secret]) == "production-keys are rotated"
    assert scrub_text(f"a {secret} b", [secret]) == "a [REDACTED] b"


def test_detect_secrets_runs_offline_without_git_and_quietly(monkeypatch, caplog):
    import subprocess

    import requests

    def refuse(*args, **kwargs):
        raise AssertionError("detection must not use the network or start processes")

    monkeypatch.setattr(requests.Session, "request", refuse)
    monkeypatch.setattr(subprocess, "Popen", refuse)
    caplog.set_level(logging.DEBUG)
    for shape in corpus(9):
        assert find_in_text(shape.text)
    assert not [r for r in caplog.records if r.name.startswith("detect")]
    assert uuid.UUID(str(uuid.uuid4()))  # (the stdlib still works: nothing was patched globally)


def test_provider_ids_skip_the_detectors_but_a_token_inside_one_does_not():
    """A captured call's request and response ids take no detector pass; an id carrying a token shape still does."""
    ids = {"request_id": "req_011CVabcDEFghiJKLmnoPQRs", "response_id": "chatcmpl-BmR3xq9XfLk2Tz8wYpV0aN4cE7uHd"}
    payload = {"model": "gpt-4o", "input_tokens": 1200, **ids}
    assert not payload_might_contain(payload, orjson.dumps(payload))
    hidden = {**payload, "request_id": "req_AKIAIOSFODNN7EXAMPLE1234"}
    assert scan(hidden) and payload_might_contain(hidden, orjson.dumps(hidden))
    elsewhere = {**payload, "note": ids["request_id"]}  # the id under another key is screened, and is still an id
    assert not payload_might_contain(elsewhere, orjson.dumps(elsewhere)) and not scan(elsewhere)
    keylike = {**payload, "note": "BmR3xq9XfLk2Tz8wYpV0aN4cE7uHd"}  # a random word without an id's prefix is a key
    assert payload_might_contain(keylike, orjson.dumps(keylike)) and scan(keylike)
    shaped = {**payload, "response_id": "sk-proj-" + "a1B2c3D4e5" * 3}
    assert payload_might_contain(shaped, orjson.dumps(shaped))


_KEYWORD_PIECES = ["pass", "pwd", "secret", "sshpass", "token", "key", "auth", "cookie", "cred", "contras", "bearer"]
_KEYWORD_PIECES += ["eyj", "xox", "hooks.slack", "mysql", "mariadb", "://u:p@h", "k", "p", "c", "u", "y", "x", ":"]
_KEYWORD_PIECES += ["%3A%2F%2F", "%3a", "%2f", "%", "3a", "2f"]
_KEYWORD_PIECES += ["podman", "openssl", "nerdctl", "redis-cli", "zip", "docker", "curl", "mysql", "sql", "q", "j", "b", "-"]


@settings(max_examples=500, deadline=None)
@given(text=st.lists(st.sampled_from(_KEYWORD_PIECES) | st.text(max_size=6), max_size=10).map("".join))
def test_the_keyword_anchors_are_found_in_every_text_holding_a_keyword(text):
    """The whole-payload shortcut clears a text when no anchor is in it: every keyword match must hold an anchor."""
    from noesis_nb.secrets.text import _KEYWORD_ANCHORS, _KEYWORDS

    blob = text.encode("utf-8", "replace").lower()
    if _KEYWORDS.search(blob):
        assert _KEYWORD_ANCHORS.search(blob), text


@settings(max_examples=300, deadline=None)
@given(
    words=st.lists(
        st.sampled_from(["api", "key", "password", "auth", "token", "secret", "private", "access", "ssh", "client", "pwd"])
        | st.sampled_from(["pin", "pw", "sig", "signature", "hmac", "otp", "totp", "subscription", "code"])
        | st.sampled_from(["cookie", "credentials", "bearer", "oauth", "passphrase", "master", "signing", "db", "user"])
        | st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=6),
        min_size=1,
        max_size=4,
    ),
    joiner=st.sampled_from(["_", "-", "", "."]),
    upper=st.booleans(),
)
def test_every_secret_looking_name_holds_a_keyword(words, joiner, upper):
    """A payload whose text holds no keyword skips the per-key test: a secret-looking key must therefore hold one,
    or be one of the short names looked for as whole keys (``"pin": …``)."""
    from noesis_nb.secrets.text import _KEYWORD_ANCHORS, _KEYWORDS, _SHORT_KEY

    name = joiner.join(words)
    name = name.upper() if upper else name
    if is_secret_key(name):
        lowered = name.lower().encode()
        short = _SHORT_KEY.search(b'"' + lowered + b'":') is not None
        assert short or (_KEYWORDS.search(lowered) and _KEYWORD_ANCHORS.search(lowered)), name


def test_a_secret_named_number_and_a_flat_clean_payload():
    """The shortcut: plain text and numbers under ordinary names are clean; a number under a secret name is not."""
    clean = {"step": 3, "text": "thought number 3 about the plan", "ok": True, "score": 0.5}
    assert not payload_might_contain(clean, orjson.dumps(clean))
    for key in ("password", "api_key", "PIN_token", "db_pwd", "authCookie"):
        payload = {**clean, key: 1234}
        assert payload_might_contain(payload, orjson.dumps(payload)) == is_secret_key(key), key


_plain = (
    texts
    | st.text(max_size=30)  # any text, non-ASCII and lone surrogates included
    | st.integers(min_value=-(2**70), max_value=2**70)  # beyond what JSON writers hold, too
    | st.floats()
    | st.booleans()
    | st.none()
)
flat_payloads = st.dictionaries(
    texts | st.sampled_from(["token", "auth", "x", "request_id", "response_id", "password", "model"]),
    _plain | st.lists(_plain, max_size=2) | st.sampled_from(["req_011CVabcDEFghiJKLmnoPQRs", "req_AKIAIOSFODNN7EXAMPLE1234"]),
    max_size=12,
)


@settings(max_examples=600, deadline=None)
@given(payload=flat_payloads)
def test_the_value_by_value_test_answers_as_the_whole_text_test(payload):
    """Large flat payloads (a model call's) skip their JSON text: the answer must be the one the JSON test gives,
    and True whenever the detectors find something; payloads it cannot judge (nested, unwritable) are left to it."""
    from noesis_nb.secrets.text import flat_might_contain

    found = flat_might_contain(payload)
    try:
        blob = orjson.dumps(payload, option=orjson.OPT_NON_STR_KEYS)
    except orjson.JSONEncodeError:  # an int beyond 64 bits, a lone surrogate: never cleared without the JSON path
        assert found is not False
        return
    if any(isinstance(v, list) for v in payload.values()):
        assert found is not False
        return
    assert found is not None
    assert found == payload_might_contain(payload, blob)
    if scan(payload):
        assert found


@settings(max_examples=300, deadline=None)
@given(payload=flat_payloads, width=st.integers(min_value=8, max_value=12))
def test_a_screened_payload_is_the_same_by_either_path(payload, width):
    """``RunSecrets.screen`` writes the same payload whether it took the value-by-value path or the JSON one."""
    from noesis_nb.secrets import guard

    payload = {**{f"count_{i}": i for i in range(width)}, **payload}  # wide enough for the value-by-value path
    by_value, by_json = guard.RunSecrets(), guard.RunSecrets()
    small = guard._BY_VALUE
    try:
        guard._BY_VALUE = 10**9  # the JSON path only
        expected = by_json.screen(payload)
    finally:
        guard._BY_VALUE = small
    assert by_value.screen(payload) == expected
    assert by_value.values == by_json.values  # and the same secrets are learned


@pytest.mark.parametrize("invisible", ["\u200b", "\u200c", "\u2060", "\ufeff", "\u00ad", "\u200e"])
def test_a_secret_split_by_an_invisible_character_is_found_as_it_stands_and_without_it(invisible):
    """One character that shows as nothing inside a token hides it from every pattern; it is read without them."""
    from noesis_nb.secrets import shown

    token = "ghp_" + stdlib_secrets.token_hex(18)
    hidden = invisible.join(token[i : i + 9] for i in range(0, len(token), 9))
    assert find_in_text(f"use {hidden} now") >= {hidden, token}
    assert might_contain(orjson.dumps({"text": hidden})) and payload_might_contain({"t": hidden}, orjson.dumps({"t": hidden}))
    assert shown(f"use {hidden} now") == "use [REDACTED] now"
    assert find_in_text(f"pass{invisible}word=Hunter2-{invisible}swordfish") >= {f"Hunter2-{invisible}swordfish"}
    assert find_in_text(f"an ordinary{invisible}sentence, nothing in it") == set()


def test_a_query_parameter_with_a_secret_looking_name_is_found_first_in_a_url_too():
    password = "Pw" + stdlib_secrets.token_hex(8)
    for url in (
        f"https://api.example.com/v1?access_token={password}",
        f"https://api.example.com/v1?limit=5&access_token={password}",
        f"redis://cache:6379/0?password={password}&db=1",
    ):
        out, _ = redact({"url": url})
        assert password not in out["url"] and out["url"].startswith(("https://api.example.com/v1?", "redis://cache")), url
    assert find_in_text("https://example.com/search?q=token&page=2") == set()


def test_secrets_used_as_keys_and_named_in_pairs_are_redacted():
    token, password = "ghp_" + stdlib_secrets.token_hex(18), "Pw" + stdlib_secrets.token_hex(8)
    payload = {
        "seen": {token: "first", "plain": "kept"},
        "headers": [["content-type", "json"], ["x-api-key", password], ("Cookie", password)],
        "env": [{"name": "PATH", "value": "/usr/bin"}, {"name": "DB_PASSWORD", "value": password}],
        "attributes": [{"key": "http.request.header.authorization", "value": {"stringValue": password}}],
        "argv": ["passwd", "alice"],  # a command line, not a pair in a list
    }
    out, hits = redact(payload)
    assert token not in json.dumps(out) and password not in json.dumps(out)
    assert out["seen"] == {"[REDACTED]": "first", "plain": "kept"} and out["headers"][0] == ["content-type", "json"]
    assert out["env"][0] == {"name": "PATH", "value": "/usr/bin"} and out["argv"] == ["passwd", "alice"]
    assert {v for h in hits for v in h.values} >= {token, password}


@pytest.mark.parametrize(
    "plain",
    [
        "postgres://admin:{pw}@db.example.com/app",
        "https://api.example.com/v1?password={pw}&n=2",
        "redis://:{pw}@cache:6379",
        "login password={pw}",
    ],
)
def test_a_secret_passed_on_percent_encoded_is_found_as_it_stands(plain):
    """A URL or query string written percent-encoded hid its credentials from every pattern (``%3A…%40``,
    ``password%3D…``); it is read decoded too, and the secret redacted in its encoded form."""
    import re
    from urllib.parse import quote

    pw = "Pw8kQz3LmN5vXr2T!x"
    upper = quote(plain.format(pw=pw), safe="")
    for text in (upper, re.sub("%[0-9A-F]{2}", lambda m: m.group().lower(), upper)):  # either case of hex digits
        run = RunSecrets()
        shown = run.screen({"note": text, **{f"n_{i}": i for i in range(10)}})["note"]
        assert "Pw8kQz3LmN5vXr2T" not in shown and "[REDACTED]" in shown, shown
        assert pw in run.values  # hunted, decoded, in every later line


@pytest.mark.parametrize("text", ["https%3A%2F%2Fexample.com%2Fdocs%3Fq%3D1", "100% sure", "50%25 off", "a%ZZb"])
def test_percent_encoded_text_without_a_secret_is_left_as_it_is(text):
    assert RunSecrets().screen({"note": text}) == {"note": text}


def _esc(text: str, form: str = "\\u{:04x}") -> str:
    return "".join(form.format(ord(c)) for c in text)


_WIDE = {f"count_{i}": i for i in range(10)}


@pytest.mark.parametrize(
    "name",
    [
        "\\u0070assword",
        _esc("password"),
        "pass" + _esc("w", "\\x{:02x}") + "ord",
        "pass\\u{77}ord",
        "\\U00000070assword",
        "&#x70;assword",
        "&#112;assword",
        _esc("api_key", "&#x{:X};"),
        "p\u200bassword",
        "to\u2060ken",
        "api\u00ad_key",
        "db_pass\ufeffword",
        "sec\u200dret",
    ],
)
def test_a_secret_name_in_disguise_is_read_as_it_shows(name):
    """An escape or an invisible character inside a secret-looking name hid a short value from every rule
    and from the prefilter; the name is read as it shows, in text and as a key, by either screening path."""
    value = "Hu8kQz2!"
    assert find_in_text(f"{name}={value}") >= {value} and find_in_text(f"use {name}: {value} today") >= {value}
    assert is_secret_key(name)
    for payload in ({"text": f"{name}={value}"}, {name: value}, {name: 73519864}, {**_WIDE, name: value}, {"cfg": {name: value}}):
        blob = orjson.dumps(payload)
        assert might_contain(blob) and payload_might_contain(payload, blob), payload
        assert value not in str(RunSecrets().screen(payload)) and "73519864" not in str(RunSecrets().screen(payload))


@pytest.mark.parametrize("form", ["\\u{:04x}", "\\u{:04X}", "\\x{:02x}", "&#x{:x};", "&#{};", "&#{}"])
def test_a_token_spelled_in_character_escapes_is_found_as_it_stands(form):
    token = "ghp_" + stdlib_secrets.token_hex(18)
    key = "sk-proj-" + stdlib_secrets.token_hex(14)
    for text, secret in (
        (f"the token is {_esc(token, form)}, keep it", token),
        (f"key {_esc(key[:3], form)}{key[3:]} here", key),
    ):
        payload = {"text": text}
        assert might_contain(orjson.dumps(payload)) and payload_might_contain(payload, orjson.dumps(payload))
        run = RunSecrets()
        shown = run.screen(payload)["text"]
        assert shown.startswith(("the token is [REDACTED],", "key [REDACTED] here")), shown
        assert secret in run.values


def test_an_escaped_token_is_learned_decoded_and_as_written():
    token = "ghp_" + stdlib_secrets.token_hex(18)
    spelled = _esc(token)
    run = RunSecrets()
    assert run.screen({"text": f"the token is {spelled}"}) == {"text": "the token is [REDACTED]"}
    assert {token, spelled} <= set(run.values)
    assert run.screen({"text": f"later: {token}"}) == {"text": "later: [REDACTED]"}


@pytest.mark.parametrize(
    "text",
    [
        'JSON writes "\\u00e9" for é and "\\u2014" for a dash',
        "print('\\x1b[0m done')",
        "C:\\Users\\xavier\\projects\\notes.txt",
        "Tom &#38; Jerry &amp; friends",
        "2+2=4, C++ and a+b=c",
        "x=1&y=a+b&z=c+d",
        "https://example.com/search?q=c%2B%2B+books&page=2",
        "an ordinary\u200bsentence with a soft\u00adhyphen",
        "\\ud83d\\ude00 is an emoji written in escapes",
    ],
)
def test_ordinary_text_with_escapes_plus_signs_and_entities_is_left_as_it_is(text):
    assert find_in_text(text) == set(), text
    assert RunSecrets().screen({"note": text}) == {"note": text}
    assert RunSecrets().screen({**_WIDE, "note": text}) == {**_WIDE, "note": text}


@pytest.mark.parametrize(
    ("text", "written", "decoded"),
    [
        ("grant_type=password&username=bob&password=correct+horse+battery", "correct+horse+battery", "correct horse battery"),
        ("https://id.example.com/cb?client_secret=Pw+a1b2c3d4&state=ok", "Pw+a1b2c3d4", "Pw a1b2c3d4"),
        ("token=ab+cd%2Bef12345", "ab+cd%2Bef12345", "ab cd+ef12345"),
        ("curl -d 'user=bob&api_key=k1+k2+k3' https://x", "k1+k2+k3", "k1 k2 k3"),
    ],
)
def test_a_form_encoded_value_is_redacted_as_written_and_learned_as_it_reads(text, written, decoded):
    """``+`` is a space in a form body or a query: the value a later message shows is the decoded one."""
    assert find_in_text(text) >= {written, decoded}
    run = RunSecrets()
    assert written not in str(run.screen({"body": text})) and decoded in run.values
    assert run.screen({"text": f"used {decoded} then"}) == {"text": "used [REDACTED] then"}


def test_plus_signs_outside_a_form_are_not_decoded():
    """A lone ``password=correct+horse`` is redacted as written and learned as it reads (``correct horse``, what a
    later message shows); plus signs under other names are not read as spaces."""
    assert find_in_text("password=base+salt1") == {"base+salt1", "base salt1"}
    assert find_in_text("total=base+salt1&n=2") == set()  # a form, but no secret-looking name in it


def test_a_lone_form_pair_is_learned_as_it_reads():
    """Before: a lone ``password=correct+horse`` was redacted as written but ``correct horse`` was not learned."""
    run = RunSecrets()
    written = run.screen({"note": "password=correct+horse+staple"})["note"]
    assert "correct" not in written and run.screen({"t": "typed correct horse staple"}) == {"t": "typed [REDACTED]"}
    assert find_in_text("total=a+b and c++ code") == set()


@pytest.mark.parametrize(
    ("payload", "secret", "reads"),
    [
        ({"t": "https://bob:p%40ssW0rd9@h.example/"}, "ssW0rd9", "p@ssW0rd9"),  # userinfo percent-encoded
        ({"t": '{\\"authorization\\": \\"Hu8kQz2xAb\\"}'}, "Hu8kQz2xAb", "Hu8kQz2xAb"),  # JSON inside a string
        ({"argv": ["curl", "-u", "bob:Hu8kQz2xAb", "https://h.example"]}, "Hu8kQz2xAb", "Hu8kQz2xAb"),
        ({"t": "ran curl -sS -u bob:Hu8kQz2xAb https://h.example"}, "Hu8kQz2xAb", "Hu8kQz2xAb"),
    ],
)
def test_userinfo_escaped_json_and_curl_credentials_are_found_and_learned_as_they_read(payload, secret, reads):
    """Before: ``p%40ss`` was learned only encoded, ``\\"authorization\\": \\"…\\"`` hid its value, and
    ``curl -u user:secret`` passed the prefilter only when something else in the payload did."""
    blob = orjson.dumps(payload)
    assert might_contain(blob) and payload_might_contain(payload, blob)
    run = RunSecrets()
    assert secret not in orjson.dumps(run.screen(payload)).decode()
    assert run.screen({"t": f"later {reads}"}) == {"t": "later [REDACTED]"}
