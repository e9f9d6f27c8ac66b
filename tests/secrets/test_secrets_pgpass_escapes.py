"""A ``.pgpass`` line's fields are read as libpq reads them: a backslash escapes the character after it (``\\:`` is a
colon of the value, ``\\\\`` a backslash). A password starting with ``\\:``, ``\\\\`` or a quote, or a field holding an
escape, failed the line's hint and was written in clear."""

from __future__ import annotations

import json
import random
import re
import string
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import noesis_nb
from noesis_nb.secrets import REDACTED_VALUE, redact

HOSTS = ["db.example.com", "localhost", "*", "10.0.0.5", "pg-primary.internal", "db\\:primary"]
PORTS = ["5432", "*", "6543"]
CHARS = string.ascii_letters + string.digits + "!@#%^&*+=?"


def _read(written: str) -> str:
    return re.sub(r"\\(.)", r"\1", written)


@st.composite
def escaped_passwords(draw: Any) -> str:
    """A password as a ``.pgpass`` line writes it: opening with ``\\:``, ``\\\\`` or ``"``, or holding them."""
    rnd = random.Random(draw(st.integers(0, 2**32)))
    body = "".join(rnd.choice(CHARS) for _ in range(rnd.randint(8, 20)))
    opening = draw(st.sampled_from(["\\:", "\\\\", '"', "", "\\:\\:"]))
    inside = draw(st.sampled_from(["", "\\:", "\\\\", '"']))
    cut = rnd.randint(1, len(body) - 1)
    return opening + body[:cut] + inside + body[cut:]


@st.composite
def fields(draw: Any) -> str:
    word = draw(st.from_regex(r"[a-z][a-z0-9_]{1,10}", fullmatch=True))
    return draw(st.sampled_from([word, word + "\\:x", "*", "a\\\\b" + word]))


@settings(max_examples=150, deadline=None)
@given(host=st.sampled_from(HOSTS), port=st.sampled_from(PORTS), db=fields(), user=fields(), pw=escaped_passwords(),
       lead=st.sampled_from(["", "# ~/.pgpass\n", "cat ~/.pgpass\n"]), end=st.sampled_from(["", "\n", "\r\n"]))  # fmt: skip
def test_an_escaped_pgpass_password_is_hidden(host: str, port: str, db: str, user: str, pw: str, lead: str, end: str) -> None:
    line = f"{host}:{port}:{db}:{user}:{pw}"
    for shown in (redact(lead + line + end)[0], redact({"text": lead + line + end})[0]["text"]):
        assert REDACTED_VALUE in shown, shown
        core = pw.lstrip('"\\:')  # (a quote or escape it opens with may stay beside the marker)
        assert core[:8] not in shown and _read(pw).strip('"') not in shown, (line, shown)


KEPT = [
    "started 07:00:30, done 07:01:02",
    "2001:0:85a3:8a2e:370:7334",
    "00:11:22:33:44:55",
    "C:\\Users\\bob:1:a:b:\\n is not a line",
    "time 12:30:45:\\\\server\\share",
    "ratio 16:9:4:3",
    'log: "at 10:00:00:00:00"',
]


def test_lines_with_colons_and_backslashes_that_are_no_pgpass_line_stay() -> None:
    for text in KEPT:
        assert redact({"text": text})[0]["text"] == text


def test_a_live_run_writes_them_redacted(tmp_path: Path) -> None:
    passwords = ["\\:s3cretX9q", '"quoted9Xq', "\\\\back9Xq", "mid\\:dle9X\\\\q"]

    def agent(task: str, ctx: Any) -> str:
        for pw in passwords:
            ctx.emit("note", {"output": f"db.example.com:5432:app:bob:{pw}\n"})
        return "done"

    ep = noesis_nb.solve("t", using=agent, runs_dir=tmp_path)
    written = (tmp_path / ep / "events.jsonl").read_text()
    for pw in passwords:
        assert json.dumps(pw)[1:-1] not in written and _read(pw).strip('"') not in written, pw
    assert written.count("db.example.com:5432:app:bob:") == len(passwords)
