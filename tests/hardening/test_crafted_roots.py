"""A shared runs root crafted or left in a mess by someone else: every reader gives the other runs plus a clear problem.

Each case starts from real runs written by noesis_nb, then changes the root as a copy, a download
or a careless hand would (a folder named in another encoding, a summary taken from another run),
and loads it with every frame and ``%noesis list``.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.magics import RunTable
from noesis_nb.store import list_runs
from noesis_nb.store.scan import scan_run_dirs_with_stats

FRAMES = ("runs_df", "events_df", "tools_df", "usage_df")


def _runs(root: Path, n: int) -> list[str]:
    return [noesis_nb.solve(f"task {i}", using=lambda task: "done", runs_dir=root) for i in range(n)]


@pytest.mark.parametrize("frame", FRAMES)
def test_a_folder_named_in_another_encoding_is_one_problem_and_the_other_runs_load(runs_dir: Path, frame: str) -> None:
    good = _runs(runs_dir, 2)
    odd = os.fsencode(runs_dir) + b"/ep_caf\xe9"  # Latin-1 bytes: no UTF-8 text names this folder
    shutil.copytree(runs_dir / good[0], odd.decode("utf-8", "surrogateescape"))

    df = getattr(noesis_nb, frame)(runs_dir)

    errors = df.attrs["errors"]
    assert [e["path"] for e in errors] == [str(runs_dir) + "/ep_caf\\xe9"]
    assert "not UTF-8" in errors[0]["reason"] and "Rename the folder" in errors[0]["reason"]
    if frame in ("runs_df", "events_df"):
        assert sorted(set(df["episode_id"])) == sorted(good)


def test_the_run_list_of_a_root_holding_such_a_folder_still_displays(runs_dir: Path) -> None:
    good = _runs(runs_dir, 1)
    odd = (os.fsencode(runs_dir) + b"/ep_\xff").decode("utf-8", "surrogateescape")
    shutil.copytree(runs_dir / good[0], odd)
    for name in ("summary.json", "state.json", "manifest.json"):  # the id now comes from the folder's name
        (Path(odd) / name).unlink()

    table = RunTable(list_runs(None, runs_dir=runs_dir))

    for shown in (repr(table), table._repr_html_()):
        shown.encode("utf-8")  # what a notebook sends out must be UTF-8
        assert good[0] in shown and "ep_\\udcff" in shown


def test_a_summary_naming_another_run_is_reported_and_the_row_keeps_the_folder_name(runs_dir: Path) -> None:
    first, second = _runs(runs_dir, 2)
    for name in ("summary.json", "state.json"):
        doc = json.loads((runs_dir / first / name).read_text())
        if name == "summary.json":
            doc["episode_id"] = second
        else:
            doc["episode"]["id"] = second
        (runs_dir / first / name).write_text(json.dumps(doc))
    (runs_dir / first / "manifest.json").unlink()  # copied in whole, as a hand-made run would be

    runs = noesis_nb.runs_df(runs_dir)
    events = noesis_nb.events_df(runs_dir)

    assert sorted(runs["episode_id"]) == sorted(set(events["episode_id"])) == sorted([first, second])
    problem = [e for e in runs.attrs["errors"] if e["path"].endswith(f"{first}/summary.json")]
    assert len(problem) == 1 and second in problem[0]["reason"] and first in problem[0]["reason"]
    with pytest.raises(noesis_nb.errors.NoesisNbError, match=second):
        noesis_nb.runs_df(runs_dir, strict=True)


READER = """
import json, os, sys
from pathlib import Path
import noesis_nb
from noesis_nb.magics import RunTable
from noesis_nb.store import list_runs
from noesis_nb.store.scan import scan_run_dirs_with_stats
from tests.ipshell import run_magic

root, warm = Path(sys.argv[1]), Path(sys.argv[2])
def everything(where):  # every reader once, so nothing is first imported after the drop below
    frames = {f: getattr(noesis_nb, f)(where, cache=False) for f in ("runs_df", "events_df", "tools_df", "usage_df")}
    table, _ = run_magic(f"list --runs-dir {where}")
    return frames, table
ep = noesis_nb.solve("warm", using=lambda task: "done", runs_dir=warm)
everything(warm), noesis_nb.show(ep, runs_dir=warm), repr(everything(warm)[1]), everything(warm)[1]._repr_html_()
if os.geteuid() == 0:  # root reads every folder: read as an account that may not
    os.setgroups([]); os.setresgid(65534, 65534, 65534); os.setresuid(65534, 65534, 65534)
