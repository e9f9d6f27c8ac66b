"""One rule for ids at their edges. A new run's id is a folder name every copy of the root can hold: no Windows
device name (``CON``, ``aux``, ``NUL.txt``), no final dot (Windows drops it), and not one differing only by case from
a run the root holds (one folder on macOS or Windows), as ``Batches`` is refused; each refusal names the value and
the fix, and writes nothing. Runs already named so still read and resume. White space around a draft reference is
refused naming it, as around an episode id (it was stripped silently)."""

from __future__ import annotations

import os
import warnings
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.errors import InvalidIdError, RunExistsError
from tests.runtime.agents import paused_on_disk


def _done(task: str, ctx: Any) -> str:
    return "done"


@pytest.mark.parametrize("episode_id", ["CON", "aux", "NUL.txt", "com1", "Lpt9.log", "ep.", "ep_x.1."])
def test_names_a_windows_copy_cannot_hold_are_refused_for_new_runs(tmp_path: Path, episode_id: str) -> None:
    root = tmp_path / "runs"
    with pytest.raises(InvalidIdError) as caught:
        noesis_nb.solve("t", using=_done, runs_dir=root, episode_id=episode_id)
    said = str(caught.value)
    assert f"'{episode_id}'" in said and "leave episode_id out" in said
    assert not root.exists() or not os.listdir(root)


@pytest.mark.parametrize("episode_id", ["console", "aux_1", "nul_txt", "com10", "ep.1", "CONFIG"])
def test_names_near_them_are_taken(tmp_path: Path, episode_id: str) -> None:
    assert noesis_nb.solve("t", using=_done, runs_dir=tmp_path, episode_id=episode_id) == episode_id


def test_an_id_differing_by_case_from_a_run_of_the_root_is_refused_naming_it(tmp_path: Path) -> None:
    noesis_nb.solve("t", using=_done, runs_dir=tmp_path, episode_id="ep_x")
    with pytest.raises(RunExistsError) as caught:
        noesis_nb.solve("t", using=_done, runs_dir=tmp_path, episode_id="ep_X")
    assert "'ep_x'" in str(caught.value) and "'ep_X'" in str(caught.value) and "by case only" in str(caught.value)
    assert sorted(os.listdir(tmp_path)) == ["ep_x"]
    assert noesis_nb.solve("t", using=_done, runs_dir=tmp_path / "other", episode_id="ep_X") == "ep_X"  # another root


def test_runs_already_named_so_still_read_and_resume(tmp_path: Path) -> None:
    root = tmp_path / "runs"
    out = tmp_path / "out.txt"
    run, _ = paused_on_disk(root, out)
    named = root / "CON"
    run.rename(named)  # a run made elsewhere (or by an older version) under such a name
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # its files name the id it was made under: said as a problem of the run
        assert list(noesis_nb.runs_df(root)["episode_id"]) == ["CON"]
        noesis_nb.approve_draft("CON", runs_dir=root, approver_id="ana")
        noesis_nb.resume_run("CON", runs_dir=root)
    assert out.read_text() == "one\n" and (named / "manifest.json").is_file()


@pytest.mark.parametrize("around", ["{}\n", " {}", "{}\t"])
def test_white_space_around_a_draft_reference_is_refused_naming_it(tmp_path: Path, around: str) -> None:
    run, draft = paused_on_disk(tmp_path / "runs", tmp_path / "out.txt")
    ref = around.format(draft)
    with pytest.raises(InvalidIdError) as caught:
        noesis_nb.approve_draft(run, ref, approver_id="ana")
    assert "white space around it" in str(caught.value) and f"pass '{draft}'" in str(caught.value)
    assert not (run / "tool_invocations" / "approvals").exists() or not os.listdir(run / "tool_invocations" / "approvals")
    with pytest.raises(InvalidIdError, match="white space around it"):  # an episode id the same way, as before
        noesis_nb.approve_draft(around.format(run.name), draft, runs_dir=run.parent, approver_id="ana")
