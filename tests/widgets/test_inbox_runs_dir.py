"""``inbox(runs_dir=…)`` takes the keyword every other reader takes (``show``, ``list_runs``, ``start``); before, it
was a bare TypeError. Naming the folder twice (``root`` and ``runs_dir``) is refused, naming both."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.errors import InvalidOptionError


def test_runs_dir_names_the_inbox_folder(runs_dir: Path, tmp_path: Path, nnb: Any, comm_log: list) -> None:
    run = runs_dir / noesis_nb.solve(
        "append", using=nnb.make_tool_adapter(nnb.side_effect_argv(tmp_path / "x")), runs_dir=runs_dir
    )
    by_keyword = noesis_nb.inbox(runs_dir=runs_dir)
    by_position = noesis_nb.inbox(runs_dir)
    assert by_keyword.scan.root == by_position.scan.root
    assert [i.episode_id for i in by_keyword.scan.items] == [i.episode_id for i in by_position.scan.items] == [run.name]


def test_root_and_runs_dir_together_are_refused(runs_dir: Path, tmp_path: Path, comm_log: list) -> None:
    with pytest.raises(InvalidOptionError, match=r"root=.* and runs_dir=.* both name the runs' folder; pass one of them"):
        noesis_nb.inbox(tmp_path, runs_dir=runs_dir)
