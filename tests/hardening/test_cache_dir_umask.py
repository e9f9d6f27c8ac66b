"""The default cache folder made group-writable by an earlier release (umask 002) is made private, not refused.

Releases before made ``~/.cache/noesis_nb`` with the process's umask: ``002`` on many desktops leaves it
group-writable. The check that keeps other users' files out then refused it, so every load warned and ran
uncached after an upgrade. A folder of this user's that noesis_nb makes is now made private (0700) instead; a
``$NOESIS_NB_CACHE_DIR`` the user chose is left as it is, and refused with its fix. Real processes, real files.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb._cachedir import others_may_write
from noesis_nb.frames.fs import RACY_NS

REPO = Path(__file__).resolve().parents[2]
LOAD = """
import sys, warnings
warnings.simplefilter("always")
import noesis_nb
noesis_nb.runs_df(sys.argv[1]); noesis_nb.usage_df(sys.argv[1])
"""


def _load(runs: Path, env: dict[str, str]) -> str:
    time.sleep(RACY_NS / 1e9 * 3)  # the run's files settled: a load may keep them in the cache
    done = subprocess.run(
        [sys.executable, "-c", LOAD, str(runs)],
        env={**os.environ, **env, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return done.stderr


@pytest.mark.parametrize("group", ["own group", "a group with other users"])
def test_an_old_group_writable_default_cache_is_made_private_and_used(
    tmp_path: Path, request: pytest.FixtureRequest, group: str
) -> None:
    runs = tmp_path / "runs"
    for task in ("a", "b"):  # a folder of runs (one run alone is loaded as that run, not as a folder)
        noesis_nb.solve(task, using=lambda task, ctx: "ok", runs_dir=runs)
    home = tmp_path / "home"
    old = home / ".cache" / "noesis_nb" / "runs-index"
    old.mkdir(parents=True)
    shared = request.getfixturevalue("group_with_others") if group == "a group with other users" else None
    for folder in (home / ".cache", old.parent, old):
        folder.chmod(0o775)  # as an earlier release made them under umask 002
        if shared is not None:  # others could write it: it must be made private (a private group is fine as it is)
            os.chown(folder, -1, shared)
    if shared is not None:
        assert others_may_write(old.stat()), "the folder was meant to be writable by other users before the load"
    env = {"HOME": str(home), "XDG_CACHE_HOME": "", "NOESIS_NB_CACHE_DIR": ""}
    said = _load(runs, env)
    assert "may be written by other users" not in said, said
    assert not others_may_write(old.parent.stat()) and not others_may_write(old.stat())
    if shared is not None:
        assert stat.S_IMODE(old.parent.stat().st_mode) == stat.S_IMODE(old.stat().st_mode) == 0o700
    assert any(old.iterdir()), "the cache was not used"
    assert stat.S_IMODE((home / ".cache").stat().st_mode) == 0o775  # not ours: left as it is


def test_a_chosen_cache_folder_others_may_write_is_refused_and_left_as_it_is(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    for task in ("a", "b"):  # a folder of runs (one run alone is loaded as that run, not as a folder)
        noesis_nb.solve(task, using=lambda task, ctx: "ok", runs_dir=runs)
    chosen = tmp_path / "team-cache"
    chosen.mkdir()
    chosen.chmod(0o777)
    said = _load(runs, {"NOESIS_NB_CACHE_DIR": str(chosen)})
    assert "may be written by other users" in said and "chmod 700" in said, said
    assert stat.S_IMODE(chosen.stat().st_mode) == 0o777 and not any(chosen.iterdir())
