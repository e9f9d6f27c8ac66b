"""A run copied into the same root under a name that prints like its id is one episode id in two folders.

``ep_…\\u200b…`` (a zero-width space inside), a trailing space, a TAB, or ``ep_\\u202e<the id reversed>`` (a
right-to-left override: prints as the id) read as runs of their own would show rows printing alike and count the
run's tokens again, with nothing said. Each is read as the id it prints as: the first folder in source order is read,
each look-alike left out and reported by its path; a name holding such characters that matches no other is kept and
said, escaped, with the fix.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import noesis_nb

from .runkit import llm_adapter


def _twins(ep: str) -> list[str]:
    return [ep[:-1] + "\u200b" + ep[-1], ep + " ", ep[:8] + "\t" + ep[8:], "ep_\u202e" + ep[3:][::-1]]


@pytest.fixture(scope="module")
def genuine(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    root = tmp_path_factory.mktemp("alike") / "runs"
    ep = noesis_nb.solve("answer a question", using=llm_adapter, runs_dir=root)
    return root, ep


@pytest.mark.parametrize("twin_of", range(4))
def test_a_folder_that_prints_as_a_runs_id_is_that_id_in_two_folders(
    genuine: tuple[Path, str], tmp_path: Path, twin_of: int
) -> None:
    src, ep = genuine
    root = tmp_path / "runs"
    shutil.copytree(src / ep, root / ep)
    alone = noesis_nb.runs_df(root, cache=False)
    twin = _twins(ep)[twin_of]
    shutil.copytree(src / ep, root / twin)
    runs = noesis_nb.runs_df(root, cache=False)
    usage = noesis_nb.usage_df(root, cache=False)
    events = noesis_nb.events_df(root, cache=False)
    assert list(runs["episode_id"]) == [ep]
    assert runs["input_tokens"].sum() == alone["input_tokens"].sum() > 0  # counted once
    assert usage["input_tokens"].sum() == alone["input_tokens"].sum()
    assert set(events["episode_id"]) == {ep}
    for frame in (runs, usage, events):
        said = [e for e in frame.attrs["errors"] if e["path"] in (str(root / twin), str(root / ep))]
        assert len(said) == 1 and "left out" in said[0]["reason"] and "Rename" in said[0]["reason"], frame.attrs["errors"]


@pytest.mark.parametrize("name", ["ep_bell\x07x", "ep_line\nend", "ep_zero\u200bwidth"])
def test_a_folder_name_holding_unseen_characters_is_kept_and_said(genuine: tuple[Path, str], tmp_path: Path, name: str) -> None:
    src, ep = genuine
    root = tmp_path / "runs"
    shutil.copytree(src / ep, root / name)
    runs = noesis_nb.runs_df(root, cache=False)
    assert len(runs) == 1  # a folder that is only read is never refused for its name
    said = [e["reason"] for e in runs.attrs["errors"] if e["path"] == str(root / name)]
    hidden = next(c for c in name if not c.isalnum() and c != "_")
    assert len(said) == 1 and f"U+{ord(hidden):04X}" in said[0] and "rename the folder" in said[0]
    assert name not in said[0] and ascii(name)[1:-1] in said[0]  # escaped, never raw
