"""A run whose summary.json or state.json names another episode than its folder (a copy, a file taken from another
run): ``list_runs`` names it by its folder, as every frame does, so no id is listed twice, and says so in ``problems``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.store import list_runs


@pytest.mark.parametrize("file", ["summary.json", "state.json"])
def test_a_run_is_listed_under_its_folder_and_a_file_naming_another_is_a_problem(tmp_path: Path, file: str) -> None:
    root = tmp_path / "runs"
    first, second = (noesis_nb.solve(task, using=lambda t, c: "done", runs_dir=root) for task in ("first", "second"))
    if file == "state.json":
        (root / second / "summary.json").unlink()
    path = root / second / file
    doc = json.loads(path.read_text())
    if file == "summary.json":
        doc["episode_id"] = first
    else:
        doc["episode"]["id"] = first
    path.write_text(json.dumps(doc))

    rows = list_runs(None, runs_dir=root)

    assert sorted(r["episode_id"] for r in rows) == sorted([first, second])
    assert [r["episode_id"] for r in rows if r["run_dir"] == str(root / second)] == [second]
    assert len(rows.problems) == 1
    problem = rows.problems[0]
    assert problem["path"] == str(path)
    assert repr(first) in problem["reason"] and repr(second) in problem["reason"]
    assert {p["path"] for p in noesis_nb.runs_df(root).attrs["errors"]} >= {str(path)}
