"""A runs folder named with a line end or an ANSI escape was accepted by ``%noesis runs-dir``, ``config.set`` and
``solve(runs_dir=...)`` (the folder made, the magic echoing the raw escape) while ``$NOESIS_RUNS_DIR`` and
``$NOESIS_NB_CACHE_DIR`` refused the same text. One check now refuses every path a user gives, naming it escaped."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from IPython.core.error import UsageError

import noesis_nb
from noesis_nb import config
from noesis_nb.errors import InvalidOptionError
from tests.ipshell import noesis_shell

ODD = ["rd\nx", "rd\x1b[31mx"]


@pytest.mark.parametrize("name", ODD)
def test_the_magic_refuses_a_runs_dir_with_a_control_character(tmp_path: Path, name: str) -> None:
    folder = str(tmp_path / name)
    with noesis_shell() as shell, pytest.raises(UsageError) as said:
        shell.run_line_magic("noesis", f"runs-dir '{folder}'")
    message = str(said.value)
    assert "holds a control character" in message and repr(name[2]) in message, message
    assert "\x1b" not in message and "\n" not in message  # escaped, not echoed
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("name", ODD)
def test_set_and_solve_refuse_it_as_the_variable_is_refused(tmp_path: Path, name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = str(tmp_path / name)
    with pytest.raises(InvalidOptionError, match="holds a control character"):
        config.set(runs_dir=folder)
    with pytest.raises(InvalidOptionError, match="holds a control character"):
        noesis_nb.solve("t", using=lambda task: 1, runs_dir=folder)
    monkeypatch.setenv("NOESIS_RUNS_DIR", folder)
    with pytest.raises(InvalidOptionError, match="holds a control character"):
        noesis_nb.solve("t", using=lambda task: 1)
    assert os.listdir(tmp_path) == []
