"""A cache folder another user can write to, links planted in it, files another user wrote, and cache or key
settings that would put files in the working folder: nothing is read, written or deleted outside the cache, no
file another user wrote is unpickled, and one warning names what is wrong with its fix. Real processes, real files;
the other user is ``nobody`` (the parts needing it run as root, which may give files away)."""

from __future__ import annotations

import os
import pwd
import subprocess
import sys
import time
from pathlib import Path

import pytest

from noesis_nb.frames.fs import RACY_NS

REPO = Path(__file__).resolve().parents[2]
ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
NOBODY = pwd.getpwnam("nobody").pw_uid if ROOT else -1
as_root = pytest.mark.skipif(not ROOT, reason="giving a file to another user needs root")

_WRITE = """
import noesis_nb, sys
for task in ("precious", "other"):  # a folder of runs (one run alone is loaded as that run, not as a folder)
    print(noesis_nb.solve(task, using=lambda t, c: 1, runs_dir=sys.argv[1]))
"""
_LOAD = """
import sys, noesis_nb
df = noesis_nb.runs_df(sys.argv[1])
noesis_nb.usage_df(sys.argv[1])
noesis_nb.runs_df(sys.argv[1])
print(len(df))
if len(sys.argv) > 2:
    noesis_nb.frames.clear_cache()
"""


def _python(code: str, *args: str, env: dict[str, str], cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        env={**env, "PYTHONPATH": str(REPO)},
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return done


def _run(runs: Path) -> Path:
    episode = _python(_WRITE, str(runs), env=dict(os.environ)).stdout.split()[0]
    time.sleep(RACY_NS / 1e9 * 3)  # its files settled: a load may keep them in the cache
    return runs / episode


def _give_away(path: Path) -> None:
    if ROOT:
        os.chown(path, NOBODY, -1, follow_symlinks=False)


@pytest.mark.parametrize("root_mode", [0o1777, 0o700])
def test_a_link_planted_at_runs_index_deletes_and_writes_nothing_through_it(tmp_path: Path, root_mode: int) -> None:
    """``runs-index`` a link to a sealed run (clear_cache removed its json documents) or to another folder (runs_df
    wrote the index and the pickled frame there): in a shared (1777) cache or a private one the link is not used."""
    run = _run(tmp_path / "runs")
    before = sorted(p.name for p in run.iterdir())
    cache = tmp_path / "shared"
    cache.mkdir()
    cache.chmod(root_mode)
    (cache / "runs-index").symlink_to(run)
    _give_away(cache / "runs-index")
    env = {**os.environ, "NOESIS_NB_CACHE_DIR": str(cache)}

    done = _python(_LOAD, str(run.parent), "clear", env=env)
    assert done.stdout.split()[-1] == "2"  # the load works, uncached
    assert sorted(p.name for p in run.iterdir()) == before
    said = [line for line in done.stderr.splitlines() if "noesis_nb cache not used" in line]
    assert len(said) == 1, done.stderr
    assert (str(cache) if root_mode == 0o1777 else str(cache / "runs-index")) in said[0]
    assert ("chmod 700" if root_mode == 0o1777 else "remove it") in said[0]

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (cache / "runs-index").unlink()
    (cache / "runs-index").symlink_to(elsewhere)
    _give_away(cache / "runs-index")
    _python(_LOAD, str(run.parent), env=env)
    assert list(elsewhere.iterdir()) == []
    assert sorted(p.name for p in cache.iterdir()) == ["runs-index"]  # nothing written in a shared cache either


_CRAFT = """
import os, pickle, sys
from pathlib import Path
from noesis_nb.frames import keptframe, runindex

class Payload:
    def __reduce__(self):
        return (os.system, ("touch " + sys.argv[2],))

index = runindex.index_for(sys.argv[1])
meta = pickle.dumps(Payload())
body = len(meta).to_bytes(8, "big") + meta
path = keptframe.frame_path(index)
path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
path.write_bytes(runindex.cache_tag(keptframe._FORMAT, body) + b"\\n" + body)
path.chmod(0o600)
print(path)
"""


@as_root
def test_a_kept_frame_another_user_wrote_is_never_unpickled(tmp_path: Path) -> None:
    """Even with a tag that checks (the key leaked, or the file copied from this user's cache), a pickled frame
    owned by another user is not loaded: unpickling it would run its code."""
    run = _run(tmp_path / "runs")
    cache = tmp_path / "cache"
    env = {**os.environ, "NOESIS_NB_CACHE_DIR": str(cache)}
    marker = tmp_path / "ran"
    frame = Path(_python(_CRAFT, str(run.parent), str(marker), env=env).stdout.split()[-1])
    _give_away(frame)
    _python(_LOAD, str(run.parent), env=env)
    assert not marker.exists()


@as_root
def test_a_cache_folder_of_another_user_is_not_used(tmp_path: Path) -> None:
    run = _run(tmp_path / "runs")
    cache = tmp_path / "theirs"
    cache.mkdir(mode=0o755)
    _give_away(cache)
    done = _python(_LOAD, str(run.parent), "clear", env={**os.environ, "NOESIS_NB_CACHE_DIR": str(cache)})
    assert list(cache.iterdir()) == []
    assert f"{str(cache)!r} is owned by another user" in done.stderr


@pytest.mark.parametrize(
    "setting", [{"NOESIS_NB_CACHE_DIR": " "}, {"XDG_CACHE_HOME": "relcache"}, {"NOESIS_NB_CACHE_DIR": "relcache"}]
)
def test_no_cache_file_lands_in_the_working_folder(tmp_path: Path, setting: dict[str, str]) -> None:
    """A blank ``NOESIS_NB_CACHE_DIR`` is unset, a relative ``XDG_CACHE_HOME`` ignored (as the XDG spec says, and as
    the seal key's ``XDG_CONFIG_HOME``); a relative ``NOESIS_NB_CACHE_DIR`` is named, and no cache is used."""
    run = _run(tmp_path / "runs")
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("NOESIS_NB_CACHE_DIR", "XDG_CACHE_HOME")}
    done = _python(_LOAD, str(run.parent), env={**env, "HOME": str(home), **setting}, cwd=project)
    assert list(project.rglob("*")) == []
    if setting.get("NOESIS_NB_CACHE_DIR") == "relcache":
        assert "$NOESIS_NB_CACHE_DIR='relcache' is not an absolute path" in done.stderr
        assert not (home / ".cache").exists()
    else:
        assert (home / ".cache" / "noesis_nb" / "runs-index").is_dir()


