"""The seal key: made once per user, readable by that user alone, agreed on by processes starting together,
and replaced by a key for this process alone where none can be kept (its runs are then its own to trust)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import time
from pathlib import Path

from noesis_nb.store.seal import load_key

_FIRST_USE = """
import sys, time
from pathlib import Path
from noesis_nb.store.seal import load_key

while time.time() < float(sys.argv[2]):  # both start together
    pass
print(load_key(Path(sys.argv[1])).hex())
"""


def test_the_key_file_is_made_once_and_readable_by_its_user_alone(tmp_path: Path) -> None:
    path = tmp_path / "config" / "noesis_nb" / "seal.key"
    key = load_key(path)
    assert key is not None and len(key) == 32
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert load_key(path) == key == path.read_bytes()


def test_two_processes_making_the_key_at_once_agree_on_one(tmp_path: Path) -> None:
    path = tmp_path / "config" / "noesis_nb" / "seal.key"
    go = str(time.time() + 1.5)
    procs = [
        subprocess.Popen([sys.executable, "-c", _FIRST_USE, str(path), go], stdout=subprocess.PIPE, text=True) for _ in range(2)
    ]
    keys = {p.communicate(timeout=120)[0].strip() for p in procs}
    assert keys == {path.read_bytes().hex()}
    assert [p.name for p in path.parent.iterdir()] == ["seal.key"]  # no temp file left


def test_a_key_others_may_read_is_not_trusted(tmp_path: Path) -> None:
    path = tmp_path / "seal.key"
    path.write_bytes(os.urandom(32))
    path.chmod(0o644)
    assert load_key(path) is None


_NOWHERE_TO_KEEP = """
import sys
import noesis_nb
from noesis_nb.frames import eventblocks

async def agent(task, ctx):
    ctx.emit("note", {"text": "nothing secret here"})
    return "done"

if sys.argv[2] == "write":
    noesis_nb.solve("plain", using=agent, runs_dir=sys.argv[1], approver="auto")
calls = []
screen = eventblocks.shown_records
eventblocks.shown_records = lambda evs, *rest: (calls.append(1), screen(evs, *rest))[1]
noesis_nb.events_df(sys.argv[1], cache=False)
print(len(calls))
"""


def test_with_no_place_for_a_key_a_process_trusts_only_its_own_runs(tmp_path: Path) -> None:
    """The config dir is a file (no folder can be made there): the process seals with a key of its own, reads
    its run unscreened, and another process (another key) screens it."""
    blocked = tmp_path / "config"
    blocked.write_text("not a folder")
    runs_dir = tmp_path / "runs"
    env = {**os.environ, "XDG_CONFIG_HOME": str(blocked)}
    for step, screened in (("write", "0"), ("read", "1")):  # the writer's own read, then a fresh process's
        argv = [sys.executable, "-c", _NOWHERE_TO_KEEP, str(runs_dir), step]
        done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == screened
    assert blocked.read_text() == "not a folder"


_WHERE = "from noesis_nb.store.seal import key_path; print(key_path())"


def test_a_relative_xdg_config_home_is_ignored(tmp_path: Path) -> None:
    """The XDG spec says a relative value is ignored: no key is made under the folder the process runs in."""
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    home.mkdir()
    env = {**os.environ, "XDG_CONFIG_HOME": "cfg", "HOME": str(home)}
    argv = [sys.executable, "-c", _WHERE]
    done = subprocess.run(argv, cwd=project, env=env, capture_output=True, text=True, timeout=120, check=True)
    where = Path(done.stdout.strip())
    assert where.is_absolute() and project not in where.parents
    assert where.parent.parent == home / ".config"


def test_a_relative_home_keeps_no_key_under_the_working_folder(tmp_path: Path) -> None:
    """With ``HOME`` relative (and no absolute ``XDG_CONFIG_HOME``) no place is known: the process seals with a key
    of its own and makes no file under the folder it runs in."""
    project = tmp_path / "project"
    project.mkdir()
    env = {**os.environ, "HOME": "notebooks"}
    env.pop("XDG_CONFIG_HOME", None)
    code = "from noesis_nb.store.seal import key_path, seal_key; print(key_path()); print(len(seal_key()))"
    done = subprocess.run([sys.executable, "-c", code], cwd=project, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["None", "32"]
    assert list(project.rglob("*")) == []


def test_a_key_path_that_is_no_regular_file_is_not_trusted_and_never_blocks(tmp_path: Path) -> None:
    """A FIFO, a folder, an empty file or a link at the key's place: the process seals with a key of its own at
    once (opening a FIFO to read waited for a writer that never came: every episode hung at its end)."""
    config = tmp_path / "config" / "noesis_nb"
    config.mkdir(parents=True)
    other = tmp_path / "elsewhere.key"
    other.write_bytes(os.urandom(32))
    other.chmod(0o600)
    makers = {
        "fifo": lambda p: os.mkfifo(p, 0o600),
        "folder": lambda p: p.mkdir(mode=0o700),
        "empty": lambda p: p.touch(mode=0o600),
        "link": lambda p: p.symlink_to(other),
    }
    code = "from noesis_nb.store.seal import key_path, load_key; print(load_key(key_path()))"
    for name, make in makers.items():
        key = config / "seal.key"
        make(key)
        env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config")}
        done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0 and done.stdout.strip() == "None", (name, done.stderr)
        key.rmdir() if key.is_dir() and not key.is_symlink() else key.unlink()
