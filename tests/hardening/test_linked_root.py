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


def _usage_agent(task: str, ctx) -> str:
    ctx.model_call(model="gpt-4o-mini", input_tokens=1000, output_tokens=10)
    return "done"


@pytest.mark.parametrize("frame", ["runs_df", "events_df", "usage_df"])
def test_runs_reached_by_two_paths_are_counted_once(tmp_path: Path, frame: str) -> None:
    """A root and a link to it (or a folder of links to its runs) given together: each run once, its tokens once.
    They were counted twice, by the path each was reached by."""
    root = tmp_path / "runs"
    episodes = [noesis_nb.solve(t, using=_usage_agent, runs_dir=root) for t in ("a", "b")]
    (tmp_path / "link").symlink_to(root)
    links = tmp_path / "links"
    links.mkdir()
    for episode in episodes:
        (links / episode).symlink_to(root / episode)
    load = getattr(noesis_nb, frame)
    alone = load(root)
    for sources in ([root, tmp_path / "link"], [root, links], [tmp_path / "link", links, root]):
        got = load(sources)
        assert len(got) == len(alone) and set(got["episode_id"]) == set(episodes), (sources, len(got), len(alone))
        assert got.attrs["errors"] == []
    usage = noesis_nb.usage_df([root, tmp_path / "link"])
    assert usage["input_tokens"].sum() == 2000


def test_a_run_reached_through_a_link_keeps_its_own_name_whatever_the_order(tmp_path: Path) -> None:
    """Given with a folder holding a link ``latest`` to it, the run was named ``latest`` when that folder came first."""
    root, links = tmp_path / "runs", tmp_path / "links"
    episode = noesis_nb.solve("t", using=_usage_agent, runs_dir=root)
    links.mkdir()
    (links / "latest").symlink_to(root / episode)
    for sources in ([root, links], [links, root]):
        assert list(noesis_nb.runs_df(sources)["episode_id"]) == [episode], sources
