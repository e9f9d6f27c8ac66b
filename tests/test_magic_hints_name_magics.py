"""A ``%noesis`` user is pointed to ``%noesis`` commands: an unknown run id to ``%noesis list`` (it named a Python call,
``noesis_nb.ns.list_runs()``), an empty runs table to ``%noesis list --runs-dir`` and ``%noesis runs-dir`` (it named
``noesis_nb.config.set(runs_dir=...)``, a third spelling beside the tours' ``ns.set``); each works as named."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from IPython.core.error import UsageError

import noesis_nb
from noesis_nb import config


def test_an_unknown_id_points_to_the_list_magic(ip: Any, runs_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ep = noesis_nb.solve("a task", using=lambda task: "done", runs_dir=runs_dir)
    with pytest.raises(UsageError) as caught:
        ip.run_line_magic("noesis", f"show ep_01K9ZZZZZZZZZZZZZZZZZZZZZZ --runs-dir {runs_dir}")
    assert "check the id with %noesis list" in str(caught.value), caught.value
    listed = ip.run_line_magic("noesis", f"list --runs-dir {runs_dir}")  # as it says: the runs there, with their ids
    assert ep in repr(listed)


def test_an_empty_runs_table_names_the_magics_that_point_elsewhere(ip: Any, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    listed = ip.run_line_magic("noesis", f"list --runs-dir {empty}")
    said = listed._repr_html_()
    assert "%noesis list --runs-dir &lt;folder&gt;" in said and "%noesis runs-dir &lt;folder&gt;" in said, said
    assert "config.set" not in said
    before = config.runs_dir()
    try:
        ip.run_line_magic("noesis", f"runs-dir {empty}")  # as it says
        assert Path(config.runs_dir()).resolve() == empty.resolve()
    finally:
        config.set(runs_dir=str(before))
    assert re.search(r"no runs in .* yet", said)
