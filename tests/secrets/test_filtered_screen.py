"""The screen with its cheap tests in front of the detectors finds exactly what the whole suite finds.

``plugins.unfiltered()`` runs every detector's pattern over every text, as detect-secrets and the rules of ``text``
are written: the reference. The screen (``find_in_text``, ``redact``) is compared with it on texts made of secrets
of every kind the detectors know, embedded in random noise (base64, hex, letters with punctuation), and of the
pieces the cheap tests look for (keywords in any case, the characters that fold to them, signs, quotes).
"""

from __future__ import annotations

import random
import re
import string

from hypothesis import given, settings
from hypothesis import strategies as st

from noesis_nb.secrets import find_in_text, redact
from noesis_nb.secrets.gates import Gate, unfiltered
from noesis_nb.secrets.linear import KEYWORD_LITERALS, KeywordFirst, keyword_search
from noesis_nb.secrets.plugins import plugins
from noesis_nb.secrets.text import _find_short

# one or more real-looking secrets for each detector (detect-secrets' plugins and the rules of ``text``)
SECRETS = [
    "AKIAIOSFODNN7EXAMPLE",  # AWS
    'aws_secret_access_key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"',
    "AccountKey=" + "lJzRc1YdHaAA2KCNJJ1tkYwF/+mKK6Ygw0NGe170Xu592euJv2wYUtBlV8z+qnlcNQSnIYVTkLWntUO1F8j8rQ==",  # Azure
    'cloudant_password = "' + "a" * 8 + "b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1" + '"',
    "MTk4NjIyNDgzNDcxOTI1MjQ4.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs",  # Discord
    "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5",  # GitHub
    "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRS",
    "glpat-aB3dE5fG7hJ9kL1mN3pQ",  # GitLab
    'ibm_cloud_iam_key = "' + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5bC7dE9f" + '"',
    'ibm_cos_hmac_secret_access_key = "' + "0123456789abcdef" * 3 + '"',
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlX29mX3RoZV90b2tlbg",  # JWT
    "0123456789abcdef0123456789abcdef-us12",  # Mailchimp
    "//registry.npmjs.org/:_authToken=npm_" + "a1B2" * 9,  # npm
    "sk-" + "Ab1" * 7 + "T3BlbkFJ" + "Zy9" * 7,  # OpenAI
    "sk-proj-aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1",
    "sk-ant-api03-aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY",
    "pypi-AgEIcHlwaS5vcmcCJDU3OTM5NWE4LTc0ZjYtNDU2Ni1hNWY2LTc5ZmI1YWJhZjE4ZAACJXsicGVybWlzc2lvbnMiOiAidXNlciJ9",
    "SG.aB3dE5fG7hJ9kL1mN3pQ5r.S7tU9vW1xY3zA5bC7dE9fG1hJ3kL5mN7pQ9rS1tU3vW",  # SendGrid
    "xoxb-123456789012-1234567890123-aB3dE5fG7hJ9kL1mN3pQ5rS7",  # Slack
    "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
    'softlayer_api_key = "' + "0123456789abcdef" * 4 + '"',
    "sq0csp-aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5bC7d",  # Square
    "sk_live_aB3dE5fG7hJ9kL1mN3pQ5rS7",  # Stripe
    "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw",  # Telegram
    "SK0123456789abcdef0123456789abcdef",  # Twilio
    "AIzaSyA1bC2dE3fG4hI5jK6lM7nO8pQ9rS0tU1v",  # Google
    "hf_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z",
    "ya29.aB3dE5fG7hJ9kL1mN3pQ5rS7tU9v",
    "password=hunter2xyz",
    "DB_PASSWORD: 'Xq7&Lm2p9!zz'",
    'api_key = "aB3dE5fG7hJ9kL1mN3pQ"',
    '"secret": "s3cr3t-value-here"',
    "contraseña: s3cr3t0",
    "Authorization: Bearer aB3dE5fG7hJ9kL1mN3pQ5rS7",
    "Authorization: Basic dXNlcjpodW50ZXIyMjI=",
    "postgres://bob:hunter22@db.example.com/app",
    "https://x.blob.core.windows.net/c?sv=2020&sig=aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY%3D",
    "mysql -u root -phunter22 db",
    "curl -u bob:hunter22 https://api.example.com",
    "docker login -u bob -p hunter22 registry.io",
    "--api-key aB3dE5fG7hJ9kL1mN3pQ",
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEAaB3dE5fG7hJ9kL1mN3pQ5rS7tU9v\n-----END RSA PRIVATE KEY-----",
    "xapp-1-aB3dE5fG7hJ9kL1mN3pQ5rS7tU9v",
    "lin_api_" + "aB3dE5fG7h" * 4,
    "kP9xQ2mW7vL4nR8tY3zB6cF1hJ5",  # a random word (the entropy rule)
    "cGFzc3dvcmQ9aHVudGVyMjJ4eXo=",  # base64 of password=hunter22xyz
    "%70assword=hunter2xyz",  # percent-escaped
    "\\u0070assword=hunter2xyz",  # a character escape
    "pass\u200bword=hunter2xyz",  # an invisible character
    "echo hunter22 | docker login --password-stdin",
    "redis-cli -h db -a hunter22 ping",
    "unzip -P hunter22 files.zip",
    "openssl enc -aes256 -k hunter22 -in x",
    "openssl enc -passin pass:hunter22",
    "machine api.example.com login bob password hunter22",
    "npm config set //registry.example.com/:_authToken aB3dE5fG7hJ9kL1m",
    "sshpass -p hunter22 ssh host",
    "aws_key = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'",
    "sk-aB3dE5fG7hJ9kL1mN3pQ5rS7tU9v",
    "https://acct-admin:" + "0123456789abcdef" * 4 + "@acct.cloudant.com",
    "HTTPS://api.softlayer.com/soap/v3.1/" + "0a1b2c3d4e5f6a7b" * 4,
    # ids and digests the randomness rule leaves (each next to a random word)
    "3f2b8c1e-9d4a-4e7b-8c2d-1a2b3c4d5e6f kP9xQ2mW7vL4nR8tY3zB6cF1hJ5",
    "ep_01HZX3Y4Z5A6B7C8D9E0F1G2H3 sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "git checkout 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b",
    "HEAD is now at 9f86d081884c7d65 fix",
    "integrity: sha512-aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5bC7dE9fG1hJ3kL5mN7pQ9rS1tU3vW==",
    "x-api-key: 3f2b8c1e-9d4a-4e7b-8c2d-1a2b3c4d5e6f",
]
# the pieces the cheap tests look for, and the characters that fold to a keyword's letters (``K`` Kelvin, long ``ſ``)
PIECES = [*KEYWORD_LITERALS, "KEY", "Pass", "PwD", "SeCrEt", "Contras", "\u212aey", "\u017fecret", "ıd", "password", "api_key"]
PIECES += [" ", "\n", "=", ":", "==", "'", '"', "`", ";", ",", "`;", "_", "-", "/", "+", "%", "%3D", "@", "://", "\\", "é"]
PIECES += ["sk-", "-us", "ep_", "sha", "SHA", "git ", "unzip ", "zip", "MySQL ", "curl ", "Docker ", "cl_", "sl-", "ibm_", "cos_"]
PIECES += ["aws", "AWS_", "-pass", ":_", "machine ", "default ", "bearer ", "ı", "İ", "[", "]", "HTTP", "123456789", "."]
NOISE = {
    "base64": string.ascii_letters + string.digits + "+/",
    "hex": "0123456789abcdef",
    "mixed": string.ascii_letters + string.digits + string.punctuation + " ",
    "words": "abcdefghij \n",
}


