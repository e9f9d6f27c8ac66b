"""What a value learned, a run registered or a new process costs the ids and paths a frame shows (``store.shownnames``),
counted in screens (calls of ``secrets.shown``), and what they then show.

Between two loads of a root of runs named by old ids (not minted: each is screened), a value learned by another run
or a run registered drops only the ids it may show differently: those holding the value or the run's id, which the
next load shows as ``secrets.shown`` does now (a learned value redacted; this process's own run id kept whole). A
new process served the kept frame (``frames.keptframe``) takes the names the keeping process showed while the
environment's secrets are the same, and screens again when one was added. Each load runs in a process of its own,
as in a kernel: what earlier tests left in this one would change what is shown."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from noesis_nb.secrets.hiddenparts import unmarked

from .newprocess import CODE, settle
from .runkit import basic_events, hand_summary, write_run

RUNS = 300
# built from parts: no whole credential in the repository
_VALUE = "Qm7" + "Vb9Lk2Wn4Pz8"  # a value another run learns (no detector finds it by itself)
_GH = "ghp" + "_" + "Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0LmNb12"
_ENV_VALUE = "Hy6" + "Tr4Mq2Zw8Kc5"  # a secret the environment holds in the last test


def _names() -> list[str]:
    return [f"ep_20251104_155501_{i:06d}" for i in range(RUNS)] + [f"ep_20251104_{_VALUE}", f"ep_{_GH}"]


def _root(tmp_path: Path) -> Path:
    root = tmp_path / "runs"
    root.mkdir()
    for name in _names():
        write_run(root, name, basic_events(name), summary=hand_summary(name, task="t"))
    settle()
    return root


_HEAD = """
import json, sys
from pathlib import Path

import noesis_nb
from noesis_nb.frames import runindex
from noesis_nb.frames import runs as runs_module, shownids
from noesis_nb.ids import is_minted
from noesis_nb.secrets import guard
from noesis_nb.secrets.display import made_here, shown
from noesis_nb.secrets.hiddenparts import unmarked
from noesis_nb.store import shownnames

args = json.loads(sys.argv[1])
runindex._CODE = args["code"].encode()  # the digest every load of the test shares (``newprocess.CODE``)
root = Path(args["root"])
names = sorted(p.name for p in root.iterdir())
assert not any(is_minted(n) for n in names)
screened: list[str] = []
reads: list[str] = []

def counted(text):
    screened.append(text)
    return shown(text)

read_run = runs_module.read_run
def counted_read(ref, **kw):
    reads.append(ref.path)
    return read_run(ref, **kw)

shownnames.shown, runs_module.read_run = counted, counted_read
looked: list[int] = []  # id columns looked at (``shownids.shown_ids`` calls: a column's distinct values each)
shown_ids = shownids.shown_ids
def counted_ids(texts, *revealed):
    looked.append(len(texts))
    return shown_ids(texts, *revealed)

shownids.shown_ids = counted_ids

def load():
    del screened[:], reads[:], looked[:]
    df = noesis_nb.runs_df(str(root), progress=False)
    assert len(df) == len(names)
    return df

def as_shown(df):  # each hidden part marked (``[REDACTED:<mark>]``, ``secrets.namemarks``)
    return sorted(map(unmarked, df.episode_id)) == sorted(shown(n) for n in names) and sorted(
        map(unmarked, df.run_dir)
    ) == sorted(shown(str(root / n)) for n in names)
"""


def _child(script: str, env: dict[str, str], **args: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", _HEAD + script, json.dumps(args)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_value_learned_elsewhere_drops_only_the_ids_holding_it(tmp_path: Path, env: dict[str, str]) -> None:
    root = _root(tmp_path)
    got = _child(
        """
first = load()
cold = len(screened)
assert f"ep_20251104_{args['value']}" in set(first.episode_id)  # nothing known of it yet: a name
guard.for_run(root.parent / "elsewhere" / "ep_other_run_x").learn([args["value"]])  # another run learns it
second = load()
print(json.dumps({"cold": cold, "again": sorted(set(screened)), "ids": sorted(second.episode_id),
                  "as_shown": as_shown(second)}))
""",
        env,
        root=str(root),
        code=CODE,
        value=_VALUE,
    )
    assert got["cold"] >= RUNS
    # only the id holding the value is screened again (before: every id, the memo dropped whole)
    assert got["again"] == [f"ep_20251104_{_VALUE}"]
    # and it is shown redacted, as ``shown`` shows it now; no id or path shows the value
    assert "ep_20251104_[REDACTED]" in map(unmarked, got["ids"]) and not any(_VALUE in i for i in got["ids"])
    assert got["as_shown"]


def test_a_run_registered_drops_only_the_ids_holding_its_id(tmp_path: Path, env: dict[str, str]) -> None:
    root = _root(tmp_path)
    got = _child(
        """