frames, table = everything(root)
out = {f: {"rows": len(df), "ids": sorted(set(df["episode_id"])) if len(df) else [], "errors": df.attrs["errors"]}
       for f, df in frames.items()}
out["list"] = repr(table)
try:
    noesis_nb.show(sys.argv[3], runs_dir=root)
    out["show"] = "shown"
except noesis_nb.errors.NoesisNbError as exc:
    out["show"] = str(exc)
readers = {"runs_df": noesis_nb.runs_df, "events_df": noesis_nb.events_df, "list_runs": lambda r: list_runs(None, runs_dir=r)}
for name, read in readers.items():
    try:
        out["shut root " + name] = f"read {len(read(sys.argv[4]))} rows"
    except noesis_nb.errors.NoesisNbError as exc:
        out["shut root " + name] = str(exc)
print(json.dumps(out))
"""


def test_a_run_folder_or_root_this_user_may_not_read_is_said_not_a_silent_gap() -> None:
    import subprocess
    import sys
    import tempfile

    base = Path(tempfile.mkdtemp(prefix="unreadable-"))  # outside the test's private tmp: the other account reaches it
    try:
        base.chmod(0o755)
        root = base / "runs"
        shut, *readable = _runs(root, 3)
        (root / shut).chmod(0)
        _runs(base / "shut", 1)
        (base / "shut").chmod(0)  # a whole root this user may not read
        (base / "warm").mkdir(mode=0o777)
        (base / "warm").chmod(0o777)
        repo = Path(__file__).resolve().parents[2]
        got = subprocess.run(
            [sys.executable, "-c", READER, str(root), str(base / "warm"), shut, str(base / "shut")],
            env={**os.environ, "PYTHONPATH": str(repo), "HOME": str(base / "warm"), "NOESIS_NB_CACHE_DIR": str(base / "warm")},
            cwd=base / "warm",
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert got.returncode == 0, got.stderr
        out = json.loads(got.stdout.strip().splitlines()[-1])
    finally:
        (root / shut).chmod(0o755)
        (base / "shut").chmod(0o755)
        shutil.rmtree(base, ignore_errors=True)

    for frame in FRAMES:
        paths = [e["path"] for e in out[frame]["errors"] if "permission denied" in e["reason"]]
        assert paths and all(shut in p for p in paths), (frame, out[frame]["errors"])
    assert out["runs_df"]["ids"] == sorted([shut, *readable])
    assert out["events_df"]["ids"] == sorted(readable)
    assert shut in out["list"] and "cannot be read by this user" in out["list"] and "a+rX" in out["list"]
    assert shut in out["show"] and "may not read it" in out["show"] and "a+rX" in out["show"]
    for reader in ("runs_df", "events_df", "list_runs"):  # not "no runs": one error naming the root and the fix
        said = out["shut root " + reader]
        assert str(base / "shut") in said and "cannot be read by this user" in said and "a+rX" in said, said


def test_a_link_in_the_root_back_to_it_or_to_one_of_its_runs_counts_no_run_twice(runs_dir: Path, tmp_path: Path) -> None:
    first, second = _runs(runs_dir, 2)
    elsewhere = tmp_path / "elsewhere"
    (third,) = _runs(elsewhere, 1)
    (runs_dir / "again").symlink_to(runs_dir)  # a checkout's 'runs/again -> .'
    (runs_dir / "alias").symlink_to(runs_dir / first)
    (runs_dir / "linked-in").symlink_to(elsewhere / third)  # a run kept elsewhere and linked in: counted once

    runs = noesis_nb.runs_df(runs_dir)
    events = noesis_nb.events_df(runs_dir)
    listed = list_runs(None, runs_dir=runs_dir)

    assert sorted(runs["episode_id"]) == sorted([first, second, "linked-in"])
    # the linked run by the name it has in the root, not through the loop ('again/linked-in' sorts first)
    assert sorted(scanned for scanned, _ in scan_run_dirs_with_stats(str(runs_dir))) == sorted(
        str(runs_dir / name) for name in (first, second, "linked-in")
    )
    assert len(events) == sum(len(noesis_nb.events_df(runs_dir / e)) for e in (first, second)) + len(
        noesis_nb.events_df(elsewhere / third)
    )
    assert len(listed) == 3
    # the link back to the root is said (it was dropped silently, unlike those named ep_…); the shortcut to a run of
    # the root ('alias', not named like a run) loses nothing and is no problem
    said = sorted(e["path"] for e in runs.attrs["errors"] if "symbolic link" in e["reason"])
    assert said == [str(runs_dir / "again")], runs.attrs["errors"]
    assert sorted(p["path"] for p in listed.problems if "symbolic link" in p["reason"]) == said


@pytest.mark.parametrize("what", ["archive", "file", "dangling link"])
def test_an_entry_named_like_a_run_that_is_no_run_folder_is_one_problem_in_every_reader(runs_dir: Path, what: str) -> None:
    from tests.ipshell import run_magic

    good = _runs(runs_dir, 2)
    stray = runs_dir / (good[0][:-2] + "ZZ" + (".zip" if what == "archive" else ""))
    if what == "dangling link":
        stray.symlink_to(runs_dir / "gone")
    else:
        shutil.make_archive(str(stray.with_suffix("")), "zip", runs_dir / good[0]) if what == "archive" else stray.write_text(
            "{}"
        )

    for frame in FRAMES:
        errors = getattr(noesis_nb, frame)(runs_dir, cache=False).attrs["errors"]
        assert [e["path"] for e in errors] == [str(stray)], (frame, errors)
        assert "named like a run" in errors[0]["reason"] and "move it out of the runs root" in errors[0]["reason"]
    listed = list_runs(None, runs_dir=runs_dir)
    assert sorted(r["episode_id"] for r in listed) == sorted(good)
    assert [p["path"] for p in listed.problems] == [str(stray)]
    table, _ = run_magic(f"list --runs-dir {runs_dir}")
    assert repr(table).count(str(stray)) == 1 and "named like a run" in table._repr_html_()
    with pytest.raises(noesis_nb.errors.NoesisNbError, match=stray.name):
        noesis_nb.runs_df(runs_dir, strict=True)


def test_with_episodes_an_entry_is_a_stray_only_of_an_id_asked_for_and_not_read(runs_dir: Path) -> None:
    """``episodes=[id]`` reports ``id.zip`` only when no run folder ``id`` was read: an archive kept next to its
    unpacked run loses nothing (strict loads pass), and ``ep_1`` never claims ``ep_10.zip``."""
    kept, other = _runs(runs_dir, 2)
    shutil.make_archive(str(runs_dir / kept), "zip", runs_dir, kept)  # the run and its archive side by side
    longer = runs_dir / (kept + "0.zip")  # another id that starts with the one asked for
    longer.write_text("{}")
    for frame in FRAMES:
        df = getattr(noesis_nb, frame)(runs_dir, episodes=[kept], strict=True, cache=False)
        assert df.attrs["errors"] == [], frame
    assert sorted(e["path"] for e in noesis_nb.runs_df(runs_dir, cache=False).attrs["errors"]) == sorted(
        [str(runs_dir / (kept + ".zip")), str(longer)]
    )  # without episodes=, each stray once
    shutil.rmtree(runs_dir / kept)  # only the archive is left: asked for, it is said
    errors = noesis_nb.runs_df(runs_dir, episodes=[kept, other], cache=False).attrs["errors"]
    assert [e["path"] for e in errors if "named like a run" in e["reason"]] == [str(runs_dir / (kept + ".zip"))]


def test_stray_names_with_hidden_characters_or_other_encodings_are_shown_escaped(runs_dir: Path) -> None:
    from tests.ipshell import run_magic

    good = _runs(runs_dir, 1)
    (runs_dir / "ep_\x1b[2J\x1b[31mPWNED\nfake line\u202e.json").write_text("{}")
    open(os.fsencode(runs_dir) + b"/ep_\xff.zip", "wb").close()
    texts = [e["path"] for e in noesis_nb.events_df(runs_dir, cache=False).attrs["errors"]]
    listed = list_runs(None, runs_dir=runs_dir)
    texts += [p["path"] for p in listed.problems]
    assert [r["episode_id"] for r in listed] == good
    table, _ = run_magic(f"list --runs-dir {runs_dir}")
    texts.append(repr(table))
    with pytest.raises(noesis_nb.errors.NoesisNbError) as raised:
        noesis_nb.runs_df(runs_dir, strict=True, cache=False)
    texts.append(str(raised.value))
    for text in texts:
        text.encode("utf-8")  # no lone surrogate: the text can be printed, logged and saved
        assert not any(c in text for c in "\x1b\u202e"), text
    assert all("\\x1b[2J" in t and "PWNED\\nfake" in t for t in texts if "PWNED" in t)
    assert sum("PWNED" in t for t in texts) >= 4 and any("ep_\\xff.zip" in t for t in texts)


def test_a_run_folder_whose_files_cannot_be_read_is_one_problem_naming_each_file(runs_dir: Path) -> None:
    shut, good = _runs(runs_dir, 2)
    names = ("summary.json", "state.json", "manifest.json", "events.jsonl")
    for name in names:
        (runs_dir / shut / name).unlink()
        os.mkfifo(runs_dir / shut / name)

    errors = noesis_nb.runs_df(runs_dir, cache=False).attrs["errors"]

    assert [e["path"] for e in errors] == [str(runs_dir / shut)], errors
    assert all(f"{name}: a FIFO" in errors[0]["reason"] for name in names), errors[0]["reason"]
    assert "its events are not read" in errors[0]["reason"]
    with pytest.raises(noesis_nb.errors.NoesisNbError, match="4 files of the run cannot be read"):
        noesis_nb.runs_df(runs_dir, strict=True)
    for name in names[:3]:  # one file unreadable: named by its own path, as before
        (runs_dir / shut / name).unlink()
    errors = noesis_nb.runs_df(runs_dir, cache=False).attrs["errors"]
    assert [e["path"] for e in errors] == [str(runs_dir / shut / "events.jsonl")], errors


def test_a_settled_root_is_listed_once_per_load_and_a_stray_made_later_is_still_reported(
    runs_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The scan's listing of the root serves the stray check (each folder listed once: a second listing costs
    ~5 ms at 10,000 runs on every warm reload); a stray made afterwards changes the root's mtime and is seen."""
    import noesis_nb.store.scan as scan

    _runs(runs_dir, 2)
    settled = os.stat(runs_dir).st_mtime_ns - 3_600 * 10**9  # as a root last written an hour ago
    os.utime(runs_dir, ns=(settled, settled))
    listed = []
    real = os.scandir

    def counting(path: str | os.PathLike[str] = ".") -> object:
        listed.append(os.fspath(path))
        return real(path)

    monkeypatch.setattr(scan.os, "scandir", counting)
    for frame in FRAMES:
        listed.clear()
        assert getattr(noesis_nb, frame)(runs_dir, cache=False).attrs["errors"] == [], frame
        assert listed.count(str(runs_dir)) == 1, (frame, listed)
    stray = runs_dir / "ep_archived.zip"
    stray.write_text("{}")  # the root changes: its mtime with it
    for _ in range(2):  # once after the change, once more while the root is fresh
        for frame in FRAMES:
            errors = getattr(noesis_nb, frame)(runs_dir, cache=False).attrs["errors"]
            assert [e["path"] for e in errors] == [str(stray)], (frame, errors)


def test_the_listing_of_a_root_never_serves_another_folder_or_a_root_whose_times_were_set_back(
    tmp_path: Path,
) -> None:
    """A root swapped for another folder of the same mtime, or a stray added and the mtime set back: the
    strays said are those of the folder now there."""
    from noesis_nb.store.scan import stray_run_files

    root, other = tmp_path / "runs", tmp_path / "other"
    for folder in (root, other):
        _runs(folder, 1)
    (other / "ep_other.zip").write_text("{}")
    settled = os.stat(root).st_mtime_ns - 3_600 * 10**9
    for folder in (root, other):
        os.utime(folder, ns=(settled, settled))
    scan_run_dirs_with_stats(str(root))  # listed: no strays
    root.rename(tmp_path / "old")
    other.rename(root)  # another folder in its place, with the same mtime
    assert [os.path.basename(p) for p, _ in stray_run_files(str(root))] == ["ep_other.zip"]
    scan_run_dirs_with_stats(str(root))
    (root / "ep_added.zip").write_text("{}")
    os.utime(root, ns=(settled, settled))  # the mtime set back as it was
    assert [os.path.basename(p) for p, _ in stray_run_files(str(root))] == ["ep_added.zip", "ep_other.zip"]
