"""``python -m noesis_nb.demo`` as a newcomer types it: its help names the command, and a bad ``--runs-dir`` ends on
one line naming the value and the fix (exit 1), not on a traceback."""

import subprocess
import sys


def _demo(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "noesis_nb.demo", *args], capture_output=True, text=True, timeout=120)


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
