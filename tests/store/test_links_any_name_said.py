"""A link a runs root's scan skips is said, whatever its name, unless it is a shortcut: ``again -> .`` (back to the
root) is read where it leads and ``x -> /etc`` (this user's link to a folder of no run) holds nothing to read; each is
one problem naming it in every frame's ``attrs["errors"]`` and in ``list_runs(…).problems``, cold and warm. A shortcut
(``latest -> ep_…``, a run of the root; ``labels -> label``, a label of it) loses nothing and is kept on purpose: read
where it leads, and no problem of every load. A link to a run kept elsewhere is read as a run, and not said."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.frames import clear_cache
from noesis_nb.store import list_runs
from tests.store.test_links_named_like_runs import FIRST, FRAMES, LABELLED, SECOND, _run

ELSEWHERE = "ep_01M98FQE2ZPFVGQYX4KT3HELS2"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "runs"
    _run(root / FIRST, FIRST)
    _run(root / SECOND, SECOND)
    _run(root / "label" / LABELLED, LABELLED)
    _run(tmp_path / "elsewhere" / ELSEWHERE, ELSEWHERE)
    (tmp_path / "no_runs" / "sub").mkdir(parents=True)
    return root


def test_each_link_skipped_by_any_name_is_one_problem_naming_it(root: Path, tmp_path: Path) -> None:
    links = {
        "again": Path("."),
        "x": tmp_path / "no_runs",
    }
    for name, target in {**links, "latest": Path(FIRST), "labels": Path("label")}.items():
        os.symlink(target, root / name)
    os.symlink(tmp_path / "elsewhere" / ELSEWHERE, root / "kept")  # a run linked in: read, not said
    said_of = {str(root / name) for name in links}
    for load in ("cold", "warm"):
        if load == "cold":
            clear_cache()
        for frame in FRAMES:
            df = getattr(noesis_nb, frame)(root)
            links_said = sorted(e["path"] for e in df.attrs["errors"] if "symbolic link" in e["reason"])
            assert links_said == sorted(said_of), (load, frame, df.attrs["errors"])
        runs = noesis_nb.runs_df(root)
        assert sorted(runs.episode_id) == sorted([FIRST, SECOND, LABELLED, "kept"]), load  # each run once
        reasons = {e["path"]: e["reason"] for e in runs.attrs["errors"]}
        assert "no run" in reasons[str(root / "x")] and "read where they are" in reasons[str(root / "again")]
    listed = list_runs(None, runs_dir=root)
    assert sorted(p["path"] for p in listed.problems if "symbolic link" in p["reason"]) == sorted(said_of)
