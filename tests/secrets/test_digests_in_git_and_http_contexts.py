"""Digests and git commits where HTTP, git and pip name them are public: an ``ETag`` as HTTP quotes it, ``md5`` /
``content_md5`` / ``Content-MD5`` keys (hex or base64), git's ``tree`` and ``parent`` fields, ``Reverts <sha>.``,
``merge <sha> into main``, ``cherry-picked from <sha>``, ``pip install git+https://…@<sha>``. Each was hidden, and
then hunted through the rest of the run. A key in a key's shape under those names, and a digest under a
``password`` / ``token`` / ``secret`` key, stay hidden."""

from __future__ import annotations

import base64
import hashlib
import random
import string

from hypothesis import given, settings
from hypothesis import strategies as st

from noesis_nb.secrets import REDACTED_VALUE, for_run, redact, shown

_HASHES = {32: hashlib.md5, 40: hashlib.sha1, 64: hashlib.sha256, 128: hashlib.sha512}
_HEX_KEYS = ("md5", "content_md5", "contentMd5", "Content-MD5", "sha1", "sha256", "checksum", "digest")
_B64_KEYS = ("md5", "content_md5", "Content-MD5", "sha256", "checksum", "digest")
_GIT_KEYS = ("tree", "parent")
_SECRET_KEYS = ("password", "token", "secret", "api_token", "md5_token", "client_secret")
_BASE62 = string.ascii_letters + string.digits

data = st.binary(min_size=1, max_size=64)
hex_digests = st.builds(lambda d, n: _HASHES[n](d).hexdigest(), data, st.sampled_from(sorted(_HASHES)))
b64_digests = st.builds(lambda d, h: base64.b64encode(h(d).digest()).decode(), data, st.sampled_from(list(_HASHES.values())))
commits = st.builds(lambda d: hashlib.sha1(d).hexdigest(), data)
abbreviated = st.builds(lambda c, n: c[:n], commits, st.integers(7, 40))


def _random_word(seed: int, alphabet: str, n: int) -> str:
    rng = random.Random(seed)
    return "".join(rng.choice(alphabet) for _ in range(n))


def _mixed_base62(seed: int) -> str:
    """A random key of letters and digits in both cases, holding a letter no hex digit is."""
    word = _random_word(seed, _BASE62, 32)
    return word[:-3] + "qZ7"


seeds = st.integers(0, 2**32)
prefixed = st.one_of(
    st.builds(lambda s: "sk-" + _random_word(s, _BASE62, 48), seeds),
    st.builds(lambda s: "ghp_" + _random_word(s, _BASE62, 36), seeds),
    st.builds(lambda s: "AKIA" + _random_word(s, string.ascii_uppercase + "234567", 16), seeds),
)


@settings(max_examples=60, deadline=None)
@given(key=st.sampled_from(_HEX_KEYS + _GIT_KEYS), digest=hex_digests)
def test_a_hex_digest_under_a_key_naming_it_is_kept(key: str, digest: str) -> None:
    if key in _GIT_KEYS:
        digest = digest[:40]
    assert redact({key: digest})[0] == {key: digest}


@settings(max_examples=40, deadline=None)
@given(key=st.sampled_from(_B64_KEYS), digest=b64_digests)
def test_a_base64_digest_under_a_key_naming_it_is_kept(key: str, digest: str) -> None:
    assert redact({key: digest})[0] == {key: digest}


@settings(max_examples=40, deadline=None)
@given(md5=st.builds(lambda d: hashlib.md5(d).hexdigest(), data), weak=st.booleans())
def test_an_etag_as_http_writes_it_is_kept(md5: str, weak: bool) -> None:
    etag = ("W/" if weak else "") + f'"{md5}"'
    assert redact({"ETag": etag})[0] == {"ETag": etag}
    assert redact({"headers": {"etag": etag, "Content-Type": "text/plain"}})[0]["headers"]["etag"] == etag


@settings(max_examples=60, deadline=None)
@given(
    commit=abbreviated,
    form=st.sampled_from(
        (
            "Reverts {}.",
            "This reverts commit {}.",
            "merge {} into main",
            "Merged {} into release",
            "cherry-picked from {}",
            "(cherry picked from commit {})",
            "cherry-pick {} onto main",
            "pip install git+https://github.com/org/repo@{}",
            "pip install 'pkg @ git+ssh://git@github.com/org/repo.git@{}'",
        )
    ),
)
def test_a_commit_in_git_and_pip_forms_is_kept(commit: str, form: str) -> None:
    text = form.format(commit)
    assert shown(text) == text


@settings(max_examples=40, deadline=None)
@given(commit=commits, field=st.sampled_from(("tree", "parent")))
def test_git_object_headers_are_kept(commit: str, field: str) -> None:
    text = f"{field} {commit}\nauthor A U Thor <a@example.com> 1700000000 +0000"
    assert shown(text) == text


@settings(max_examples=60, deadline=None)
@given(key=st.sampled_from(_HEX_KEYS + _B64_KEYS + _GIT_KEYS + ("ETag",)), secret=prefixed)
def test_a_key_in_a_key_shape_under_a_digest_name_is_still_hidden(key: str, secret: str) -> None:
    out = redact({key: secret})[0][key]
    assert secret not in out and REDACTED_VALUE in out


@settings(max_examples=60, deadline=None)
@given(key=st.sampled_from(("md5", "content_md5", "Content-MD5", "ETag") + _GIT_KEYS), secret=st.builds(_mixed_base62, seeds))
def test_a_random_key_under_a_name_kept_for_digests_alone_is_still_hidden(key: str, secret: str) -> None:
    """These names keep a digest only (``sha256``, ``checksum``, ``content_hash`` keep any one word: an id's name)."""
    out = redact({key: secret})[0][key]
    assert secret not in out and REDACTED_VALUE in out


@settings(max_examples=40, deadline=None)
@given(key=st.sampled_from(_SECRET_KEYS), digest=st.one_of(hex_digests, b64_digests, abbreviated))
def test_a_digest_under_a_secret_name_is_still_hidden(key: str, digest: str) -> None:
    assert redact({key: digest})[0][key] == REDACTED_VALUE


@settings(max_examples=30, deadline=None)
@given(secret=st.builds(lambda s: _random_word(s, "0123456789abcdef", 64), seeds))
def test_a_64_digit_hex_key_after_merge_is_no_commit(secret: str) -> None:
    assert secret not in shown(f"merge {secret} into main")


def test_a_digest_kept_is_not_hunted_through_the_run(tmp_path) -> None:
    md5, sha = hashlib.md5(b"body").hexdigest(), hashlib.sha1(b"commit").hexdigest()
    guard = for_run(tmp_path)
    first = {"ETag": f'"{md5}"', "md5": md5, "tree": sha, "note": f"merge {sha[:12]} into main"}
    assert guard.screen(first) == first
    later = {"text": f"etag {md5} unchanged; HEAD is now at {sha[:12]}; commit {sha}"}
    assert guard.screen(later) == later
