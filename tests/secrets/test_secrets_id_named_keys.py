"""A key's id words are words of it, and an id key keeps only id-shaped strings from the randomness rule.

A random credential under ``shared_key`` was written in clear: ``sha`` inside ``shared`` made the key a digest's,
whose strings were not judged for randomness; so was one under ``session_id``, ``csrf_id`` or ``api_key_id`` (an id
word beside the secret's name) and prose holding one under ``status`` (``"leaked token <key>"``). The same value
under ``note`` was redacted. A key naming a secret wins over an id word in it; under an id key, prose is screened as
prose; a one-word id there (a digest, a ULID, a random id) is still shown.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from noesis_nb.secrets import REDACTED_VALUE, redact

from .keygen import keys

SECRET_NAMED = [
    "shared_key", "sharedKey", "shared-key", "hash_key", "sha_key", "hashKey", "session_id", "sessionId", "SESSION_ID",
    "csrf_id", "csrfId", "xsrf_id", "api_key_id", "apiKeyId", "webhook_id", "webhookId",
]  # fmt: skip
# keys whose one-word strings are ids and digests, kept
ID_NAMED = ["id", "run_id", "requestId", "content_hash", "sha256", "etag", "base_commit", "fingerprint"]
PROSE_KEYS = ["status", "kind", "reason_code", *ID_NAMED]
WORDS = ["leaked", "token", "found", "error:", "the", "value", "was", "rotated", "see"]


def _shown(key: str, value: str) -> str:
    out, _ = redact({"event": {key: value}})
    return str(out["event"][key])


@settings(max_examples=60, deadline=None)
@given(key=st.sampled_from(SECRET_NAMED), secret=keys([""]))
def test_random_credential_under_a_secret_naming_key_is_redacted(key: str, secret: str) -> None:
    shown = _shown(key, secret)
    assert secret not in shown and REDACTED_VALUE in shown, (key, shown)
    # as the same value under a plain key is
    assert secret not in _shown("note", secret)


@settings(max_examples=60, deadline=None)
@given(
    key=st.sampled_from(PROSE_KEYS),
    secret=keys([""]),
    before=st.lists(st.sampled_from(WORDS), min_size=1, max_size=4),
    after=st.lists(st.sampled_from(WORDS), max_size=3),
)
def test_prose_under_an_id_key_is_screened_as_prose(key: str, secret: str, before: list[str], after: list[str]) -> None:
    text = " ".join([*before, secret, *after])
    shown = _shown(key, text)
    assert secret not in shown, (key, shown)
    assert shown.startswith(" ".join(before)), shown  # the words around it stay


@settings(max_examples=40, deadline=None)
@given(key=st.sampled_from(ID_NAMED), word=keys([""]))
def test_one_word_id_under_an_id_key_is_kept(key: str, word: str) -> None:
    assert _shown(key, word) == word


def test_id_words_are_words_not_pieces() -> None:
    digest = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
    for key in ("sha", "file_sha", "shaDigest", "checksum", "commit_hash", "parent_rev"):
        assert _shown(key, digest) == digest, key
    # ``sha`` and ``hash`` inside a word are no id words
    secret = "DNxril3RavGD5MfvJ7NScUykT8C8UBkkpdhiG37L"
    for key in ("shared", "shadow_value", "hashtag_note", "sharpness"):
        assert secret not in _shown(key, secret), key
