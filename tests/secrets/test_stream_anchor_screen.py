"""A quiet stream's keyword test is cleared by the keyword anchors first (issue 16: it runs on every event holding a
chunk text key, ``{"text": …}`` as most notes are).

The screen keeps a stream whose pieces can join into no secret without reading them joined; a piece is read joined
when the stream's end and the piece hold a keyword (``streamed.KEYWORD``). That search tried a branch at most places of
prose; every keyword holds one of the anchors (``text._KEYWORD_ANCHORS``, each at a rarer letter), so a text holding
no anchor is now cleared by their search, and only a text holding one is searched for a keyword. What the screen
writes, and what it keeps of each stream, is what the keyword search alone made it write and keep."""

from __future__ import annotations

import re
from unittest import mock

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

import noesis_nb
from noesis_nb.secrets import guard
from noesis_nb.secrets.guard import RunSecrets
from noesis_nb.secrets.streamed import KEYWORD
from tests.callcount import calls_per_event
from tests.secrets.test_secrets_detection import texts

#: every keyword whole, cut and spelled otherwise (the letters a lowering makes of other characters: ``K`` the Kelvin
#: sign, ``İ``), the URL forms, and the anchors' own pieces
_KEYWORD_PIECES = [
    "pass", "pwd", "podman", "secret", "sshpass", "token", "key", "auth", "cookie", "cred", "contras", "curl", "bearer",
    "eyj", "xox", "hooks.slack", "mysql", "mariadb", "docker", "nerdctl", "redis-cli", "zip", "openssl", "%3a%2f%2f",
    "%3A%2F%2F", "://", "://u:p@h", "://x?token=", "https://bob:hunter2@db", "://h/?api_key=", "@", ":", "/", "?",
    "p", "a", "s", "k", "e", "y", "c", "u", "r", "l", "t", "o", "n", "x", "j", "q", "b", "z", "i", "-", "%", "3a", "2f",
    "\u212a", "\u212aey", "\u0130", "PASS", "Token", "KEY", "AUTH", "Bearer", "EyJ", "ſ", "ﬀ", "\u200b", " ", "\n",
]  # fmt: skip
_pieces = st.sampled_from(_KEYWORD_PIECES) | st.text(max_size=6) | texts
_joined = st.lists(_pieces, max_size=10).map("".join)


@settings(max_examples=3000, deadline=None)
@given(text=_joined)
def test_every_text_holding_a_keyword_holds_an_anchor(text):
    lowered = text.lower()  # (as the screen reads a stream's end and its new piece)
    if KEYWORD.search(lowered) is not None:
        assert guard._STREAM_ANCHOR.search(lowered) is not None, text


# a stream's pieces: prose, the pieces of a secret cut anywhere (a key, a password after its name, a URL's), and the
# generated texts of the detectors' tests (their secret forms among them)
_SECRETS = [
    "the password is Hx7-corral-Vb2q9 ok",
    "sk-proj-Zq7Rt2Wv9Xy4Ab6Cd8Ef0Gh3Jk5Lm1Np",
    "postgres://app:Wq8-Tz3v-Lp0x@db.internal:5432/app",
    "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl",
    "export GITHUB_TOKEN=ghp_Zq7Rt2Wv9Xy4Ab6Cd8Ef0Gh3Jk5Lm1NpQr",
    "thought number 5 about benchmark",
    "the user said so, shipping the design today",
]


@st.composite
def _streams(draw):
    text = draw(st.sampled_from(_SECRETS) | _joined)
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=5)))
    pieces = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)])]
    return [p for p in pieces if p] + draw(st.lists(st.sampled_from(_SECRETS) | texts, max_size=2))


def _screened(pieces: list[str], key: str) -> tuple[list[str], dict, dict, list]:
    secrets = RunSecrets()
    written = [orjson.dumps(secrets.screen({key: p}, event_id=f"e{i}", phase="note")).decode() for i, p in enumerate(pieces)]
    streams = secrets._streams
    noted = {k: (v[0], v[2]) for k, v in streams.noted.items()}
    return written, noted, dict(streams.quiet), sorted(streams.joined)


@settings(max_examples=500, deadline=None)
@given(pieces=_streams(), key=st.sampled_from(["text", "delta", "content"]))
def test_a_stream_is_screened_and_kept_as_the_keyword_search_alone_screens_and_keeps_it(pieces, key):
    fast = _screened(pieces, key)
    with mock.patch.object(guard, "_STREAM_ANCHOR", re.compile("")):  # an anchor everywhere: the keyword search decides
        full = _screened(pieces, key)
    assert fast == full


def test_a_key_streamed_across_ordinary_text_is_still_read_joined():
    secrets = RunSecrets()
    pieces = ["thought number 5 about ", "the to", "ken sk-proj-Zq7Rt2Wv9", "Xy4Ab6Cd8Ef0Gh3Jk5Lm1Np and on"]
    written = [secrets.screen({"text": p}, event_id=f"e{i}", phase="note")["text"] for i, p in enumerate(pieces)]
    assert "Xy4Ab6Cd8Ef0Gh3Jk5Lm1Np" not in written[-1], written
    assert secrets._streams.joined, "the stream holding a keyword is read joined"


def test_an_ordinary_event_makes_no_keyword_search_of_its_stream(runs_dir):
    """The stream test of an ordinary event's ``text`` is the anchor search alone (the keyword search tried a branch
    at about every place of prose: ~0.8 µs of an event's ~6 µs screen)."""
    guard.for_run(runs_dir / "ep_x").learn(["Zq9vT3kLmN8pR2sW7xY4bH6d"])  # as in CI: a process that learned secrets
    keyword_searches: list[int] = []

    def agent(task, ctx):
        keyword_searches.extend(
            calls_per_event(ctx, task, lambda event, arg: event == "c_call" and getattr(arg, "__self__", None) is KEYWORD)
        )
        ctx.emit("reason", {"text": "the to"})  # a keyword across two pieces still has the stream read joined
        ctx.emit("reason", {"text": "ken sk-proj-Zq7Rt2Wv9Xy4Ab6Cd8Ef0Gh3Jk5Lm1Np"})
        return "ok"

    episode = noesis_nb.solve("benchmark", using=agent, runs_dir=runs_dir)
    assert keyword_searches == [0] * 20, keyword_searches
    lines = (runs_dir / episode / "events.jsonl").read_bytes()
    assert b"Zq7Rt2Wv9Xy4Ab6Cd8Ef0Gh3Jk5Lm1Np" not in lines
    assert b"thought number 19 about benchmark" in lines
