"""A run another user made unreadable (its folder or one of its files ``chmod`` away from the reader): every frame
loads the others, names the problem in one ``LoadProblemsWarning``, and reads the run's status as unknown (NA),
never as ``running``: a run that cannot be read may well have ended.

The readers run in a subprocess under ``setpriv`` without the capabilities that let root read any file, so the
kernel's own ``EACCES`` is what they meet (as a user reading a shared runs folder does).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import noesis_nb

from ..frames.runkit import writer_adapter

pytestmark = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0 or shutil.which("setpriv") is None,
    reason="needs root (to hand a run to another user) and setpriv (to read without root's file access)",
)

_NOBODY = 65534

_READ = r"""
import json, sys, warnings
import noesis_nb
from noesis_nb import plots
root = sys.argv[1]
out = {}
for name in ("runs_df", "tools_df", "events_df", "usage_df"):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            df = getattr(noesis_nb, name)(root)
        except BaseException as exc:
            out[name] = {"raised": f"{type(exc).__name__}: {exc}"}
            continue
    said = [str(w.message) for w in caught if type(w.message).__name__ == "LoadProblemsWarning"]
    got = {"warnings": said, "errors": [e["path"] for e in df.attrs.get("errors", [])],
           "episodes": sorted(set(df["episode_id"].astype(str)))}
    if name == "runs_df":
        got["status"] = {str(e): (None if s != s else str(s)) for e, s in zip(df["episode_id"], df["status"].astype(object))}
        got["plot"] = type(plots.duration_by_adapter(df)).__name__
        got["waiting"] = {str(e): (None if w != w else float(w)) for e, w in zip(df["episode_id"], df["waiting_s"])}
    out[name] = got
print(json.dumps(out))
"""


def _read_without_root(root: Path) -> dict:
    """The frames of ``root`` as root without CAP_DAC_OVERRIDE / CAP_DAC_READ_SEARCH sees them."""
    drop = "-dac_override,-dac_read_search,-fowner"
    done = subprocess.run(
        ["setpriv", f"--bounding-set={drop}", f"--inh-caps={drop}", "--", sys.executable, "-c", _READ, str(root)],
        capture_output=True,
        text=True,
        timeout=240,
        env={**os.environ, "PYTHONPATH": str(Path(noesis_nb.__file__).parent.parent)},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _give_away(path: Path, mode: int) -> None:
    """``path`` (and what is in it) owned by another user, with ``mode``."""
    os.lchown(path, _NOBODY, _NOBODY)
    for folder, dirs, files in os.walk(path):
        for name in [folder, *(os.path.join(folder, n) for n in dirs + files)]:
            os.lchown(name, _NOBODY, _NOBODY)
    os.chmod(path, mode)


def _check_every_frame(seen: dict, bad: str, good: str) -> None:
    for name, got in seen.items():
        assert "raised" not in got, f"{name}: {got}"
        assert len(got["warnings"]) == 1, f"{name}: {got['warnings']}"
        assert any(bad in path for path in got["errors"]), f"{name} does not name {bad}: {got['errors']}"
    assert seen["runs_df"]["status"][good] == "ok"
    assert seen["runs_df"]["status"][bad] is None  # unknown, not running
    assert seen["runs_df"]["waiting"] == {bad: None, good: 0.0}  # a wait that cannot be read is unknown, not none
    assert seen["runs_df"]["plot"] == "Figure"


def test_a_run_folder_of_another_user_is_unknown_in_every_frame(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    sealed = noesis_nb.solve("write a file", using=writer_adapter, runs_dir=runs, approver="auto")  # sealed ok, with a tool call
    good = noesis_nb.solve("write a file", using=writer_adapter, runs_dir=runs, approver="auto")
    _give_away(runs / sealed, 0o700)
    _check_every_frame(_read_without_root(runs), sealed, good)


@pytest.mark.parametrize(
    "parts",
    [
        ("summary.json", "events.jsonl"),
        ("summary.json", "events.jsonl", "final.json", "manifest.json", "state.json"),
        ("tool_invocations",),
        ("tool_invocations/x-python/prepared",),
        ("tool_invocations/executions",),
    ],
)
def test_files_of_a_run_another_user_keeps_are_problems_not_a_crash(tmp_path: Path, parts: tuple[str, ...]) -> None:
    runs = tmp_path / "runs"
    bad = noesis_nb.solve("write a file", using=writer_adapter, runs_dir=runs, approver="auto")
    good = noesis_nb.solve("write a file", using=writer_adapter, runs_dir=runs, approver="auto")
    for part in parts:
        _give_away(runs / bad / part, 0o700 if (runs / bad / part).is_dir() else 0o600)
    seen = _read_without_root(runs)
    for name, got in seen.items():
        assert "raised" not in got, f"{name}: {got}"
        assert len(got["warnings"]) <= 1, f"{name}: {got['warnings']}"
    assert seen["runs_df"]["status"][good] == "ok"
    status = seen["runs_df"]["status"][bad]
    if "summary.json" in parts:
        assert status in (None, "ok"), status  # never a guess of running
    else:
        assert status == "ok"
    assert any(bad in path for path in seen["tools_df"]["errors"] + seen["runs_df"]["errors"]), seen
