"""An id refused as path-like says what in it reads as a path, whatever the id is for."""

from __future__ import annotations

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