@st.composite
def texts(draw: st.DrawFn) -> str:
    """Noise of one alphabet with secrets and pieces put in at random places."""
    rnd = random.Random(draw(st.integers(0, 2**32)))
    alphabet = NOISE[draw(st.sampled_from(sorted(NOISE)))]
    parts = []
    for _ in range(draw(st.integers(1, 6))):
        parts.append("".join(rnd.choices(alphabet, k=draw(st.integers(0, 300)))))
        parts.append(draw(st.sampled_from(SECRETS + PIECES)))
    return "".join(parts)


def _unfiltered(call, *args):  # type: ignore[no-untyped-def]
    _find_short.cache_clear()  # (a short text's answer is remembered: the reference computes its own)
    with unfiltered():
        try:
            return call(*args)
        finally:
            _find_short.cache_clear()


@settings(max_examples=300, deadline=None, derandomize=True)
@given(texts())
def test_the_screen_finds_what_the_whole_suite_finds(text: str) -> None:
    assert find_in_text(text) == _unfiltered(find_in_text, text)
    assert find_in_text(text, entropy=False) == _unfiltered(lambda t: find_in_text(t, entropy=False), text)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(st.lists(texts(), min_size=1, max_size=3))
def test_redacted_data_is_the_same(items: list[str]) -> None:
    payload = {"text": items[0], "argv": items, "nested": {"output": items[-1]}}
    assert redact(payload) == _unfiltered(redact, payload)


def _keyword_patterns() -> list[KeywordFirst]:
    return [p for mapping in plugins()[2] for p in mapping if isinstance(p, KeywordFirst)]


def _same(found: re.Match[str] | None, want: re.Match[str] | None) -> bool:
    return (found and (found.span(), found.groups())) == (want and (want.span(), want.groups()))


WORDISH = st.lists(st.sampled_from(PIECES + ["ab", "x9", "secret_", "`a ", "db_pass", "\v", "]", "=>"]), max_size=30)


@settings(max_examples=1500, deadline=None, derandomize=True)
@given(WORDISH.map("".join))
def test_a_keyword_pattern_tried_at_keyword_words_finds_its_first_match(text: str) -> None:
    """Tried only at the starts of words holding a keyword literal, each pattern finds its own search's match."""
    patterns = _keyword_patterns()
    assert len(patterns) == 5  # the maps' patterns that open with a keyword (the rest have their own forms)
    for pattern in patterns:
        assert _same(pattern.search(text), pattern.regex.search(text)), (pattern.pattern, text)


