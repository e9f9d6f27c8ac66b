"""A cache folder the user chose that only their own group may write is used; one others may write is refused and
listed by ``config.problems()``.

umask-002 desktops give each user a private group (their primary group, no one else in it) and make folders
group-writable: a ``$NOESIS_NB_CACHE_DIR`` made there was refused as "may be written by other users" and every
process warned, while ``config.problems()`` said nothing of a cache it would not use. Real processes, real files;
the other group is a real one made with another user in it (root may give a folder to any group).
"""

from __future__ import annotations

import grp
import json
import os
import pwd
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CHECK = """
import json, sys, warnings
from pathlib import Path
warnings.simplefilter("always")
with warnings.catch_warnings(record=True) as caught:
    from noesis_nb import _cachedir, config
    problems = config.problems()
    try:
        _cachedir.write_cached(Path(sys.argv[1]) / "x" / "f.json", b"{}")
        used = _cachedir.read_cached(Path(sys.argv[1]) / "x" / "f.json", 100) == b"{}"
    except OSError:
        used = False
print(json.dumps({"used": used, "problems": problems, "warned": [str(w.message) for w in caught]}))
"""


def _check(folder: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(REPO), "NOESIS_NB_CACHE_DIR": str(folder)}
    done = subprocess.run([sys.executable, "-c", CHECK, str(folder)], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _private(gid: int) -> bool:
    me = pwd.getpwuid(os.getuid())
    others = [u for u in pwd.getpwall() if u.pw_gid == gid and u.pw_uid != me.pw_uid]
    return gid == me.pw_gid and not others and all(m == me.pw_name for m in grp.getgrgid(gid).gr_mem)


def test_a_chosen_folder_only_the_users_own_group_may_write_is_used(tmp_path: Path) -> None:
    if not _private(os.getgid()):
        pytest.skip("this account's primary group is shared with other users: no private group to test with")
    chosen = tmp_path / "mycache"
    chosen.mkdir()
    chosen.chmod(0o775)  # as mkdir under umask 002 makes it
    seen = _check(chosen)
    assert seen["used"] and not seen["problems"] and not seen["warned"], seen


@pytest.mark.parametrize("shared", ["world", "a group with others"])
def test_a_chosen_folder_others_may_write_is_refused_and_listed(
    tmp_path: Path, request: pytest.FixtureRequest, shared: str
) -> None:
    chosen = tmp_path / "team-cache"
    chosen.mkdir()
    if shared == "world":
        chosen.chmod(0o777)
    else:
        os.chown(chosen, -1, request.getfixturevalue("group_with_others"))
        chosen.chmod(0o775)
    seen = _check(chosen)
    assert not seen["used"], seen
    assert any("may be written by other users" in p and "chmod 700" in p for p in seen["problems"]), seen
