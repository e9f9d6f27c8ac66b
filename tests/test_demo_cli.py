"""``python -m noesis_nb.demo`` as a newcomer types it: its help names the command, and a bad ``--runs-dir`` ends on
one line naming the value and the fix (exit 1), not on a traceback."""

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest


def _demo(*args: str, runs_env: str | None = None, **run: Any) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "NOESIS_RUNS_DIR"}
    if runs_env is not None:
        env["NOESIS_RUNS_DIR"] = runs_env
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[1])  # this checkout's package, whatever the cwd
    env.update(run.pop("env", {}))
    command = [sys.executable, "-m", "noesis_nb.demo", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, env=env, **run)


def test_help_names_the_command_as_typed():
    done = _demo("--help")
    assert done.returncode == 0
    assert done.stdout.startswith("usage: python -m noesis_nb.demo ")
    assert "``" not in done.stdout  # no reStructuredText markup in a terminal


def test_a_runs_dir_that_is_a_file_ends_on_one_line(tmp_path):
    taken = tmp_path / "notes.txt"
    taken.write_text("mine\n")
    done = _demo("--runs-dir", str(taken))
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("python -m noesis_nb.demo: RunsDirError: ")
    assert str(taken) in line and "a file, not a folder" in line
    assert taken.read_text() == "mine\n"  # nothing written over it


def test_a_runs_dir_that_cannot_be_created_ends_on_one_line(tmp_path):
    blocked = tmp_path / "file"
    blocked.write_text("")
    done = _demo("--runs-dir", str(blocked / "runs"))  # under a file: no folder can be made there
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert str(blocked / "runs") in line and "RunsDirError" in line


def test_the_runs_dir_set_in_the_environment_is_where_the_demo_writes(tmp_path):
    """Settings come from ``NOESIS_*`` variables: the demo wrote to a temp dir whatever ``$NOESIS_RUNS_DIR`` said."""
    runs = tmp_path / "my runs"
    done = _demo(runs_env=f" {runs} ")  # pasted with spaces around it: the folder itself
    assert done.returncode == 0, done.stderr
    (run,) = runs.iterdir()
    assert (run / "manifest.json").is_file() and str(run) in done.stdout
    elsewhere = tmp_path / "given"
    assert _demo("--runs-dir", str(elsewhere), runs_env=str(runs)).returncode == 0  # the option wins
    assert len(list(runs.iterdir())) == 1 and len(list(elsewhere.iterdir())) == 1


def test_a_runs_dir_variable_with_a_control_character_ends_on_one_line(tmp_path):
    done = _demo(runs_env=f"{tmp_path}/runs\x07")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert "NOESIS_RUNS_DIR" in line and "control character" in line


def test_an_empty_runs_dir_is_refused_as_start_refuses_it(tmp_path):
    """``--runs-dir ''`` wrote into the working folder (``Path('')`` is '.'), where ``start(runs_dir='')`` refuses."""
    done = _demo("--runs-dir", "", cwd=tmp_path)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert "runs_dir='' names no folder" in line, line
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(not Path("/proc/1").is_dir(), reason="a /proc file system")
def test_a_runs_dir_that_takes_no_folders_is_said_so(tmp_path):
    """/proc/1 is a folder no folder can be made in: 'not writable (No such file or directory)' contradicted itself."""
    done = _demo("--runs-dir", "/proc/1")
    assert done.returncode == 1
    (line,) = done.stderr.strip().splitlines()
    assert "is not writable" not in line and "takes no new folders" in line and "a folder on a disk" in line, line


def test_a_demo_writing_its_runs_elsewhere_leaves_nothing_in_the_temp_dir(tmp_path):
    temp = tmp_path / "temp"
    temp.mkdir()
    done = _demo("--runs-dir", str(tmp_path / "runs"), env={"TMPDIR": str(temp)})
    assert done.returncode == 0, done.stderr
    assert "note written: True" in done.stdout
    assert list(temp.iterdir()) == []
    kept = _demo(env={"TMPDIR": str(temp)})  # no runs dir given: the runs are in the temp folder, which stays
    assert kept.returncode == 0, kept.stderr
    (folder,) = temp.iterdir()
    assert str(folder) in kept.stdout


def test_a_runs_dir_not_writable_names_the_option_to_fix(tmp_path):
    """The fix said was the library's ``pass runs_dir= a writable directory``, which no shell takes: ``--runs-dir``."""
    done = _demo("--runs-dir", "/proc/nope")
    assert done.returncode == 1
    (line,) = done.stderr.strip().splitlines()
    assert "--runs-dir '/proc/nope' is not writable" in line and "pass --runs-dir a writable directory" in line, line
    assert "runs_dir=" not in line, line
