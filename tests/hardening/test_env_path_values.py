"""Values pasted into path and name variables: ``NOESIS_RUNS_DIR`` with a space or a line end around it,
``NOESIS_NB_PRINCIPAL`` holding a separator or an escape, a login name no principal may hold. Each is stripped, or
refused before an episode starts with one error naming the variable, its value (escaped) and the fix, and listed
by ``config.problems()``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb import config
from noesis_nb.errors import InvalidOptionError


def _quick(task, ctx):
    return 1


def _idempotent(task, ctx):
    out = ctx.tool("shell.run", {"argv": ["echo", "hi"]}, effect="read", risk="low", idempotency_key="k1")
    return out["returncode"]


@pytest.mark.parametrize("pasted", [" {}", "{}\r", "{}\n", "\t{}\r\n"])
def test_runs_dir_from_the_environment_is_stripped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pasted: str) -> None:
    target = tmp_path / "runs"
    monkeypatch.setenv("NOESIS_RUNS_DIR", pasted.format(target))
    episode = noesis_nb.solve("t", using=_quick)
    assert (target / episode).is_dir()
    assert [p.name for p in tmp_path.iterdir()] == ["runs"]  # no ' ' or 'runs\r' folder beside it
    assert config.problems() == []


@pytest.mark.parametrize("variable", ["NOESIS_RUNS_DIR", "NOESIS_NB_CACHE_DIR"])
def test_a_control_character_inside_a_path_variable_is_named_with_its_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    monkeypatch.setenv(variable, f"{tmp_path}/nl\nX\x1b[31m")
    said = [p for p in config.problems() if f"${variable}=" in p]
    assert len(said) == 1 and "control character" in said[0] and "\n" not in said[0] and "\x1b" not in said[0]
    assert f"export {variable}=" in said[0] or "unset it" in said[0]
    if variable == "NOESIS_RUNS_DIR":
        with pytest.raises(InvalidOptionError, match=r"\$NOESIS_RUNS_DIR=.*control character"):
            noesis_nb.solve("t", using=_quick)
    else:  # the load works without the cache, and writes nothing anywhere
        with pytest.warns(UserWarning, match=r"cache not used: \$NOESIS_NB_CACHE_DIR=.*control character"):
            noesis_nb.frames.clear_cache()
    assert sorted(os.listdir(tmp_path)) == []


@pytest.mark.parametrize("principal", ["org/ana", "a\nb\x1b[31m", "..", "x" * 201, "back\\slash"])
def test_a_principal_that_cannot_name_one_is_refused_before_the_episode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, principal: str
) -> None:
    monkeypatch.setenv("NOESIS_NB_PRINCIPAL", principal)
    runs = tmp_path / "runs"
    with pytest.raises(InvalidOptionError) as caught:
        noesis_nb.solve("t", using=_idempotent, runs_dir=runs, approver="auto")
    said = str(caught.value)
    assert said.startswith("$NOESIS_NB_PRINCIPAL=") and "export NOESIS_NB_PRINCIPAL=" in said
    assert not any(ch in said for ch in "\n\r\x1b")
    assert not runs.exists() or list(runs.iterdir()) == []  # refused before any run was made
    assert [p for p in config.problems() if p.startswith("$NOESIS_NB_PRINCIPAL=")] == [said]


def test_a_principal_pasted_with_a_line_end_is_stripped_and_keys_tool_calls(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NOESIS_NB_PRINCIPAL", "user:ana\n")
    runs = tmp_path / "runs"
    episode = noesis_nb.solve("t", using=_idempotent, runs_dir=runs, approver="auto")
    assert noesis_nb.runs_df(runs)["status"].tolist() == ["ok"]
    text = "".join(p.read_text() for p in (runs / episode).rglob("*.json*") if p.is_file())
    assert "user:ana" in text and "user:ana\\n" not in text
    assert config.problems() == []


@pytest.mark.parametrize("login", ["org/ana", "ana\nroot", "..", ""])
def test_a_login_name_no_principal_may_hold_does_not_stop_the_episode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, login: str
) -> None:
    """With no ``NOESIS_NB_PRINCIPAL`` the principal is ``user:<login name>``, read from ``$LOGNAME``/``$USER`` first:
    one holding a '/' or a line end stopped the episode at its first idempotent tool call."""
    for name in ("LOGNAME", "USER", "LNAME", "USERNAME"):
        monkeypatch.setenv(name, login)
    runs = tmp_path / "runs"
    episode = noesis_nb.solve("t", using=_idempotent, runs_dir=runs, approver="auto")
    assert noesis_nb.runs_df(runs)["status"].tolist() == ["ok"]
    text = "".join(p.read_text() for p in (runs / episode).rglob("*.json*") if p.is_file())
    assert "user:" in text and (not login or f"user:{login}" not in text)
