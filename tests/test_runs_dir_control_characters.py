"""A runs folder named with a line end or an ANSI escape was accepted by ``%noesis runs-dir``, ``config.set`` and
``solve(runs_dir=...)`` (the folder made, the magic echoing the raw escape) while ``$NOESIS_RUNS_DIR`` and
``$NOESIS_NB_CACHE_DIR`` refused the same text. One check now refuses every path a user gives, naming it escaped."""

from __future__ import annotations

import html
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
    assert "holds the control character" in message and repr(name[2]) in message, message
    assert "\x1b" not in message and "\n" not in message  # escaped, not echoed
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("name", ODD)
def test_set_and_solve_refuse_it_as_the_variable_is_refused(tmp_path: Path, name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = str(tmp_path / name)
    with pytest.raises(InvalidOptionError, match="holds the (control|invisible) character"):
        config.set(runs_dir=folder)
    with pytest.raises(InvalidOptionError, match="holds the (control|invisible) character"):
        noesis_nb.solve("t", using=lambda task: 1, runs_dir=folder)
    monkeypatch.setenv("NOESIS_RUNS_DIR", folder)
    with pytest.raises(InvalidOptionError, match="holds the (control|invisible) character"):
        noesis_nb.solve("t", using=lambda task: 1)
    assert os.listdir(tmp_path) == []


#: names scripts write with format characters: Persian 'reports' with a ZWNJ (U+200C), Hindi with a ZWJ (U+200D),
#: a soft hyphen, a left-to-right mark
WRITTEN = ["گزارش\u200cها", "क्\u200dष", "Ab\u00adlage", "runs\u200e"]


@pytest.mark.parametrize("name", WRITTEN)
def test_a_folder_named_as_a_script_writes_it_is_taken_everywhere(
    tmp_path: Path, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = str(tmp_path / name)
    config.set(runs_dir=folder)
    try:
        ep = noesis_nb.solve("t", using=lambda task: "ok", runs_dir=folder)
    finally:
        config.reset()
    assert list(noesis_nb.runs_df(folder).episode_id) == [ep]
    monkeypatch.setenv("NOESIS_RUNS_DIR", folder)
    monkeypatch.setenv("NOESIS_NB_CACHE_DIR", str(tmp_path / name / ".cache"))
    assert not config.problems()
    assert list(noesis_nb.runs_df().episode_id) == [ep]


@pytest.mark.parametrize(("ch", "said"), [("\u202e", "U+202E RIGHT-TO-LEFT OVERRIDE"), ("\u2066", "U+2066"), ("\t", "U+0009")])
def test_a_bidi_control_or_tab_is_refused_naming_it_and_why(
    tmp_path: Path, ch: str, said: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = str(tmp_path / f"rd{ch}x")
    for call in (lambda: config.set(runs_dir=folder), lambda: noesis_nb.solve("t", using=lambda task: 1, runs_dir=folder)):
        with pytest.raises(InvalidOptionError, match="holds the (control|invisible) character") as refused:
            call()
        assert said in str(refused.value) and ch not in str(refused.value)
    for variable in ("NOESIS_RUNS_DIR", "NOESIS_NB_CACHE_DIR"):
        monkeypatch.setenv(variable, folder)
        assert [p for p in config.problems() if f"${variable}=" in p and said in p], variable
    assert os.listdir(tmp_path) == []


def test_a_folder_that_exists_is_read_whatever_its_name(tmp_path: Path) -> None:
    """Readers never refuse a folder for its name: one made elsewhere with an escape in it is read, not refused."""
    made = tmp_path / "runs"
    ep = noesis_nb.solve("t", using=lambda task: "ok", runs_dir=made)
    for name in ("rd\x1b[31mx\u202e", "گزارش\u200cها"):
        odd = tmp_path / name
        made.rename(odd)
        assert list(noesis_nb.runs_df(str(odd)).episode_id) == list(noesis_nb.runs_df(odd).episode_id) == [ep]
        assert list(noesis_nb.runs_df(str(odd / ep)).episode_id) == [ep]
        made = odd


def _paused_under(tmp_path: Path, name: str) -> tuple[Path, str]:
    """A run paused on a tool draft, in an existing root named ``name`` (made by another program: the folder renamed)."""

    def agent(task: str, ctx: object) -> str:
        ctx.tool("fs.write", {"argv": ["echo", "x"]}, effect="write", risk="high")  # type: ignore[attr-defined]
        return "ok"

    made = tmp_path / "runs"
    ep = noesis_nb.solve("t", using=agent, runs_dir=made)
    root = tmp_path / name
    made.rename(root)
    return root, ep


@pytest.mark.parametrize("name", ["runs\u202eevil", "runs\x1b[31mx"])
def test_the_inbox_and_the_listing_magics_read_an_existing_root_whatever_its_name(tmp_path: Path, name: str) -> None:
    """``inbox(root)``, ``%noesis inbox --runs-dir`` and ``%noesis list --runs-dir`` refused the root that list_runs,
    show, approve_draft and resume_run read: a folder only read is never refused for its name."""
    root, ep = _paused_under(tmp_path, name)
    view = noesis_nb.inbox(str(root))
    try:
        assert [item.episode_id for item in view.pending] == [ep]
    finally:
        view.close()
    with noesis_shell() as shell:
        table = shell.run_line_magic("noesis", f"list --runs-dir '{root}'")
        assert [row["episode_id"] for row in table] == [ep] and table.where == str(root)
        magic_view = shell.run_line_magic("noesis", f"inbox --runs-dir '{root}'")
        try:
            assert [item.episode_id for item in magic_view.pending] == [ep]
        finally:
            magic_view.close()
    assert os.listdir(tmp_path) == [name]  # read only: no other folder made


def test_a_root_given_as_a_word_is_echoed_escaped_in_the_usage_error(tmp_path: Path) -> None:
    """``%noesis list <root>`` echoed the root's raw U+202E in its usage error (the line shown reordered)."""
    root = tmp_path / "runs\u202eevil"
    root.mkdir()
    with noesis_shell() as shell, pytest.raises(UsageError) as said:
        shell.run_line_magic("noesis", f"list '{root}'")
    message = str(said.value)
    assert "\u202e" not in message, message
    assert "unrecognized arguments: " + repr(str(root)) in message and "--runs-dir " + repr(str(root)) in message, message


@pytest.mark.parametrize("name", ["runs\u202eevil", "runs\x1b[31mx"])
def test_an_empty_root_listed_by_the_magic_is_named_escaped(tmp_path: Path, name: str) -> None:
    """``%noesis list --runs-dir <root>`` of a root holding no run said "no runs in <root> yet" with the root's raw
    U+202E or ESC, in its text and its HTML: the root is shown quoted and escaped, as the usage error shows it."""
    root = tmp_path / name
    root.mkdir()
    with noesis_shell() as shell:
        table = shell.run_line_magic("noesis", f"list --runs-dir '{root}'")
    text, page = str(table), table._repr_html_()
    assert name[4] not in text and name[4] not in page, (text, page)
    assert f"no runs in {str(root)!r} yet" in text, text
    assert f"no runs in {str(root)!r} yet" in html.unescape(page), page
