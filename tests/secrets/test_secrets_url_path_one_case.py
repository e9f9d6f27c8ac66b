"""A key cut at a URL's ``/`` into pieces, one of them letters of one case (``/d/doaivq/<rest of the key>/rotate``,
``/v1/sk-abc/<rest>``): such a piece was no "key piece" (they mix cases and digits), so it broke the run of pieces read
joined and was shown, with, where the run fell under 20 characters, the rest of the key. A piece of one case joins
the key's other pieces where it reads as no word, and between two of them anyway; a path's words (``rotate``,
``download``, ``README``), dates, UUIDs and file names beside a key, or in a path holding none, stay.

(A piece at the key's either end that reads as a word, ~1 in 9 random runs of 6 small letters, is kept with the
words around the key: no rule tells it from one.)
"""

from __future__ import annotations

import random
import string
from typing import Any

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from noesis_nb.secrets import REDACTED_VALUE, redact
from noesis_nb.secrets.guard import known_everywhere

ALNUM = string.ascii_letters + string.digits
HEADS = ["https://docs.google.com/document/d/", "https://example.com/files/", "http://127.0.0.1:8000/v1/blobs/",
         "see example.org/share/", "https://drive.example.co.uk/a/b/", "https://api.example.com/v1/keys/"]  # fmt: skip
TAILS = ["/rotate", "/edit", "", "/download", "/revoke?force=1", "/"]
CONSONANTS = "bcdfghjklmnpqrstvwxz"


def _mixed(rnd: random.Random, n: int) -> str:
    """A key's piece of ``n`` characters: random, a digit and both cases in it."""
    chars = [rnd.choice(string.ascii_uppercase), rnd.choice(string.ascii_lowercase), rnd.choice(string.digits)]
    chars += [rnd.choice(ALNUM) for _ in range(n - 3)]
    rnd.shuffle(chars)
    return "".join(chars)


def _one_case(rnd: random.Random, n: int, letters: str, upper: bool) -> str:
    piece = "".join(rnd.choice(letters) for _ in range(n))
    return piece.upper() if upper else piece


@st.composite
def cut_keys(draw: Any, where: str) -> list[str]:
    """A key's pieces (36+ characters together), one of them letters of one case: between two others (any letters),
    or at either end (letters no word holds together: no vowel)."""
    rnd = random.Random(draw(st.integers(0, 2**32)))
    sizes = [rnd.randint(6, 14) for _ in range(rnd.randint(2, 3))] + [rnd.randint(14, 24)]
    pieces = [_mixed(rnd, n) for n in sizes]
    upper = draw(st.booleans())
    if where == "inside":
        at = rnd.randint(1, len(pieces) - 2)
        pieces[at] = _one_case(rnd, sizes[at], string.ascii_lowercase, upper)
    else:
        at = 0 if where == "first" else len(pieces) - 1
        pieces[at] = _one_case(rnd, rnd.randint(6, 14), CONSONANTS, upper)
    return pieces


def _check(head: str, pieces: list[str], tail: str) -> None:
    # a key the randomness rule hides standing alone (a long run of one case may make it read as none)
    assume(redact({"text": "".join(pieces)})[0]["text"] == REDACTED_VALUE)
    text = head + "/".join(pieces) + tail
    shown = redact({"text": text})[0]["text"]
    assert not any(p in shown for p in pieces), shown
    assert REDACTED_VALUE in shown and shown.endswith(tail), shown
    assert shown.startswith(head.rsplit("/", 2)[0]), shown


@settings(max_examples=120, deadline=None)
@given(head=st.sampled_from(HEADS), pieces=cut_keys("inside"), tail=st.sampled_from(TAILS))
def test_a_key_with_a_piece_of_one_case_inside_is_hidden_whole(head: str, pieces: list[str], tail: str) -> None:
    _check(head, pieces, tail)


