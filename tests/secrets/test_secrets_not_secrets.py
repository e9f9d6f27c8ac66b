"""Text that only looks like a secret keeps its words, while every shape of the corpus is still redacted.

A labelled git object name (``HEAD is now at <sha>``) and the ordinary text that shares a chunk with the
last few characters of a split secret are what a reader needs to follow a run; redacting them hides the
run, not a secret. A word after a name's ``=`` is its value, even when it reads as prose
(``password= letmein now``): what follows is no proof it is not one.
"""

from __future__ import annotations

import random
import secrets as stdlib_secrets

import pytest

from noesis_nb.secrets import find_in_text, redact, shown
from noesis_nb.secrets.guard import RunSecrets
from tests.hardening.secret_corpus import corpus, leaks

SHAPES = corpus(random.SystemRandom().randrange(2**32))


@pytest.mark.parametrize("label", ["HEAD is", "HEAD is now at", "commit", "the commit was"])
def test_a_labelled_git_object_name_is_kept(label: str) -> None:
    sha = stdlib_secrets.token_hex(20)
    text = f"{label} {sha}"
    assert shown(text) == text


@pytest.mark.parametrize(
    "template",
    ["password= {pw}", "password={pw} stays", "password= {pw} stays", "password = '{pw}' is set", "password: {pw} here"],
)
def test_a_password_given_to_a_name_is_still_redacted(template: str) -> None:
    pw = "Hu" + stdlib_secrets.token_hex(5)
    assert pw not in shown(template.format(pw=pw))


@pytest.mark.parametrize(
    "template",
    [
        "password= {word}",
        "password={word} and more",
        "password = {word} and more",
        "password= {word} now",
        "token= {word} and more",
        "connect host=db password= {word} user=bob",
        "password=\t{word} now",
        "password: {word} here",
    ],
)
def test_a_lower_case_word_given_as_a_value_is_still_redacted(template: str) -> None:
    """Attached to its ``=``, after ``= `` followed by more words, ending its line, or after a colon (YAML, a
    header): a value, though it reads as a word."""
    word = "".join(random.SystemRandom().choice("abcdefghijklmnopqrstuvwxyz") for _ in range(9))
    assert word not in shown(template.format(word=word))


@pytest.mark.parametrize("cut", [1, 2, 3])
def test_the_words_sharing_a_chunk_with_a_secrets_last_characters_are_kept(cut: int) -> None:
    """["…<secret minus its tail>", "<tail> and the rest"]: the tail goes (with at most the few characters
    after it that make a part long enough to redact alone), the rest of its chunk stays."""
    rest = " and the deploy went on to the next stage"
    shapes = [s for s in SHAPES if "\n" not in s.value and " " not in s.value]
    for shape in shapes:
        pieces = [f"using {shape.value[:-cut]}", f"{shape.value[-cut:]}{rest}"]
        found = shape.value in find_in_text(f"using {shape.value}{rest}", entropy=False)  # by its shape
        for written in [redact({"chunks": pieces})[0]["chunks"]] * found + [_known_scrubbed(shape.value, pieces)]:
            assert leaks([shape], [(shape.name, repr(written).encode())]) == [], (shape.name, written)
            assert written[1].endswith(rest[4:]), (shape.name, written)


def test_the_words_sharing_a_chunk_with_a_secrets_first_characters_are_kept() -> None:
    lead = "the deploy used the key "
    for shape in (s for s in SHAPES if "\n" not in s.value and " " not in s.value):
        pieces = [f"{lead}{shape.value[:2]}", shape.value[2:]]
        written = _known_scrubbed(shape.value, pieces)
        assert leaks([shape], [(shape.name, repr(written).encode())]) == [], (shape.name, written)
        assert written[0].startswith(lead[:-4]), (shape.name, written)


def _known_scrubbed(value: str, pieces: list[str]) -> list[str]:
    """The pieces as a run that already learned ``value`` writes them."""
    run = RunSecrets()
    run.learn([value])
    return run.scrub(list(pieces))


@pytest.mark.parametrize("inner", ["Pw", "Pwd", "Otp", "Totp"])
def test_a_short_secret_word_inside_a_random_key_makes_no_name_of_it(inner: str) -> None:
    """Split at its capitals, a random key holds short words (``…wwrPwV81…`` has ``pw``): it made the key a secret's
    name, and the text after it in a list ([name, value]) was hidden whole with the key (a chunk's prose lost)."""
    key = f"sk_live_YYXwSLQcWtxJTQr1Fq{inner}V81Aw71l33SCx9vHjHkm1x72EsSfUQUAkNX7LHQ7"
    rest = " and the deploy went on to the next stage"
    written = redact({"chunks": [f"using {key[:-1]}", f"{key[-1:]}{rest}"]})[0]["chunks"]
    assert key[10:30] not in repr(written) and written[1].endswith(rest[4:]), written
    assert redact({"user_pw": "Hu7xq2Lm9z", "totp_code": "482913", "MYSQL_PWD": "Hu7xq2Lm9z"})[0] == {
        "user_pw": "[REDACTED]",
        "totp_code": "[REDACTED]",
        "MYSQL_PWD": "[REDACTED]",
    }
