"""A command whose word reads as prose or a message as often as a password (``echo X | sudo -S``, ``net user NAME X``)
hides its word only when shaped as a password: ``echo hello | sudo -S apt-get update``
was shown ``echo [REDACTED] | …``. And a line of ODBC braced starts (``PWD={PWD={…``) is read once: each ``{`` was read
to 1,024 characters on, five times the cost of ordinary text of its size."""

from __future__ import annotations

import string
import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from noesis_nb.secrets import redact, shown

_WORDS = st.sampled_from(
    ["hello", "done", "yes", "ok", "y", "true", "Yes", "DONE", "reboot", "updating", "$PASSWORD", "${PW}"]
) | st.text(string.ascii_lowercase, min_size=1, max_size=12).map(lambda w: w.capitalize())
_COMMANDS = [
    "echo {w} | sudo -S apt-get update",
    "echo '{w}' | sudo -S reboot",
    "the net user {w} grows",
    "net user admin {w}",
]
# a flag that gives nothing but a password: any word there is one, shaped or not (``test_secrets_command_flag_values``)
_FLAGS = ["ldapsearch -x -D cn=admin -w {w} -b dc=ex", "7z a -p{w} backup.7z data/"]
_SYMBOLS = "!@#%^*+=_-"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(word=_WORDS, form=st.sampled_from(_COMMANDS))
def test_an_ordinary_word_given_to_such_a_command_is_kept(word: str, form: str) -> None:
    text = form.format(w=word)
    assert shown(text) == text


_PASSWORDS = st.builds(
    lambda head, digit, symbol, tail: head + digit + symbol + tail,
    st.text(string.ascii_letters, min_size=4, max_size=10),
    st.text(string.digits, min_size=1, max_size=3),
    st.sampled_from(_SYMBOLS),
    st.text(string.ascii_letters + string.digits, min_size=1, max_size=6),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pw=_PASSWORDS, form=st.sampled_from([f for f in _COMMANDS + _FLAGS if not f.startswith("the ")]))
def test_a_password_shaped_word_given_to_such_a_command_is_hidden(pw: str, form: str) -> None:
    text = form.format(w=pw)
    out, _ = redact({"cmd": text})
    assert pw not in shown(text) and pw not in out["cmd"]


def test_braced_starts_cost_as_ordinary_text_of_their_size() -> None:
    shown("PWD={warm}")
    braced, plain = "PWD={" * 20_000, "PWD {" * 20_000

    def cpu(text: str) -> float:
        started = time.process_time()
        shown(text)
        return time.process_time() - started

    # each text new (a text read before is remembered), the least of two readings of each
    cost = min(cpu(f"{i} {braced}") for i in range(2)) / min(cpu(f"{i} {plain}") for i in range(2))
    assert cost < 3, f"braced starts cost {cost:.1f}x ordinary text of their size"


def test_a_braced_password_is_still_hidden() -> None:
    pw = "k3Y{q=7zP!x"
    text = f"Driver={{ODBC Driver 18}};Server=db;PWD={{{pw}}};"
    assert "k3Y{q=7" not in shown(text)
