"""An episode id typed with a character or two too many is quoted in the error: ``show(<id> + 'x')`` said
``no run <a 30-character value that looks like a key, not shown>``, so the person could not see their slip (an id
one character short, or with one changed, was quoted already). A key after such a prefix is still hidden."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.errors import NoesisNbError
from noesis_nb.secrets.quoted import quoted


def _agent(task: str, ctx: Any) -> str:
    return "ok"


@pytest.mark.parametrize("slip", ["{id}x", "{id}X", "{id}7Q", "{id_lower}z"])
def test_an_id_with_a_character_too_many_is_quoted_in_the_error(runs_dir: Path, slip: str) -> None:
    episode = noesis_nb.solve("x", using=_agent, runs_dir=runs_dir)
    typed = slip.format(id=episode, id_lower=episode.lower())
    with pytest.raises(NoesisNbError) as raised:
        noesis_nb.show(typed, runs_dir=runs_dir)
    message = str(raised.value)
    assert repr(typed) in message and "looks like a key" not in message, message


@pytest.mark.parametrize("prefix", ["ep_", "req_", "batch_", "chk_"])
def test_the_ids_noesis_nb_mints_are_quoted_one_or_two_characters_long(prefix: str) -> None:
    ulid = "01M985KGG9VAZ3J1PYVK60B54V"
    for typed in (prefix + ulid + "X", prefix + ulid + "XY", prefix + ulid[:-2]):
        assert quoted(typed) == repr(typed)


@pytest.mark.parametrize(
    "key",
    [
        "ep_" + "Xq7Lm2pQ9zAbCdEfGh3Jk4Mn5P",  # mixed case: random, not an id in capitals
        "ep_" + "01M985KGG9VAZ3J1PYVK60B54V" + "Zq8r3kVbXw9Lm2Pq",  # far longer than an id
        "ghp_" + "Zq8r3kVbXw9Lm2Pq7TtY7uJf0Hn5aBcDeRs4",
        "sk-proj-" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0U1v2",
    ],
)
def test_keys_are_still_not_shown(key: str) -> None:
    assert "looks like a key, not shown" in quoted(key), quoted(key)
