"""Listing ``tool_invocations/`` the quick way gives what the careful way gives, for every layout a run may hold.

``ToolFolders`` lists plain folders below ``tool_invocations/`` directly and sends everything
else through ``RunRef.listdir``, which checks each folder on the way for a symlink out of the
run (what ``runs_df`` did for every folder before). Each example lays out the tool folders of
real runs at random — kept, absent, empty, a symlink into the run or out of it, a dangling
symlink, a file, a FIFO, drafts in Noēsis' ``prepared/`` — and loads ``runs_df`` at every
verification level twice: as it runs, and with the quick listing turned off. Frames and errors
must be equal, no draft from outside a run may be counted, and after the folders change again
a warm reload must equal a cold load.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from noesis_nb.frames import clear_cache, runs_df, tools_df
from noesis_nb.frames.toolfolders import ToolFolders

FOLDERS = (
    "tool_invocations",
    "tool_invocations/prepared",
    "tool_invocations/x-python",
    "tool_invocations/x-python/prepared",
    "tool_invocations/approvals",
    "tool_invocations/executions",
)
KINDS = ("keep", "absent", "empty", "symlink_in", "symlink_out", "dangling", "file", "fifo", "noesis_prepared")
VERIFY = ("quick", "size", "hash")
OUTSIDE_DRAFT = "draft:OUTSIDE:1.json"


def _clear(path: Path) -> None:
    if path.is_symlink() or (path.exists() and not path.is_dir()):
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)


def lay_out(run: Path, folder: str, kind: str, outside: Path) -> None:
    """Make ``run/folder`` a ``kind`` (nothing when its parent is not a plain folder of the run)."""
    path = run / folder
    if kind == "keep" or path.parent.is_symlink() or not path.parent.is_dir():
        return
    if kind == "noesis_prepared":  # Noēsis' own layout: the drafts in prepared/ as well
        source, target = run / "tool_invocations" / "x-python" / "prepared", run / "tool_invocations" / "prepared"
        plain = lambda p: p.is_dir() and not p.is_symlink()  # noqa: E731
        if plain(source) and (plain(target) or not os.path.lexists(target)):
            shutil.copytree(source, target, dirs_exist_ok=True)
        return
    if kind == "symlink_in" and path.is_dir() and not path.is_symlink():
        moved = run / f"moved-{path.name}-{sum(1 for _ in run.iterdir())}"
        path.rename(moved)  # the records stay in the run, reached through a link
        os.symlink(moved, path)
        return
    _clear(path)
    if kind == "empty":
        path.mkdir()
    elif kind == "symlink_in":
        (run / "elsewhere").mkdir(exist_ok=True)
        os.symlink(run / "elsewhere", path)
    elif kind == "symlink_out":
        os.symlink(outside, path)
    elif kind == "dangling":
        os.symlink(run / "nowhere", path)
    elif kind == "file":
        path.write_text("{}")
    elif kind == "fifo":
        os.mkfifo(path)


def _careful(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every tool folder through ``RunRef.listdir``, as before the quick listing."""
    monkeypatch.setattr(ToolFolders, "kinds", lambda self: None)


def _sorted(df: pd.DataFrame) -> pd.DataFrame:
    return df.sort_values("episode_id", kind="stable").reset_index(drop=True)


def _errors(df: pd.DataFrame) -> list[tuple[str, int, str]]:
    return sorted((e["path"], e["line"] or 0, e["reason"]) for e in df.attrs["errors"])


