"""An episode id typed with an ASCII letter a ULID reads as a digit (``O`` for ``0``, ``l`` or ``I`` for ``1``) is an
id slip, not a key: approve_draft, reject_draft and resume_run show it and name the difference from the run's id in
their "did you mean", and show() shows it too. Before, it was '<a 29-character value that looks like a key, not
shown>' while the real id beside it was shown."""

from __future__ import annotations

from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.errors import RunNotFoundError
from noesis_nb.secrets.quoted import quoted
from tests.runtime.agents import paused_on_disk


def _slipped(episode: str) -> list[tuple[str, str, str]]:
    """(the id with one look-alike letter, that letter, the digit it stands for), for each digit 0 or 1 of its ULID."""
    body = episode[3:]
    out = []
    for digit, letters in (("0", "Oo"), ("1", "lI")):
        at = body.find(digit)
        if at >= 0:
            out += [(episode[: 3 + at] + letter + episode[4 + at :], letter, digit) for letter in letters]
    return out


@pytest.fixture(scope="module")
def paused(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    base = tmp_path_factory.mktemp("slips")
    run_dir, _ = paused_on_disk(base / "runs", base / "out.txt")
    return run_dir.parent, run_dir.name


@pytest.mark.parametrize("call", ["approve_draft", "reject_draft", "resume_run"])
def test_a_look_alike_letter_is_shown_with_the_difference(paused: tuple[Path, str], call: str) -> None:
    runs, episode = paused
    slips = _slipped(episode)
    assert slips  # a ULID starts with its time: it holds a 0 or a 1
    for typed, letter, digit in slips:
        with pytest.raises(RunNotFoundError) as caught:
            getattr(noesis_nb, call)(typed, runs_dir=runs)
        said = str(caught.value)
        assert repr(typed) in said and "looks like a key" not in said, said
        assert f"did you mean {episode!r}?" in said, said
        assert f"the letter {letter!r} at character {typed.index(letter) + 1} where the id has the digit {digit!r}" in said


def test_show_names_the_typed_id(paused: tuple[Path, str]) -> None:
    _, episode = paused
    typed = next(t for t, letter, _ in _slipped(episode) if letter.isupper())
    with pytest.raises(RunNotFoundError) as caught:
        noesis_nb.show(typed)
    assert repr(typed) in str(caught.value), str(caught.value)
    assert quoted(typed) == repr(typed)


def test_three_look_alike_letters_are_still_not_shown() -> None:
    value = "ep_OIL" + "M985PDVK97GV56J6YHW7YH8"  # three such letters: no slip of an id, as random as a key
    assert len(value) == 29 and "looks like a key" in quoted(value)
