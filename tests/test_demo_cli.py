"""``python -m noesis_nb.demo`` as a newcomer types it: its help names the command, and a bad ``--runs-dir`` ends on
one line naming the value and the fix (exit 1), not on a traceback."""

import os
import subprocess
import sys


def _demo(*args: str, runs_env: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "NOESIS_RUNS_DIR"}
    if runs_env is not None:
        env["NOESIS_RUNS_DIR"] = runs_env
    command = [sys.executable, "-m", "noesis_nb.demo", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, env=env)


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
