"""A digest labelled by its algorithm is public, also in base64 or base64url (a wheel's RECORD, an HTTP ``Digest`` or
``Content-MD5`` header, Google's ``x-goog-hash``) and after a labelled width (PyPI's ``blake2b_256``): before, each was
taken for a random key and redacted. The same random bytes unlabelled, or under a secret's name, stay hidden.

The bytes are drawn from a seeded generator: an unlabelled random key is found by its randomness, which misses about
one random key of 40 characters in 15,000; drawn afresh each run, this test could fail on any run."""

from __future__ import annotations

import base64
import hashlib
import random

import pytest

from noesis_nb.secrets import shown


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


_CONTEXTS = {
    "record": lambda d: f"requests/__init__.py,sha256={_b64url(hashlib.sha256(d).digest())},4924",
    "record_sha512": lambda d: f"pkg/mod.py,sha512={_b64url(hashlib.sha512(d).digest())},120",
    "colon": lambda d: f"sha256:{_b64(hashlib.sha256(d).digest())}",
    "rfc3230": lambda d: f"Digest: SHA-256={_b64(hashlib.sha256(d).digest())}",
    "sha1": lambda d: f"sha1={_b64(hashlib.sha1(d).digest())}",
    "content_md5": lambda d: f"Content-MD5: {_b64(hashlib.md5(d).digest())}",
    "goog": lambda d: f"x-goog-hash: crc32c=n03x6A==,md5={_b64(hashlib.md5(d).digest())}",
    "blake2b_256": lambda d: f"blake2b_256={hashlib.blake2b(d, digest_size=32).hexdigest()}",
    "json": lambda d: f'{{"sha384": "{_b64(hashlib.sha384(d).digest())}"}}',
}


@pytest.mark.parametrize("context", sorted(_CONTEXTS))
def test_a_labelled_digest_is_kept_whole(context: str) -> None:
    draw = random.Random(f"kept {context}")
    for _ in range(20):
        text = _CONTEXTS[context](draw.randbytes(16))
        assert shown(text) == text


@pytest.mark.parametrize(
    ("form", "say"),
    [
        ("bare", lambda k: f"key {k} leaked"),
        ("password", lambda k: f"password={k}"),
        ("json", lambda k: f'{{"api_key": "{k}"}}'),
        ("near a label", lambda k: f"sha256x={k}"),
    ],
)
def test_the_same_random_bytes_unlabelled_or_under_a_secret_name_stay_hidden(form: str, say: object) -> None:
    draw = random.Random(f"hidden {form}")
    for _ in range(20):
        key = _b64url(draw.randbytes(32))
        assert key not in shown(say(key))  # type: ignore[operator]
