"""A manifest.json with no final.json beside a run paused on disk is no seal noesis_nb wrote: resume_run says which
file stops it and what to do (not "already sealed"); done, the run resumes and seals with its own manifest."""

from __future__ import annotations

import shutil
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.frames import clear_cache
from noesis_nb.runtime.resume import NothingToResume


def _agent(task: str, ctx: Any) -> Any:
    ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=100, output_tokens=10)
    ctx.tool("fs.write_file", {"argv": [sys.executable, "-c", "print(1)"]}, effect="write", risk="high")
    return "done"


def _runs(run: Path) -> Any:
    clear_cache()
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        return noesis_nb.runs_df(run).iloc[0]


@pytest.mark.parametrize("stray", [b"{}", b'{"files": []}'])
def test_stray_manifest_on_paused_run(tmp_path: Path, stray: bytes) -> None:
    root = tmp_path / "runs"
    run = root / noesis_nb.solve("write it", using=_agent, runs_dir=root, approver="ask")
    assert _runs(run).status == "paused"
    noesis_nb.approve_draft(run, approver_id="ana")
    (run / "manifest.json").write_bytes(stray)
    assert _runs(run).status == "paused"

    log = (run / "events.jsonl").read_bytes()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        noesis_nb.resume_run(run)
    said = [str(w.message) for w in caught if issubclass(w.category, NothingToResume)]
    assert len(said) == 1
    assert "already sealed" not in said[0]
    assert str(run / "manifest.json") in said[0] and "Move that manifest.json out" in said[0]
    assert (run / "events.jsonl").read_bytes() == log  # nothing appended

    # what the message says to do, done: the run resumes, runs its decided draft and seals with its own manifest
    shutil.move(run / "manifest.json", tmp_path / "stray.json")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        noesis_nb.resume_run(run)
    assert not [w for w in caught if issubclass(w.category, NothingToResume)]
    row = _runs(run)
    assert row.status == "ok" and row.sealed and row.manifest_ok
    assert (run / "final.json").is_file()