@pytest.fixture(scope="module")
def outside(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder outside every run holding a pending draft: counting it would show in tool_calls/pending_approvals."""
    place = tmp_path_factory.mktemp("outside_tools")
    (place / OUTSIDE_DRAFT).write_text('{"draft_id": "draft:OUTSIDE:1", "status": "pending_approval"}')
    return place


@settings(
    max_examples=20,
    deadline=None,
    database=None,
    derandomize=True,
    phases=[Phase.generate],
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    before=st.lists(st.tuples(st.integers(0, 99), st.sampled_from(FOLDERS), st.sampled_from(KINDS)), min_size=1, max_size=8),
    after=st.lists(st.tuples(st.integers(0, 99), st.sampled_from(FOLDERS), st.sampled_from(KINDS)), min_size=1, max_size=4),
)
def test_quick_listing_equals_careful_listing_and_warm_equals_cold(
    tmp_path_factory, engine_runs, outside, monkeypatch, before, after
) -> None:
    runs_root, ids = engine_runs
    root = tmp_path_factory.mktemp("folders")
    names = [ids[k] for k in ("paused", "approved", "rejected", "replayed", "success")]
    runs = []
    for name in names:
        shutil.copytree(runs_root / name, root / name, symlinks=True)
        runs.append(root / name)
    for pick, folder, kind in before:
        lay_out(runs[pick % len(runs)], folder, kind, outside)

    for verify in VERIFY:
        clear_cache()
        quick = runs_df(root, cache=False, verify=verify)
        with monkeypatch.context() as m:
            _careful(m)
            careful = runs_df(root, cache=False, verify=verify)
        pd.testing.assert_frame_equal(quick, careful, obj=verify)
        assert quick.attrs["errors"] == careful.attrs["errors"], verify
        assert quick["pending_approvals"].max() <= 1, "a draft from outside the run was counted"
        runs_df(root, verify=verify)  # fills the cache

    for pick, folder, kind in after:
        lay_out(runs[pick % len(runs)], folder, kind, outside)
    for verify in VERIFY:
        warm = runs_df(root, verify=verify)
        cold = runs_df(root, cache=False, verify=verify)
        pd.testing.assert_frame_equal(_sorted(warm), _sorted(cold), obj=f"warm {verify}")
        assert _errors(warm) == _errors(cold), verify
    clear_cache()


@pytest.mark.parametrize("folder", FOLDERS[:4])
def test_a_folder_linked_out_of_the_run_is_reported_and_not_counted(engine_runs, outside, tmp_path, folder) -> None:
    runs_root, ids = engine_runs
    run = tmp_path / ids["paused"]
    shutil.copytree(runs_root / ids["paused"], run, symlinks=True)
    lay_out(run, "tool_invocations/prepared", "noesis_prepared", outside)  # drafts in both folders
    lay_out(run, folder, "absent", outside)
    absent = runs_df(tmp_path, cache=False)
    lay_out(run, folder, "symlink_out", outside)
    linked = runs_df(tmp_path, cache=False)
    for column in ("tool_calls", "pending_approvals"):  # the outside folder's pending draft counts for nothing
        assert linked[column].iloc[0] == absent[column].iloc[0], column
    reasons = [e["reason"] for e in linked.attrs["errors"] if e["path"].startswith(str(run / folder))]
    assert any("outside the run" in r for r in reasons), linked.attrs["errors"]


@pytest.mark.parametrize("swapped", ["summary.json", "tool_invocations", "tool_invocations/x-python/prepared"])
def test_a_swap_for_a_link_to_an_identical_copy_is_seen_by_a_warm_hash_load(engine_runs, tmp_path, swapped) -> None:
    """``stat`` follows the link (same size and time as before) but hashing refuses it: the folder it was in tells."""
    runs_root, ids = engine_runs
    run = tmp_path / ids["replayed"]
    shutil.copytree(runs_root / ids["replayed"], run, symlinks=True)
    assert runs_df(tmp_path, verify="hash")["manifest_ok"].iloc[0]
    path = run / swapped
    moved = run / f"moved-{path.name}"
    path.rename(moved)
    os.symlink(moved, path)
    warm, cold = runs_df(tmp_path, verify="hash"), runs_df(tmp_path, verify="hash", cache=False)
    assert not cold["manifest_ok"].iloc[0]
    pd.testing.assert_frame_equal(warm, cold)
    assert _errors(warm) == _errors(cold) != []


def test_a_folder_appearing_after_a_load_is_seen_by_the_next(engine_runs, tmp_path) -> None:
    """A sealed run without x-python/ is cached with tool_invocations/'s stat; drafts added there show next time."""
    runs_root, ids = engine_runs
    run = tmp_path / ids["replayed"]
    shutil.copytree(runs_root / ids["replayed"], run, symlinks=True)
    drafts = run / "tool_invocations" / "x-python"
    kept = tmp_path / "kept"
    drafts.rename(kept)
    before = runs_df(tmp_path)
    kept.rename(drafts)
    warm, cold = runs_df(tmp_path), runs_df(tmp_path, cache=False)
    pd.testing.assert_frame_equal(warm, cold)
    assert _errors(warm) == _errors(cold)
    # without the records its manifest lists, its drafts were unknown; back, they are counted again
    assert pd.isna(before["tool_calls"].iloc[0]) and warm["tool_calls"].iloc[0] > 0


def test_a_draft_written_while_its_folder_is_listed_shows_at_the_next_load(engine_runs, tmp_path, monkeypatch) -> None:
    """The folder's stamp is taken before its listing: a draft written in between changes the folder after the
    stamp, so the next (warm) load reads the run again instead of keeping a listing that misses the draft."""
    runs_root, ids = engine_runs
    run = tmp_path / ids["paused"]
    shutil.copytree(runs_root / ids["paused"], run, symlinks=True)
    prepared = run / "tool_invocations" / "x-python" / "prepared"
    [draft] = sorted(prepared.glob("*.json"))
    clear_cache()
    listdir = ToolFolders.listdir
    wrote = []

    def list_then_write(self, parts):
        names = listdir(self, parts)
        if parts[-2:] == ("x-python", "prepared") and not wrote:  # another process writes a draft just after the listing
            (prepared / "draft-written-meanwhile.json").write_text(draft.read_text())
            wrote.append(True)
        return names

    with monkeypatch.context() as m:
        m.setattr(ToolFolders, "listdir", list_then_write)
        first = runs_df(tmp_path)
    assert wrote, "the listing was not reached"
    warm, cold = runs_df(tmp_path), runs_df(tmp_path, cache=False)
    assert cold["pending_approvals"].iloc[0] == first["pending_approvals"].iloc[0] + 1
    pd.testing.assert_frame_equal(warm, cold)
    clear_cache()


def _tool_frames_agree(a: pd.DataFrame, b: pd.DataFrame, what: str) -> None:
    pd.testing.assert_frame_equal(
        a.sort_values(["episode_id", "draft_id"], kind="stable").reset_index(drop=True),
        b.sort_values(["episode_id", "draft_id"], kind="stable").reset_index(drop=True),
        obj=what,
    )
    assert _errors(a) == _errors(b), what


@settings(
    max_examples=10,
    deadline=None,
    database=None,
    derandomize=True,
    phases=[Phase.generate],
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    before=st.lists(st.tuples(st.integers(0, 99), st.sampled_from(FOLDERS), st.sampled_from(KINDS)), min_size=1, max_size=8),
    after=st.lists(st.tuples(st.integers(0, 99), st.sampled_from(FOLDERS), st.sampled_from(KINDS)), min_size=1, max_size=4),
)
def test_tools_df_quick_listing_equals_careful_listing_and_warm_equals_cold(
    tmp_path_factory, engine_runs, outside, monkeypatch, before, after
) -> None:
    """``tools_df`` lists the tool folders through ``ToolFolders`` too: the same drafts and reports as through
    ``RunRef.listdir`` for every layout, and a warm reload after the folders change equals a cold load."""
    runs_root, ids = engine_runs
    root = tmp_path_factory.mktemp("tool_rows")
    runs = []
    for name in [ids[k] for k in ("paused", "approved", "rejected", "replayed", "success")]:
        shutil.copytree(runs_root / name, root / name, symlinks=True)
        runs.append(root / name)
    for pick, folder, kind in before:
        lay_out(runs[pick % len(runs)], folder, kind, outside)
    clear_cache()
    quick = tools_df(root, cache=False)
    with monkeypatch.context() as m:
        _careful(m)
        careful = tools_df(root, cache=False)
    _tool_frames_agree(quick, careful, "quick listing")
    assert OUTSIDE_DRAFT[:-5] not in set(quick["draft_id"]), "a draft from outside the run was read"
    tools_df(root)  # fills the cache
    for pick, folder, kind in after:
        lay_out(runs[pick % len(runs)], folder, kind, outside)
    _tool_frames_agree(tools_df(root), tools_df(root, cache=False), "warm")
    clear_cache()


@pytest.mark.parametrize("folder", ["prepared", "x-python/prepared", "approvals", "executions"])
def test_tools_df_sees_a_record_written_while_its_folder_is_listed(engine_runs, tmp_path, monkeypatch, folder) -> None:
    """``tools_df`` stamps a tool folder before listing it: a record written just after the listing changes the
    folder after its stamp, so the next (warm) load reads the run again instead of keeping rows that miss it. An
    absent folder is stamped by ``tool_invocations/``: one made just after that folder is looked at shows too."""
    from noesis_nb.frames import fs as frames_fs
    from noesis_nb.frames import source as source_module
    from noesis_nb.frames import toolfolders

    runs_root, ids = engine_runs
    run = tmp_path / ids["paused"]
    shutil.copytree(runs_root / ids["paused"], run, symlinks=True)
    [draft] = sorted((run / "tool_invocations" / "x-python" / "prepared").glob("*.json"))
    target = run / "tool_invocations" / folder
    if folder == "prepared":  # absent in a run of python tools: made meanwhile
        shutil.rmtree(target, ignore_errors=True)
    assert not (run / "tool_invocations" / "approvals").exists() and not (run / "tool_invocations" / "executions").exists()
    records = {  # what another process writes meanwhile: a new draft, or a decision / an outcome of the waiting one
        "prepared": ("draft:meanwhile:1.json", draft.read_text().replace(draft.stem, "draft:meanwhile:1")),
        "x-python/prepared": ("draft:meanwhile:1.json", draft.read_text().replace(draft.stem, "draft:meanwhile:1")),
        "approvals": (draft.name, json.dumps({"draft_id": draft.stem, "status": "approved", "approver_id": "meanwhile"})),
        "executions": (draft.name, json.dumps({"draft_id": draft.stem, "status": "succeeded"})),
    }
    first = tools_df(tmp_path, cache=False)
    wrote = []

    def write(path: str) -> None:
        # the one listing of the load, which makes the rows and tells the values the records reveal (``runlearned``)
        if not wrote and path == str(target):
            made = [p for p in (target, *target.parents) if not p.exists()]
            target.mkdir(parents=True, exist_ok=True)
            name, text = records[folder]
            (target / name).write_text(text)
            # the folders' times set back a minute: only a stamp taken before the listing differs from them now
            for changed in (target, *made, (made[-1] if made else target).parent):
                back = changed.stat().st_mtime_ns - 60_000_000_000
                os.utime(changed, ns=(back, back))
            wrote.append(True)

    listdir, list_dir, kinds = source_module.RunRef.listdir, toolfolders.list_dir, toolfolders._kinds

    def ref_listdir(self, *parts):
        names = listdir(self, *parts)
        write(self.file(*parts))
        return names

    def plain_list_dir(path, within=None):
        names = list_dir(path, within)
        write(path)
        return names

    def looked_at(ref):  # ``tool_invocations/`` looked at: a folder absent from it is made now
        got = kinds(ref)
        if not target.exists():
            write(str(target))
        return got

    clear_cache()
    monkeypatch.setattr(frames_fs, "RACY_NS", 0)  # every stamp is kept: the one taken must be the right one
    with monkeypatch.context() as m:
        m.setattr(source_module.RunRef, "listdir", ref_listdir)
        m.setattr(toolfolders, "list_dir", plain_list_dir)
        m.setattr(toolfolders, "_kinds", looked_at)
        listed = tools_df(tmp_path)
    assert wrote, "the listing was not reached"
    _tool_frames_agree(listed, first, "the load during which the record was written")
    warm, cold = tools_df(tmp_path), tools_df(tmp_path, cache=False)
    assert not cold.equals(first), "the record written meanwhile changes nothing"
    _tool_frames_agree(warm, cold, "warm after a record written meanwhile")
    clear_cache()
