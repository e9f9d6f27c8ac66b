"""Every refusal of a value for a character in it names the character, its code point and its place in one phrase
(``_safetext.unseen_said``): a draft reference, a draft or request id made a file name, a runs folder given as an
argument or a variable. Before, each said it its own way: 'holds a character no draft id has (shown as …)' with no
code point or place, 'holds a control character ('…', U+…; why)' with no place, 'contains the control character …'."""

from __future__ import annotations

import contextlib
import io
import os
from collections.abc import Callable
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.errors import InvalidIdError, InvalidOptionError
from noesis_nb.tools._files import check_id

from .frames.runkit import writer_adapter

ESC = "holds the control character '\\x1b' (U+001B) at position 3"
LINE_END = "holds the control character '\\n' (U+000A) at position {at}"


@pytest.fixture(scope="module")
def paused(tmp_path_factory: pytest.TempPathFactory) -> Path:
    runs = tmp_path_factory.mktemp("phrase") / "runs"
    with contextlib.redirect_stdout(io.StringIO()):
        episode = noesis_nb.solve("write a file", using=writer_adapter, runs_dir=runs, approver="ask")
    return runs / episode


def _said(call: Callable[[], object], error: type[Exception]) -> str:
    with pytest.raises(error) as caught:
        call()
    return str(caught.value)


def test_a_draft_reference(paused: Path) -> None:
    said = _said(lambda: noesis_nb.approve_draft(paused, draft_id="abc\x1bdef", approver_id="ana"), InvalidIdError)
    assert ESC in said and "\x1b" not in said, said
    assert not list((paused / "tool_invocations" / "approvals").glob("*.json"))  # nothing decided


@pytest.mark.parametrize("what", ["draft id", "request id"])
def test_an_id_made_a_file_name(what: str) -> None:
    said = _said(lambda: check_id("abc\x1bdef", what), InvalidIdError)
    assert said.startswith(f"{what} 'abc\\x1bdef' {ESC};"), said


def test_a_runs_folder_as_argument_and_as_variable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = str(tmp_path / "rd\nx")
    said = _said(lambda: noesis_nb.solve("t", using=lambda task: 1, runs_dir=folder), InvalidOptionError)
    assert LINE_END.format(at=len(str(tmp_path)) + 3) + " (a line end" in said, said
    monkeypatch.setenv("NOESIS_RUNS_DIR", "  " + folder)  # placed in the value shown, its blanks too
    said = _said(lambda: noesis_nb.solve("t", using=lambda task: 1), InvalidOptionError)
    assert LINE_END.format(at=len(str(tmp_path)) + 5) + " (a line end" in said, said
    assert os.listdir(tmp_path) == []
