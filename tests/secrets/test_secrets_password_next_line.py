"""A password said on the line after its saying (``my db password is:`` then ``hunter2Zq!`` alone on the next line)
is hidden: the saying was read only with its word on the same line, and the password was written in clear.

Across events it is not read: a run's events interleave (a model's usage, a tool's output, a streamed piece between
the user's two messages), and a lone word in the next event would be taken for a password and hunted in every text.
"""

from __future__ import annotations

import random
import string
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import noesis_nb
from noesis_nb.secrets import REDACTED_VALUE, redact

CUES = ["my db password is:", "the password is", "Password was now:", "The wifi passphrase is", "your passcode is :",
        "ok, the admin password is:"]  # fmt: skip
BREAKS = ["\n", "\r\n", "\n\n", "\n  ", " \n", " \n\n   "]
WRAPS = [("", ""), ("`", "`"), ('"', '"'), ("'", "'")]
AFTER = ["", "\n", "\nthanks", "\r\nlet me know if it fails"]


@st.composite
def passwords(draw: Any) -> str:
    """A password as people pick them: letters with a digit, maybe a symbol at its end (``hunter2Zq!``)."""
    rnd = random.Random(draw(st.integers(0, 2**32)))
    body = "".join(rnd.choice(string.ascii_letters) for _ in range(rnd.randint(5, 14)))
    cut = rnd.randint(1, len(body))
    return body[:cut] + rnd.choice(string.digits) + body[cut:] + draw(st.sampled_from(["", "!", "?", "#", "!!", "$"]))


@settings(max_examples=150, deadline=None)
@given(cue=st.sampled_from(CUES), brk=st.sampled_from(BREAKS), wrap=st.sampled_from(WRAPS), pw=passwords(),
       after=st.sampled_from(AFTER))  # fmt: skip
def test_a_password_alone_on_the_next_line_is_hidden(cue: str, brk: str, wrap: tuple[str, str], pw: str, after: str) -> None:
    text = cue + brk + wrap[0] + pw + wrap[1] + after
    shown, _ = redact({"text": text})
    assert pw not in shown["text"] and pw.rstrip("!?#$") not in shown["text"], (text, shown)
    assert shown["text"].startswith(cue) and REDACTED_VALUE in shown["text"]


ORDINARY_NEXT = ["required", "Required.", "incorrect", "too short", "required for login", "set", "changed", "expired!",
                 "hunter2Zq! is not it", "${DB_PASSWORD}", "$DB_PASSWORD", "<your password>", "********",
                 "https://example.com/reset", "stored in the vault", "- at least 12 characters"]  # fmt: skip


@settings(max_examples=80, deadline=None)
@given(cue=st.sampled_from(CUES), brk=st.sampled_from(BREAKS), nxt=st.sampled_from(ORDINARY_NEXT))
def test_an_ordinary_next_line_stays(cue: str, brk: str, nxt: str) -> None:
    text = cue + brk + nxt
    assert redact({"text": text})[0]["text"] == text


def test_a_live_run_writes_it_redacted(tmp_path: Path) -> None:
    pw = "hunter2Zq!" + random.choice(string.ascii_letters)

    def agent(task: str, ctx: Any) -> str:
        ctx.emit("model", {"text": f"Sure. My db password is:\n{pw}\n"})
        ctx.emit("model", {"text": f"the password is\r\n\r\n`{pw}`"})
        return "done"

    ep = noesis_nb.solve("t", using=agent, runs_dir=tmp_path)
    written = (tmp_path / ep / "events.jsonl").read_text()
    assert pw not in written and pw[:-1] not in written
    assert written.count("My db password is:") == 1
