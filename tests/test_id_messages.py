"""An id refused as path-like says what in it reads as a path, whatever the id is for."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import noesis_nb as nb
from noesis_nb.errors import InvalidIdError
from noesis_nb.ids import validate_id


@pytest.mark.parametrize(
    ("value", "told"),
    [
        ("a/b", "path separator"),
        ("a\\b", "path separator"),
        ("ep_x\x00y", "NUL character"),
        ("ep..x", "'..'"),
        (".", "current folder"),
        ("~", "home folder"),
    ],
)
def test_the_message_names_what_reads_as_a_path(value, told):
    with pytest.raises(InvalidIdError) as caught:
        validate_id(value)
    text = str(caught.value)
    assert told in text
    if told not in {"path separator"}:  # '.', '~', NUL and '..' hold no separator: the message must not say so
        assert "separator" not in text
    assert "pass the bare id" in text


def test_a_public_call_gives_the_same_message(tmp_path):
    with pytest.raises(InvalidIdError, match="home folder") as caught:
        nb.resume_run("~", runs_dir=tmp_path)
    assert "separator" not in str(caught.value)


@pytest.mark.parametrize(
    ("typed", "code", "at"),
    [
        ("ep_\u041e1M946MRYXQD5534MGYR14PF4N", "U+041E", 3),  # a Cyrillic capital O pasted for the zero
        ("ep_01m946mryxqd5534mgyr14pf4\u043e", "U+043E", 28),  # a Cyrillic small o, the id in small letters
        ("\u0435p_01M946MRYXQD5534MGYR14PF4N", "U+0435", 0),  # a Cyrillic e in the prefix
    ],
)
def test_an_id_typed_with_a_look_alike_letter_is_shown_with_the_letter_named_and_placed(tmp_path, typed, code, at):
    with pytest.raises(InvalidIdError) as caught:
        nb.resume_run(typed, runs_dir=tmp_path)
    text = str(caught.value)
    # before: "episode id <a 29-character value that looks like a key, not shown> has characters outside …"
    assert ascii(typed) in text and "not shown" not in text, text
    assert f"{code} CYRILLIC" in text and f"at position {at}," in text and "drawn like the ASCII" in text, text


def test_a_key_with_a_look_alike_letter_is_still_not_shown(tmp_path):
    key = "ghp_" + "Zq8Rt2Lm9Vx4Nc7Kp1Bw6Hs3Jd5Fg0Yt2Ea"
    with pytest.raises(InvalidIdError) as caught:
        nb.resume_run(key[:20] + "\u041e" + key[21:], runs_dir=tmp_path)
    text = str(caught.value)
    assert key[4:20] not in text and key[21:] not in text, text
    assert "U+041E CYRILLIC CAPITAL LETTER O" in text and "at position 20," in text, text


@pytest.mark.parametrize(
    "typed",
    [
        "tok_5ZXQ8M2K9TRH7VWBDN4CJ6P3\u00a0G",  # a token with a no-break space pasted in: ULID-shaped once it is a 0
        "key_5ZXQ8M2K9TRH7VWBDN4CJ6P3\u2009G",  # a thin space, drawn like no letter
        "sk_7F3KD9\u041e2MX8QHRT5VWJ4B6N2PCZ",  # a key of base-32 characters with a Cyrillic O
    ],
)
def test_a_value_the_detectors_find_a_secret_in_is_not_shown_for_a_character_outside_the_set(typed):
    """Before, the first two were printed whole ('tok_5ZXQ…P3\\xa0G'): a character outside the set counted as the
    ``0`` it would make a ULID of, and the value was printed with ``ascii()`` without asking the detectors."""
    with pytest.raises(InvalidIdError) as caught:
        validate_id(typed)
    text = str(caught.value)
    random_part = typed.split("_", 1)[1][:20].replace("\u041e", "")
    assert random_part[:12] not in text and random_part[-8:] not in text, text
    assert f"U+{ord(typed[_outside_at(typed)]):04X}" in text and f"at position {_outside_at(typed)}" in text, text


def _outside_at(typed: str) -> int:
    return next(i for i, ch in enumerate(typed) if not (ch.isascii() and (ch.isalnum() or ch in "_.:@+=-")))


_ENV_CHILD = r"""
import sys
from noesis_nb.errors import InvalidIdError
from noesis_nb.ids import validate_id
try:
    validate_id(sys.argv[1])
except InvalidIdError as e:
    print(e)
"""


def test_a_secret_the_environment_holds_is_not_shown_for_a_look_alike_letter(tmp_path):
    """A ULID-shaped token held in a secret-named variable, pasted as an id with a Cyrillic letter for its last P: a
    view hides the variable's value, so the message does not quote it (before, it was printed escaped whole, the
    check asking only the values runs learned, which leave the environment's out). A fresh process: the environment
    is read at import."""
    token = "tok_01J5ZXQ8M2K9TRH7VWBDN4CJ6P"
    env = {**os.environ, "ACME_API_TOKEN": token, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    typed = token[:-1] + "\u0420"
    done = subprocess.run(
        [sys.executable, "-c", _ENV_CHILD, typed], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0 and "U+0420" in done.stdout, done.stdout + done.stderr
    assert "ZXQ8M2K9TRH7VWBDN4CJ6" not in done.stdout, done.stdout
