"""A redaction followed by ordinary punctuation at a line's end is no key going on: the line after it (a log line, a
uuid, a hash, an address) is text, and a short word opening the line after a key whose lead was cut is no piece of it.

Before, characters glued to a redaction were read as a key's rest whatever they were: ``Loaded key [REDACTED].\\n`` took
the next log line's date and hour (``[REDACTED][REDACTED]:53:00Z INFO …``, the line break gone), ``.py`` a uuid,
``=`` a sha256, ``/`` an address (by ``redact`` only, so the two disagreed); and after ``s\\nk_live_…`` the next
line's ``it`` was taken as the key's tail where the whole lead ``sk_live_…`` kept it."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from noesis_nb.secrets import redact, shown
from noesis_nb.secrets.guard import RunSecrets
from noesis_nb.secrets.wrapped import wrapped_keys

_LOG = "2026-12-06T11:53:00Z INFO worker-4 started"
_SHA = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
_STRIPE = "sk_live_7b1c90c3dfbc906358c36e9c08c87b9a"
_REVIEWED = [
    f"Loaded key [REDACTED].\n{_LOG}",
    "saved to [REDACTED]/\n0xf79befba91fc is the base address",
    "wrote [REDACTED].py\ndc2574bd-b940-67ed-fe17-5330a11d459a",
    f"token=[REDACTED]=\n{_SHA}  empty.txt",
]


def _outs(text: str) -> list[str]:
    screened = RunSecrets("").screen({"stream": "stdout", "text": text})["text"]
    assert isinstance(screened, str)
    return [shown(text), redact({"t": text})[0]["t"], screened]


@pytest.mark.parametrize("text", _REVIEWED)
def test_a_redaction_glued_to_punctuation_keeps_the_next_line(text: str) -> None:
    for out in _outs(text):
        assert out == text


def test_a_known_secret_ending_a_sentence_keeps_the_next_line(monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "Kx9mQ2vLpWalk77zz"
    monkeypatch.setenv("DB_PASSWORD", secret)
    text = f"password is {secret}.\n{_LOG}"
    assert shown(text) == text.replace(secret, "[REDACTED]")
    for out in _outs(text):
        assert out.endswith(f".\n{_LOG}"), out


def test_a_line_glued_to_more_on_it_is_no_line_of_the_key_a_redaction_ends() -> None:
    """After a key's lead and a part redacted already, a line whose key characters stop at ``:`` is a log line, not a
    folded key's last line (a folded line is key characters up to its break, or up to a space and words)."""
    text = f"token: sk-\n[REDACTED]z1Wc5Yn4Pd6Hs\n{_LOG}"
    assert not any("2026" in key for key in wrapped_keys(text))
    assert wrapped_keys("sk-proj-\n0x7ff3a012d840\n2026-12-05T12:00:01Z ") == set()  # (no redaction: the same rule)
    for out in _outs(text):
        assert out.endswith(f"\n{_LOG}") and "z1Wc5Yn4Pd6Hs" not in out, out


@pytest.mark.parametrize("brk", ["\n", "\r\n"])
def test_a_word_after_a_key_whose_lead_was_cut_stays_as_after_a_whole_lead(brk: str) -> None:
    tail = f"{brk}it is or this"
    for text in (f"an has an (s{brk}{_STRIPE[1:]}{tail}", f"an has an ({_STRIPE}{tail}"):
        for out in _outs(text):
            assert out.startswith("an has an (") and out.endswith(tail), out
            assert "7b1c90c3dfbc9063" not in out


_HEX = st.binary(min_size=6, max_size=32).map(bytes.hex)
_LINES = st.one_of(
    st.builds(
        lambda m, w, sha: f"2026-12-06T11:{m:02d}:00Z INFO worker-{w} done sha={sha}",
        st.integers(10, 59),
        st.integers(1, 9),
        _HEX,
    ),
    st.uuids().map(str),
    _HEX.map(lambda h: f"{h}  empty.txt"),
    _HEX.map(lambda h: f"0x{h[:12]} is the base address"),
    st.sampled_from(["src", "lib", "data", "run-2024_11", "x_train"]).map(lambda d: f"/home/user/{d}/main.py"),
    st.sampled_from(["Done, 3 files changed", "it is or this", "x = np.zeros((3, 4))"]),
)
_GLUE = st.sampled_from([".", "/", "=", ".py", ".json", ",", ":", ")", "'", ".tar.gz", "/."])
_LEAD = st.sampled_from(["Loaded key ", "saved to ", "wrote ", "token=", "password is ", "see ("])


@settings(max_examples=200, deadline=None)
@given(_LEAD, _GLUE, st.sampled_from(["\n", "\r\n"]), st.lists(_LINES, min_size=1, max_size=4))
def test_nothing_after_a_redactions_glued_punctuation_changes(lead: str, glue: str, brk: str, lines: list[str]) -> None:
    head = f"{lead}[REDACTED]{glue}"
    text = head + brk + brk.join(lines)
    for out in _outs(text):
        assert out == text, (text, out)