first = load()
cold = len(screened)
gh = [n for n in names if n.startswith("ep_ghp")][0]
before = sorted(first.episode_id)
guard.for_run(root.parent / "elsewhere" / "ep_20251207_unrelated")  # a run of this process, named by no text here
made_here("ep_20251207_unrelated")
unrelated = load()
after_unrelated = len(screened)
guard.for_run(root / gh)  # this process's own run: its id is kept whole where a text quotes it (``shown``)
made_here(gh)  # (made here: a run only read is no public name, ``public_run_ids``)
own = load()
print(json.dumps({"cold": cold, "unrelated": after_unrelated, "own": sorted(set(screened)), "gh": gh,
                  "before": before, "ids": sorted(own.episode_id), "as_shown": as_shown(own)}))
""",
        env,
        root=str(root),
        code=CODE,
    )
    assert got["cold"] >= RUNS
    assert got["unrelated"] == 0  # before: every id screened again
    assert got["own"] == [got["gh"]]  # only the id holding the run's id
    # what it shows is what ``shown`` shows now (the run's own id whole), not the form memoised before
    assert f"ep_{_GH}" not in got["before"] and got["as_shown"]
    assert got["ids"] != got["before"]


def test_a_new_process_takes_the_names_the_kept_frame_showed(tmp_path: Path, env: dict[str, str]) -> None:
    root = _root(tmp_path)
    script = """
df = load()
print(json.dumps({"screened": len(screened), "reads": len(reads), "ids": sorted(df.episode_id),
                  "dirs": sorted(df.run_dir), "as_shown": as_shown(df)}))
"""
    keeping = _child(script, env, root=str(root), code=CODE)
    assert keeping["reads"] == len(_names()) and keeping["screened"] >= RUNS
    assert list((tmp_path / "cache").rglob("*.json.frame"))
    new = _child(script, env, root=str(root), code=CODE)
    assert new["reads"] == 0  # served the kept frame
    assert new["screened"] == 0  # before: every id not minted screened again
    assert new["ids"] == keeping["ids"] and new["dirs"] == keeping["dirs"] and new["as_shown"]
    assert "[REDACTED]" in map(unmarked, new["ids"]) and f"ep_{_GH}" not in new["ids"]
    # a secret added to the environment that one id holds: that id is shown redacted (the names kept are not taken)
    value_env = {**env, "NOESIS_TEST_DEPLOY_TOKEN": _ENV_VALUE}
    name = f"ep_20251104_{_ENV_VALUE}"
    write_run(root, name, basic_events(name), summary=hand_summary(name, task="t"))
    settle()
    plain = _child(script, env, root=str(root), code=CODE)  # the frame kept again, with that run
    assert name in plain["ids"]
    secret = _child(script, value_env, root=str(root), code=CODE)
    assert secret["as_shown"] and secret["screened"] >= 1
    assert "ep_20251104_[REDACTED]" in map(unmarked, secret["ids"]) and not any(
        _ENV_VALUE in i for i in secret["ids"] + secret["dirs"]
    )
    assert os.environ.get("NOESIS_TEST_DEPLOY_TOKEN") is None


def test_a_new_process_looks_at_no_id_column_of_a_kept_frame_whose_names_show_as_they_are(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """A kept frame whose every name is shown as it is (none holds a secret) is served to a new process that took
    them all without its id columns looked at again (before: each column's distinct values, ~7 ms at 1,000 runs); a
    name holding this process's run id (not taken), or a name holding a secret, still has them shown as ``shown``
    shows them now."""
    root = _root(tmp_path)
    (root / f"ep_{_GH}").rename(tmp_path / "aside")  # every name left shows as it is
    (root / f"ep_20251104_{_VALUE}").rename(tmp_path / "aside2")
    settle()
    script = """
if args.get("own"):  # a run of this process named by one of the names: shown whole, so not taken as kept
    guard.for_run(root / args["own"])
    made_here(args["own"])  # (made here: a run only read is no public name, ``public_run_ids``)
df = load()
print(json.dumps({"looked": len(looked), "reads": len(reads), "ids": sorted(df.episode_id),
                  "dirs": sorted(df.run_dir), "as_shown": as_shown(df)}))
"""
    keeping = _child(script, env, root=str(root), code=CODE)
    assert keeping["reads"] == RUNS and keeping["looked"] >= 2
    new = _child(script, env, root=str(root), code=CODE)
    assert new["reads"] == 0  # served the kept frame
    assert new["looked"] == 0, f"{new['looked']} id columns looked at again"
    assert new["ids"] == keeping["ids"] and new["dirs"] == keeping["dirs"] and new["as_shown"]
    own = _child(script, env, root=str(root), code=CODE, own="ep_20251104_155501_000007")
    assert own["reads"] == 0 and own["looked"] >= 2 and own["as_shown"] and own["ids"] == keeping["ids"]
    # a name holding a credential: the frame kept again shows it redacted in a new process, its columns looked at
    (tmp_path / "aside").rename(root / f"ep_{_GH}")
    settle()
    again = _child(script, env, root=str(root), code=CODE)
    assert again["reads"] >= 1 and again["as_shown"] and f"ep_{_GH}" not in again["ids"]
    served = _child(script, env, root=str(root), code=CODE)
    assert served["reads"] == 0 and served["looked"] >= 2 and served["as_shown"]
    assert served["ids"] == again["ids"] and f"ep_{_GH}" not in served["ids"] + served["dirs"]