def test_a_text_dense_in_keywords_is_left_to_the_pattern_past_the_budget() -> None:
    """Thousands of keyword words that fail, then one that matches: the pattern's own search takes over from where
    the starts tried one by one stopped, and finds the same match."""
    for filler in ("password ", "xkey ", "secret_secret,", "\u212aey "):
        text = filler * 3000 + "password: 'hunter22'" + filler * 10
        for pattern in _keyword_patterns():
            assert _same(keyword_search(pattern.regex, text), pattern.regex.search(text)), (pattern.pattern, filler)


def test_a_long_word_holding_keywords_is_read_from_its_start() -> None:
    """A keyword far inside a long word: the word's start is found however far back it is."""
    for head in ("a" * 10_000, "x_" * 3000, "é" * 500):
        for text in (f"{head}password = 'hunter22'", f"  {head}_secret: hunter22", f"{head}key{head}"):
            for pattern in _keyword_patterns():
                assert _same(pattern.search(text), pattern.regex.search(text)), (pattern.pattern, text[-40:])


def test_the_folding_reads_ascii_letters_as_case_insensitive_patterns_do() -> None:
    """Every character case-insensitive matching takes for an ASCII letter is read as that letter by the folding, and
    no other character is: the literals found in the folded text are where the patterns' letters match."""
    from noesis_nb.secrets.gates import folded

    every = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000)
    for letter in string.ascii_lowercase:
        matching = {m.group() for m in re.finditer(letter, every, re.IGNORECASE)}
        for char in every if letter == "a" else sorted(matching | {letter.upper()}):
            reading = folded(f"\u00e9{char}")  # (a non-ASCII text, as after an escape is decoded)
            if reading is None:  # lowering changes its length: the pattern itself reads such a text
                assert len(f"\u00e9{char}".lower()) != 2
                continue
            assert (reading[1] == letter) == (char in matching), (letter, hex(ord(char)))
    for char in every:  # and no character outside those is read as any ASCII letter
        reading = folded(f"\u00e9{char}")
        if reading is not None and reading[1] in string.ascii_lowercase:
            assert re.fullmatch(reading[1], char, re.IGNORECASE), hex(ord(char))


def _gates() -> list[Gate]:
    from noesis_nb.secrets import randomness, text

    found = [r for plugin in plugins()[0] for r in plugin.denylist if isinstance(r, Gate)]
    found += [g for g in text._GATES.values()] + [g for g in randomness._NOT_RANDOM_GATED if isinstance(g, Gate)]
    return found


GATE_TEXTS = st.lists(st.sampled_from(SECRETS + PIECES + ["0123456789abcdef" * 2, "a1", "  "]), max_size=12).map("".join)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(GATE_TEXTS, st.integers(0, 3))
def test_each_gate_finds_what_its_pattern_finds(text: str, repeat: int) -> None:
    """Every gate of the suite against its own pattern: the same matches (spans and groups), from any start, also in
    texts repeating a piece past the gate's budget of places."""
    gates = _gates()
    assert len(gates) >= 20
    for gate in gates:  # ``findall`` and ``sub`` are read off ``finditer``: compared on the text as drawn
        assert gate.findall(text) == gate.regex.findall(text), (gate.pattern, text[:200])
        assert gate.sub(" ", text) == gate.regex.sub(" ", text), (gate.pattern, text[:200])
    text = text * (1 + repeat * 200) if repeat == 3 else text
    for gate in gates:
        got = [(m.span(), m.groups()) for m in gate.finditer(text)]
        assert got == [(m.span(), m.groups()) for m in gate.regex.finditer(text)], (gate.pattern, text[:200])
        pos = len(text) // 3
        assert [m.span() for m in gate.finditer(text, pos)] == [m.span() for m in gate.regex.finditer(text, pos)]


def test_a_text_dense_in_a_gate_s_literals_is_left_to_its_pattern_past_the_budget() -> None:
    """Literals closer together than a place tried costs (``-us`` every 3 characters, ``key`` every 4): past the budget
    the pattern's own search goes on from the place reached, and the matches are the same."""
    for filler in ("-us", "key ", "a-b-", "sk-", "pw", "zip ", "sha"):
        text = filler * 4000 + "0123456789abcdef0123456789abcdef-us12 softlayer_api_key = '" + "0a" * 32 + "'"
        for gate in _gates():
            assert [m.span() for m in gate.finditer(text)] == [m.span() for m in gate.regex.finditer(text)], (
                gate.pattern,
                filler,
            )


@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.text(alphabet=st.sampled_from(["a", "b", "\u200b", "\ufeff", "\u00ad", "\x00", "\u034f", "é"]), max_size=80))
def test_a_kept_character_is_placed_where_it_stands(text: str) -> None:
    """The places of the characters a text keeps read without its invisible ones, as the list of every kept place
    gives them (what located a secret found in the reading before)."""
    from noesis_nb.secrets.disguise import INVISIBLE_CHARS
    from noesis_nb.secrets.text import kept_places

    kept = [m.start() for m in re.finditer(f"[^{INVISIBLE_CHARS}]", text)]
    place = kept_places(text)
    assert [place(i) for i in range(len(kept))] == kept
