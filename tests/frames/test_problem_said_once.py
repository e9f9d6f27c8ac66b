"""A run file that cannot be read is one problem in each frame, however many of the frame's readers met it.

runs_df reads an unsealed run's events for its row and, its summary's sums hiding priced parts, again for its
calls; each reader reports the file with the class of problem it makes, and the same fact (path, line, reason) is
listed once.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import noesis_nb

from .runkit import llm_adapter


@pytest.mark.parametrize("how", ["folder", "link_out"])
@pytest.mark.parametrize("frame", ["runs_df", "events_df", "usage_df"])
def test_an_unreadable_events_log_is_one_problem(tmp_path: Path, how: str, frame: str) -> None:
    root = tmp_path / "runs"
    ep = noesis_nb.solve("answer a question", using=llm_adapter, runs_dir=root)
    for name in ("final.json", "manifest.json"):  # a run left unsealed: its calls are taken from its summary's sums
        (root / ep / name).unlink()
    log = root / ep / "events.jsonl"
    log.unlink()
    if how == "folder":
        log.mkdir()
    else:
        outside = tmp_path / "elsewhere.txt"
        outside.write_text("not the run's\n")
        os.symlink(outside, log)
    df = getattr(noesis_nb, frame)(root, cache=False)
    said = [e for e in df.attrs["errors"] if e["path"] == str(log) and "events are not read" in e["reason"]]
    assert len(said) == 1, df.attrs["errors"]
