"""Passwords given in words or in a file's line shape, with no ``name=value`` around them (``secrets.prose``):
``my password is X``, ``The wifi passphrase is X``, a ``.pgpass`` line, ``htpasswd -b file user X``. Before, each
was written and shown in clear. Sentences where the word after ``password is`` is an English one stay whole."""

from __future__ import annotations

from pathlib import Path

import pytest

from noesis_nb.secrets.text import find_in_text
from tests.secrets.saidkit import password, scan_costs, shown_per_run, text_run, texts_read_back, written_by_live_run

_SAYINGS = {
    "is": lambda pw: f"my password is {pw}",
    "passphrase": lambda pw: f"The wifi passphrase is {pw} - keep it safe",
    "was_now": lambda pw: f"Your password was now: {pw}.",
    "backticked": lambda pw: f"the root password is `{pw}`",
    "pgpass": lambda pw: f"db.example.com:5432:mydb:alice:{pw}",
    "pgpass_any": lambda pw: f"# ~/.pgpass\n*:*:*:postgres:{pw}\n",
    "htpasswd": lambda pw: f"htpasswd -b .htpasswd alice {pw}",
    "htpasswd_nb": lambda pw: f"run htpasswd -nbB bob '{pw}' > users",
}
_KEPT = [
    "password is required",
    "Your password is incorrect.",
    "The passphrase is set",
    "Password is Required",
    "the password is too short",
    "The password is 8 characters long",
    "password is <your password>",
    "the password is ${DB_PASSWORD}",
    "htpasswd -c .htpasswd alice",
    "2001:0:85a3:8a2e:370:7334",
    "00:11:22:33:44:55",
    "started 07:00:30, done 07:01:02",
]


def test_passwords_said_in_words_are_hidden_in_a_run_read_from_disk(tmp_path: Path) -> None:
    given = {name: password(11) for name in _SAYINGS}
    shown_runs = shown_per_run(tmp_path, {name: say(given[name]) for name, say in _SAYINGS.items()})
    for name, pw in given.items():
        rows = shown_runs[name]
        assert pw not in rows, f"{name}: the password is shown"
        assert "[REDACTED]" in rows


def test_ordinary_sentences_stay_whole(tmp_path: Path) -> None:
    text_run(tmp_path, "ep_kept", _KEPT)
    assert texts_read_back(tmp_path) == _KEPT


def test_a_live_run_writes_them_redacted(tmp_path: Path) -> None:
    given = {name: password(11) for name in _SAYINGS}
    written = written_by_live_run(tmp_path, [say(given[name]) for name, say in _SAYINGS.items()], "model")
    for name, pw in given.items():
        assert pw not in written, f"{name}: the password was written"


@pytest.mark.parametrize(
    "unit", ["password is ", "password was now: ", "passphrase is x1", "htpasswd -b ", "htpasswd -b -b x ", "a:1:b:c:", "h:5432:"]
)
def test_hostile_lines_are_read_in_linear_time(unit: str) -> None:
    """One line of the patterns' openings repeated, 50 KB then 200 KB: linear costs 4 times as much, quadratic 16."""
    costs = scan_costs([unit * (size // len(unit)) for size in (50_000, 200_000)])
    assert costs[1] < 9 * max(costs[0], 0.005), f"{unit!r}: {costs[0]:.3f}s then {costs[1]:.3f}s of CPU"


@pytest.mark.parametrize(
    ("opening", "blank", "end"),
    [("password is", " ", ""), ("password was now", "\t", "\n"), ("passphrase is:", " ", "x"), ("password is", " \t", "")],
)
def test_a_long_run_of_blanks_after_the_opening_is_read_once(opening: str, blank: str, end: str) -> None:
    """ "password is" then thousands of blanks and no word: every way of splitting the blanks between the pattern's
    parts was tried (5 KB 0.4 s, 20 KB 4.8 s, 100 KB two minutes of CPU); 4 times the blanks cost ~4 times as much."""
    costs = scan_costs([f"note: {opening}{blank * (size // len(blank))}{end}" for size in (5_000, 20_000)])
    assert costs[1] < 9 * max(costs[0], 0.005), f"{opening!r}: {costs[0]:.3f}s then {costs[1]:.3f}s of CPU"
    assert costs[1] < 1.0, f"{opening!r}: {costs[1]:.3f}s of CPU for 20 KB"


@pytest.mark.parametrize(
    "said",
    [
        "wifi password is #Welcome2024",
        "the password is hunter2Zq!!",
        "the password is **Tr0ub4dor** now",
        "password is " + "Zq8r3kVbXw9Lm" * 12,
    ],
)
def test_a_password_starting_or_ending_with_a_symbol_is_hidden_whole(said: str) -> None:
    """A password starting with ``#`` was taken for a placeholder and kept; one ending in ``!!`` lost its end
    to the sentence's punctuation (``[REDACTED]!!``); one over 128 characters kept its tail."""
    word = said.split("is ", 1)[1].split(" ")[0]
    word = word[:-1] if word.endswith("!!") else word  # the last mark may end the sentence: it is kept
    found = find_in_text(said)
    assert found and max(found, key=len) == word, (said, found)


@pytest.mark.parametrize(
    "kept",
    [
        "password is $DB_PASSWORD",
        "password is ${PW}",
        "password is $(pass show db)",
        "password is ********",
        "password is %(password)s",
    ],
)
def test_a_word_standing_for_a_password_is_kept(kept: str) -> None:
    assert not find_in_text(kept), kept
