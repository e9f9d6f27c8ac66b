"""A link in a runs root named like a run (``ep_…``) that leads back to the root, or to a run or label folder the root
holds anyway, is left out (its runs are read once, where they are) and said: one problem naming the link in every
frame's ``attrs["errors"]`` and in ``list_runs(…).problems``, on a cold load and a warm one. Dropped silently, a
run a user linked under a new name would just be absent."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.frames import clear_cache
from noesis_nb.store import list_runs

FIRST = "ep_01M98FQE2ZPFVGQYX4KT3HSYM1"
SECOND = "ep_01M98FQE2ZPFVGQYX4KT3HSYM2"
LABELLED = "ep_01M98FQE2ZPFVGQYX4KT3HLAB1"
FRAMES = ("runs_df", "events_df", "tools_df", "usage_df")


def _run(folder: Path, ep: str) -> None:
    folder.mkdir(parents=True)
    event = {
        "id": f"{ep}-e1",
        "timestamp": "2026-12-07T10:00:01.000000+00:00",
        "episode_id": ep,
        "agent_id": "system",
        "phase": "start",
        "payload": {"task": "x"},
        "evidence_ids": [],
    }
    (folder / "events.jsonl").write_text(json.dumps(event) + "\n")
    (folder / "summary.json").write_text(json.dumps({"episode_id": ep, "task": "t", "outcome": "success"}))


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "runs"
    _run(root / FIRST, FIRST)
    _run(root / SECOND, SECOND)
    _run(root / "label" / LABELLED, LABELLED)
    return root


@pytest.mark.parametrize(
    "target",
    ["the root", "a run of it", "a labelled run of it", "a label of it"],
)
def test_a_link_named_like_a_run_into_the_root_is_one_problem_in_every_reader(root: Path, target: str) -> None:
    leads_to = {
        "the root": root,
        "a run of it": root / FIRST,
        "a labelled run of it": root / "label" / LABELLED,
        "a label of it": root / "label",
    }[target]
    link = root / "ep_01M98FQE2ZPFVGQYX4KT3HL1NK"
    os.symlink(leads_to, link)

    for load in ("cold", "warm"):
        if load == "cold":
            clear_cache()
        for frame in FRAMES:
            df = getattr(noesis_nb, frame)(root)
            said = [e for e in df.attrs["errors"] if e["path"] == str(link)]
            assert len(said) == 1, (load, frame, df.attrs["errors"])
            assert "symbolic link" in said[0]["reason"] and "left out" in said[0]["reason"]
        runs = noesis_nb.runs_df(root)
        assert sorted(runs.episode_id) == sorted([FIRST, SECOND, LABELLED]), load  # each run counted once
    listed = list_runs(None, runs_dir=root)
    assert sorted(r["episode_id"] for r in listed) == sorted([FIRST, SECOND, LABELLED])
    assert [p["path"] for p in listed.problems] == [str(link)]


def test_a_link_named_like_a_run_to_a_run_elsewhere_is_read_and_not_said(root: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere" / "ep_01M98FQE2ZPFVGQYX4KT3HELSE"
    _run(elsewhere, elsewhere.name)
    os.symlink(elsewhere, root / elsewhere.name)
    runs = noesis_nb.runs_df(root)
    assert elsewhere.name in set(runs.episode_id)
    assert not [e for e in runs.attrs["errors"] if elsewhere.name in e["path"]]
