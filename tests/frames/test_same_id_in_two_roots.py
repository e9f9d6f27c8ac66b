"""One episode id in two roots (a copy): every frame reads the first folder in source order, leaves the other out,
and says which was read; nothing of one run is counted twice."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest

import noesis_nb
from noesis_nb.frames import events_df, runs_df, tools_df, usage_df

from .runkit import llm_adapter, writer_adapter


@pytest.fixture()
def two_roots(tmp_path: Path) -> tuple[Path, Path, str]:
    root_a, root_b = tmp_path / "a", tmp_path / "b"
    ep = noesis_nb.solve("write a file", using=writer_adapter, runs_dir=root_a, approver="ask")
    noesis_nb.solve("answer", using=llm_adapter, runs_dir=root_a)
    root_b.mkdir()
    shutil.copytree(root_a / ep, root_b / ep)
    return root_a, root_b, ep


@pytest.mark.parametrize("frame", [runs_df, events_df, tools_df, usage_df])
def test_each_frame_reads_the_first_copy_only(two_roots: tuple[Path, Path, str], frame) -> None:
    root_a, root_b, ep = two_roots
    both = frame([root_a, root_b])
    alone = frame(root_a)
    pd.testing.assert_frame_equal(both, alone)  # the copy adds no row: no events merged, no tokens doubled
    said = [e for e in both.attrs["errors"] if e["path"] == str(root_b / ep)]
    assert len(said) == 1
    assert str(root_a / ep) in said[0]["reason"] and "left out" in said[0]["reason"]


def test_the_other_order_reads_the_other_copy(two_roots: tuple[Path, Path, str]) -> None:
    root_a, root_b, ep = two_roots
    runs = runs_df([root_b, root_a])
    assert runs.loc[runs["episode_id"] == ep, "run_dir"].tolist() == [str(root_b / ep)]
    assert len(runs) == 2
