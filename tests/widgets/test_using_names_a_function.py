"""``using='janitor'`` with a notebook function ``janitor``: the message said "did you mean janitor?", the very name
typed. It now says the name is a string and to pass the function itself."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.errors import UsingResolutionError


def test_the_name_of_a_notebook_function_given_as_a_string_says_pass_the_function(runs_dir: Path) -> None:
    def janitor(task: str) -> str:
        return "done"

    main = sys.modules["__main__"]
    main.janitor = janitor  # type: ignore[attr-defined]  # as a notebook cell defines it
    try:
        with pytest.raises(UsingResolutionError) as refused:
            noesis_nb.solve("clean up", using="janitor", runs_dir=runs_dir)
    finally:
        delattr(main, "janitor")
    said = str(refused.value)
    assert said.startswith("using='janitor' names no agent — 'janitor' is a string; pass the function: using=janitor."), said
    assert "did you mean" not in said
    assert not list(runs_dir.iterdir())  # refused before any run was made
