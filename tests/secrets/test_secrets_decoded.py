"""Base64 read as what it encodes (``noesis_nb.secrets.decoded``): a secret inside is found and learned as it
reads; base64 of ordinary text, labelled digests, UUIDs and ULIDs are kept."""

from __future__ import annotations

import base64
import hashlib
import secrets as stdlib_secrets
import uuid

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ulid import ULID

from noesis_nb.secrets import find_in_text
from noesis_nb.secrets.guard import RunSecrets


def _b64(text: str, urlsafe: bool = False) -> str:
    raw = text.encode()
    return (base64.urlsafe_b64encode(raw).decode().rstrip("=")) if urlsafe else base64.b64encode(raw).decode()


def _screened(payload: dict, later: str) -> tuple[str, str, RunSecrets]:
    """The payload as written and a later text as written, by one run's guard."""
    run = RunSecrets()
    return orjson.dumps(run.screen(payload)).decode(), run.screen({"t": later})["t"], run


@pytest.mark.parametrize(
    "carrier",
    [
        "https://app.example.com/cb?state={b64}&code=1",
        "https://app.example.com/cb?state={urlsafe}",
        "cookie value {b64} set",
        "{b64}",
    ],
)
@pytest.mark.parametrize("inner", ["password={pw}", "user=bob&api_key={pw}", '{{"token": "{pw}"}}'])
def test_a_secret_inside_base64_is_redacted_as_written_and_learned_as_it_reads(carrier, inner):
    pw = "Hu" + stdlib_secrets.token_hex(4) + "2!"
    encoded = inner.format(pw=pw)
    text = carrier.format(b64=_b64(encoded), urlsafe=_b64(encoded, urlsafe=True))
    written, later, run = _screened({"note": text}, f"then {pw} again")
    assert _b64(encoded) not in written and _b64(encoded, urlsafe=True) not in written and "[REDACTED]" in written
    assert later == "then [REDACTED] again" and pw in run.values


def test_basic_credentials_are_learned_decoded():
    pw = "Hu" + stdlib_secrets.token_hex(4)
    for payload in (
        {"text": "Authorization: Basic " + _b64(f"bob:{pw}")},
        {"headers": {"AUTHORIZATION": "basic " + _b64(f"bob:{pw}")}},
        {"headers": [["authorization", "Basic " + _b64(f"bob:{pw}")]]},
    ):
        written, later, _ = _screened(payload, f"the password is {pw}")
        assert _b64(f"bob:{pw}") not in written and later == "the password is [REDACTED]", payload


@pytest.mark.parametrize(
    "text",
    [
        "The password policy requires a token rotation every 90 days; see the key points.",
        '{"user": "bob", "page": 2, "query": "api keys and tokens"}',
        "hello world, this is ordinary text about secrets",
    ],
)
def test_base64_of_ordinary_text_is_kept(text):
    """Before: any base64 word of 20+ characters was taken for a random secret and redacted."""
    for word in (_b64(text), _b64(text, urlsafe=True)):
        assert find_in_text(f"payload {word} end") == set(), word
        assert RunSecrets().screen({"note": f"?state={word}"}) == {"note": f"?state={word}"}


@settings(max_examples=150, deadline=None)
@given(
    words=st.lists(st.sampled_from("the a of run tool model event token count page user note".split()), min_size=4, max_size=20)
)
def test_base64_of_prose_is_never_redacted(words):
    word = _b64(" ".join(words))
    assert find_in_text(f"data {word}") == set()


def test_ids_and_labelled_digests_are_kept():
    digest = hashlib.sha256(b"release").hexdigest()
    kept = [
        f"sha256={digest}",
        f'"sha256": "{digest}"',
        f"SHA256 (dist/app.whl) = {digest}",
        f"{digest}  dist/app.whl",
        f"commit {digest[:40]}",
        str(uuid.uuid4()),
        str(ULID()),
    ]
    for text in kept:
        assert find_in_text(text) == set(), text
        assert RunSecrets().screen({"note": text}) == {"note": text}