@settings(max_examples=120, deadline=None)
@given(head=st.sampled_from(HEADS), pieces=st.one_of(cut_keys("first"), cut_keys("last")), tail=st.sampled_from(TAILS))
def test_a_key_with_a_piece_of_one_case_at_an_end_is_hidden_whole(head: str, pieces: list[str], tail: str) -> None:
    _check(head, pieces, tail)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32), prefix=st.sampled_from(["sk-", "sk-proj-", "ghp_", "hf_", "xoxb-"]),
       head=st.sampled_from(HEADS), tail=st.sampled_from(TAILS))  # fmt: skip
def test_a_key_cut_just_after_its_prefix_is_hidden_whole(seed: int, prefix: str, head: str, tail: str) -> None:
    rnd = random.Random(seed)
    start = "".join(rnd.choice(string.ascii_lowercase) for _ in range(rnd.randint(1, 4)))
    _check(head, [prefix + start, _mixed(rnd, 36)], tail)


ORDINARY = [
    "https://github.com/encode/httpx/blob/master/httpx/_client.py#L120",
    "https://github.com/htop-dev/htop/blob/e7f447b/netbsd/NetBSDProcessList.c#L162",
    "https://github.com/PyCQA/flake8/tree/6.1.0/src/flake8/plugins",
    "https://github.com/python/cpython/commit/3f2a9c1d8e7b6a5f4c3d2e1f0a9b8c7d6e5f4a3b",
    "https://raw.githubusercontent.com/pandas-dev/pandas/main/README.md",
    "https://docs.python.org/3/library/urllib.parse.html#urllib.parse.urlsplit",
    "https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_RunInstances.html",
    "https://learn.microsoft.com/en-us/azure/storage/blobs/storage-quickstart-blobs-python",
    "https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/Authorization",
    "s3://my-bucket/logs/2024/05/17/part-0001.json.gz",
    "s3://data-lake/raw/events/year=2024/month=05/day=17/hour=09/events-0001.parquet",
    "https://api.example.com/users/3fa85f64-5717-4562-b3fc-2c963f66afa6/orders/9b2c1e7a-1111-4c4c-8d8d-123456789abc",
    "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
    "https://pypi.org/project/detect-secrets/1.5.0/",
    "https://hub.docker.com/r/library/postgres/tags",
    "https://stackoverflow.com/questions/12345678/how-do-i-parse-a-url-in-python",
    "https://en.wikipedia.org/wiki/Shannon_(unit)",
    "http://www.combinatorics.org/Volume_17/PDF/v17i1r66.pdf",
    "https://example.com/files/README/LICENSE/download",
    "https://example.com/api/v2/projects/noesis/runs/latest/events",
]


def test_ordinary_urls_stay() -> None:
    for url in ORDINARY:
        for text in (url, f"see {url} for details"):
            assert redact({"text": text})[0]["text"] == text


_WORD = st.sampled_from(["docs", "latest", "reference", "api", "blob", "main", "src", "releases", "download", "assets",
                         "en-us", "guide", "v2", "static", "images", "raw", "tree", "users", "settings", "README"])  # fmt: skip


@settings(max_examples=100, deadline=None)
@given(
    host=st.sampled_from(["github.com", "docs.example.com", "s3.amazonaws.com", "example.org"]),
    parts=st.lists(
        st.one_of(_WORD, st.from_regex(r"20[0-9]{2}", fullmatch=True), st.from_regex(r"[0-9]{2}", fullmatch=True),
                  st.from_regex(r"[0-9a-f]{7}", fullmatch=True)),
        min_size=2, max_size=7,
    ),
    uuid=st.one_of(st.just(""), st.uuids().map(lambda u: str(u) + "/")),
    file=st.from_regex(r"[a-z]{3,9}(?:[-_][a-z]{3,9})?\.(?:py|md|json|html)", fullmatch=True),
)  # fmt: skip
def test_generated_ordinary_paths_stay(host: str, parts: list[str], uuid: str, file: str) -> None:
    # (a UUID stands last but for a file: the path after one in the middle is judged as one word, kept apart here)
    url = f"https://{host}/" + "/".join(parts) + "/" + uuid + file
    # a value an earlier test's run learned as a secret (a key cut at slashes, drawn from the same strategies) is
    # rightly hidden wherever it appears: such a path is no ordinary one for this process
    assume(not any(value in url for value in known_everywhere()))
    assert redact({"text": url})[0]["text"] == url
