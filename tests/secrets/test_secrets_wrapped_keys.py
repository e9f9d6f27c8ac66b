"""Keys a line wrap split (``textwrap.fill``, as CLIs and loggers wrap a message): for every key format the detectors
know by its start (``wrapped.FORMATS``), a random key wrapped in a message, its lines joined by ``\\n`` (indented or
not), ``\\r\\n``, ``\\n`` escaped in JSON text, or a space, leaves no 8 characters of its body in what the event screen
writes, in what ``redact`` returns or in what a view shows; and an agent's wrapped error leaves none in the run's files.
"""

from __future__ import annotations

import json
import random
import re
import string
import textwrap
from pathlib import Path
from typing import Any

import orjson
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import noesis_nb
from noesis_nb.secrets import RunSecrets, find_in_text, shown
from noesis_nb.secrets.wrapped import FORMATS

_PRINTABLE = string.ascii_letters + string.digits + string.punctuation


def _alphabet(chars: str) -> str:
    return "".join(c for c in _PRINTABLE if re.fullmatch(f"[{chars}]", c))


@st.composite
def wrapped_keys(draw: Any) -> tuple[str, str]:
    """(a key of a known format, the message holding it, wrapped and its lines joined one of the ways text is)."""
    start, chars, least, most = draw(st.sampled_from(FORMATS))
    prefix = draw(st.from_regex(re.compile(start), fullmatch=True))
    rnd = random.Random(draw(st.integers(0, 2**32)))  # (a seed: shrinking it still draws a random key)
    alphabet = _alphabet(chars).replace(".", "") if prefix == "SG." else _alphabet(chars)
    length = rnd.randint(least, min(most, least + 80))
    body = "".join(rnd.choice(alphabet) for _ in range(length))
    if prefix == "SG.":  # SendGrid's two parts
        body = body[:22] + "." + body[23:]
    key = prefix + body
    before = draw(st.sampled_from(["request failed, the value", "error:", "HTTP 401 for", "refused"]))
    width = draw(st.integers(32, 100))  # (a line of 20+ key characters: what the screen's prefilter reads as a word)
    indent = draw(st.sampled_from(["", "  ", "\t"]))
    lines = textwrap.wrap(f"{before} {key} was refused by the server", width, subsequent_indent=indent)
    joiner = draw(st.sampled_from(["\n", "\r\n", "json", " "]))
    if joiner == "json":  # the message inside JSON text (a tool's output holding an error document)
        return key, json.dumps({"error": "\n".join(lines)})
    if joiner == " ":  # the lines joined again (as a log line shows a wrapped message): a space inside the key
        joined = " ".join(line.strip() for line in lines)
        # (the screen reads a text's words further when one has 20+ key characters; words split by a space, each
        # shorter, are two words of prose to it: a line break between them is what marks a wrap)
        assume(any(len(word) >= 20 for word in re.findall(r"[A-Za-z0-9+/=_%-]+", joined)))
        assume(prefix in joined)  # (a key's start split by a space is two words: its pieces are judged as words)
        return key, joined
    return key, joiner.join(lines)


def _body(key: str) -> str:
    for start, *_ in FORMATS:
        m = re.match(start, key)
        if m:
            return key[m.end() :]
    raise AssertionError(key)


def _fragments(key: str) -> list[str]:
    body = _body(key)
    return [body[i : i + 8] for i in range(len(body) - 7)]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(wrapped_keys())
def test_no_piece_of_a_wrapped_key_is_written_or_shown(case: tuple[str, str]) -> None:
    key, message = case
    assert any(key in v for v in find_in_text(f"the value {key} was"))  # a format the detectors know, whole
    guard = RunSecrets("run-1")
    written = orjson.dumps(guard.screen({"text": message, "step": 1})).decode()
    returned = guard.redact(message)
    displayed = shown(message)
    for out in (written, returned, displayed):
        held = [f for f in _fragments(key) if f in out]
        assert not held, (message, out, held)


_ANTHROPIC = "sk-ant-api03-" + "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa9876543210abcdEFGH-IJKLMNOPQRSTUVWXyz01234567890ABCDEFG-AA"
_OPENAI = "sk-proj-" + "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa9876543210abcdT3BlbkFJ" + "q7" * 20


def test_an_agents_wrapped_error_leaves_no_piece_of_the_key_in_the_run(tmp_path: Path) -> None:
    for key in (_ANTHROPIC, _OPENAI):
        message = textwrap.fill(f"request failed, the key {key} was refused by the server", 40)
        assert "\n" in message and key not in message  # the key stands split over lines

        def agent(task: str, ctx: Any, message: str = message) -> None:
            ctx.emit("note", {"text": message})
            raise RuntimeError(message)

        episode = noesis_nb.solve("t", using=agent, runs_dir=tmp_path)
        files = [p for p in (tmp_path / episode).rglob("*") if p.is_file()]
        assert any(p.name == "events.jsonl" for p in files) and any(p.name == "state.json" for p in files)
        for path in files:
            data = path.read_text("utf-8", "replace")
            readings = (data, data.replace("\\n", ""))
            held = [f for f in _fragments(key) for r in readings if f in r]
            assert not held, (path.name, held)


def test_prose_around_a_key_start_is_kept() -> None:
    text = "we use sk-v2 models, they are 10 times faster\nthan task-abcdef and sk-test and more words here"
    assert shown(text) == text
