"""``./.noesis`` reached through a symbolic link (a bigger disk, or a link that came with a checkout).

Linked roots keep working; what changes is that the redirection is never silent: the first run
created under a linked default root warns with the real folder, and ``%noesis list`` and
``%noesis runs-dir`` name it. A root the user chose does not warn.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.runtime.rootlink import RunsDirLinked
from tests.ipshell import run_magic


@pytest.fixture
def elsewhere(tmp_path: Path) -> Path:
    """A checkout in the current folder whose ``.noesis`` is a link to another project's folder."""
    target = tmp_path / "another-project" / "data"
    target.mkdir(parents=True)
    os.chdir(tmp_path / "another-project")
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    (checkout / ".noesis").symlink_to(target)
    os.chdir(checkout)
    return target


def test_the_first_run_under_a_linked_default_root_names_where_it_really_goes(elsewhere: Path) -> None:
    with pytest.warns(RunsDirLinked, match=str(elsewhere / "episodes")) as seen:
        first = noesis_nb.solve("one", using=lambda task: "done")
    with warnings.catch_warnings():
        warnings.simplefilter("error", RunsDirLinked)  # once per process and root: a legit link is not nagged
        noesis_nb.solve("two", using=lambda task: "done")

    assert len(seen) == 1 and "symbolic link" in str(seen[0].message)
    assert (elsewhere / "episodes" / first).is_dir()  # the link is followed: linked roots keep working


def test_a_root_the_user_chose_through_a_link_does_not_warn(tmp_path: Path) -> None:
    real = tmp_path / "big-disk"
    real.mkdir()
    (tmp_path / "runs").symlink_to(real)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RunsDirLinked)
        episode = noesis_nb.solve("chosen", using=lambda task: "done", runs_dir=tmp_path / "runs")
    assert (real / episode).is_dir()


def test_noesis_list_and_runs_dir_show_the_real_folder(elsewhere: Path) -> None:
    with pytest.warns(RunsDirLinked):
        episode = noesis_nb.solve("one", using=lambda task: "done")

    table, _ = run_magic("list")
    _, printed = run_magic("runs-dir")

    real = repr(str(elsewhere / "episodes"))
    for shown in (repr(table), table._repr_html_(), printed):
        assert real in shown.replace("&#x27;", "'")
    assert episode in repr(table)
