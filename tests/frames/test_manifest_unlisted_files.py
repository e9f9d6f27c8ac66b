"""A file put in a sealed run after its seal, in a folder the quick check lists anyway, makes ``manifest_ok`` False.

The quick check compares the names those listings give with the manifest's (no extra system call); a lock or
temp file, which no manifest lists, is not the run's and leaves the verdict alone.
"""

from __future__ import annotations

import shutil
import warnings
from pathlib import Path

import pytest

import noesis_nb

from .runkit import add_one

UNLISTED = "not listed in manifest.json"  # what the problem row says of such a file

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "noesis-adr008-allow-run"


def _runs(root: Path, **opts: object) -> tuple[object, list[object]]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = noesis_nb.runs_df(str(root), cache=False, **opts)
    return df, list(df.attrs.get("errors") or [])


def _sealed_fixture(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "runs"
    shutil.copytree(FIXTURE, root)
    return root, root / "ep_adr008_allow"


def test_the_fixture_run_copied_is_sound(tmp_path: Path) -> None:
    root, _ = _sealed_fixture(tmp_path)
    df, errors = _runs(root)
    assert bool(df["manifest_ok"].iloc[0]) is True
    assert errors == []


@pytest.mark.parametrize(
    "planted",
    ["tool_invocations/prepared/planted.json", "tool_invocations/x-python/prepared/d1.json"],
)
def test_a_file_planted_in_a_listed_folder_fails_the_quick_check(tmp_path: Path, planted: str) -> None:
    root, run = _sealed_fixture(tmp_path)
    path = run / planted
    path.parent.mkdir(parents=True)
    path.write_text('{"planted": true}')
    for verify in ("quick", "size"):  # the tool folders a run's drafts are counted from are listed in both
        df, errors = _runs(root, verify=verify)
        assert bool(df["manifest_ok"].iloc[0]) is False
        said = [e for e in errors if UNLISTED in e["reason"]]
        assert [Path(e["path"]).relative_to(run).as_posix() for e in said] == [planted]


@pytest.mark.parametrize("transient", [".planted.json.tmp", "d1.json.lock", "d1.claim"])
def test_a_writers_lock_or_temp_file_is_not_the_runs(tmp_path: Path, transient: str) -> None:
    root, run = _sealed_fixture(tmp_path)
    folder = run / "tool_invocations" / "prepared"
    folder.mkdir(parents=True)
    (folder / transient).write_text("x")
    df, errors = _runs(root)
    assert bool(df["manifest_ok"].iloc[0]) is True
    assert not [e for e in errors if UNLISTED in e["reason"]]


def test_a_record_planted_beside_a_sealed_runs_own_records(tmp_path: Path) -> None:
    """A run sealed by noesis_nb with an executed tool: its manifest lists records in executions/, which the quick
    check lists; a second record put there after the seal is said, its own records are not."""

    def agent(task: str, ctx: object) -> object:
        return ctx.tool("calc.add", {"kwargs": {"x": 1}}, protocol="python", fn=add_one)  # type: ignore[attr-defined]

    root = tmp_path / "runs"
    ep = noesis_nb.solve("add one", using=agent, runs_dir=root)
    run = root / ep
    executions = run / "tool_invocations" / "executions"
    assert any(executions.iterdir())
    df, errors = _runs(root)
    assert bool(df["manifest_ok"].iloc[0]) is True and errors == []
    (executions / "d_planted.json").write_text('{"result": 2}')
    df, errors = _runs(root)
    assert bool(df["manifest_ok"].iloc[0]) is False
    assert [Path(e["path"]).name for e in errors if UNLISTED in e["reason"]] == ["d_planted.json"]