_SEAL_TWICE = """
import sys, noesis_nb
for _ in range(2):
    noesis_nb.solve("t", using=lambda t, c: 1, runs_dir=sys.argv[1])
"""


@pytest.mark.parametrize("damage", ["mode 0644", "other user", "link"])
def test_an_untrusted_seal_key_is_named_once_with_its_fix(tmp_path: Path, damage: str) -> None:
    """A key file others may read (or another user's, or a link) is not used: every process would seal with a key of
    its own and no run be verified by another, so one warning per process names the file and the fix."""
    if damage == "other user" and not ROOT:
        pytest.skip("giving a file to another user needs root")
    config = tmp_path / "config"
    env = {**os.environ, "XDG_CONFIG_HOME": str(config)}
    _python(_SEAL_TWICE, str(tmp_path / "runs"), env=env)
    key = config / "noesis_nb" / "seal.key"
    if damage == "mode 0644":
        key.chmod(0o644)
    elif damage == "other user":
        _give_away(key)
    else:
        key.rename(tmp_path / "kept.key")
        key.symlink_to(tmp_path / "kept.key")
    done = _python(_SEAL_TWICE, str(tmp_path / "runs"), env=env)
    said = [line for line in done.stderr.splitlines() if "noesis_nb seal key" in line]
    assert len(said) == 1, done.stderr
    assert repr(str(key)) in said[0] and "is not used" in said[0]
    fix = {"mode 0644": "chmod 600", "other user": "owned by another user", "link": "symbolic link"}[damage]
    assert fix in said[0]


def test_a_trusted_key_is_used_silently(tmp_path: Path) -> None:
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config")}
    for _ in range(2):
        done = _python(_SEAL_TWICE, str(tmp_path / "runs"), env=env)
        assert "noesis_nb seal key" not in done.stderr


_LOAD_AND_PROBLEMS = (
    _LOAD
    + """
from noesis_nb import config
print("problems:", [p for p in config.problems() if "NOESIS_NB_CACHE_DIR" in p])
"""
)


@pytest.mark.parametrize("kind", ["file", "fifo", "under a file", "link to nothing"])
def test_a_cache_path_that_is_no_folder_is_named_once(tmp_path: Path, kind: str) -> None:
    """``NOESIS_NB_CACHE_DIR`` naming a regular file, a FIFO or a path under a file: the loads work uncached, one
    warning names the path and its fix (as for a folder others may write), ``config.problems()`` lists it, and the
    path is left as it was."""
    run = _run(tmp_path / "runs")
    target = tmp_path / "cache"
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "link to nothing":
        target.symlink_to(tmp_path / "gone")
    else:
        target.write_bytes(b"")
    cache = target / "sub" if kind == "under a file" else target
    done = _python(_LOAD_AND_PROBLEMS, str(run.parent), env={**os.environ, "NOESIS_NB_CACHE_DIR": str(cache)})
    said = [line for line in done.stderr.splitlines() if "noesis_nb cache not used" in line]
    assert len(said) == 1, done.stderr
    assert repr(str(cache)) in said[0] and "set NOESIS_NB_CACHE_DIR to a folder of your own" in said[0]
    problems = done.stdout.splitlines()[-1]
    assert repr(str(cache)) in problems and "folder" in problems
    assert done.stdout.splitlines()[-2] == "2"
    if kind == "link to nothing":
        assert target.is_symlink() and not (tmp_path / "gone").exists()
        return
    assert target.is_fifo() if kind == "fifo" else target.is_file() and target.read_bytes() == b""
