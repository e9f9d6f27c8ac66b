"""Kept frames (``frames.keptframe``): a new process serves a folder's kept ``runs_df`` frame only when it is true.

Every load runs in a real new Python process (``newprocess``) sharing this test's cache folder and seal key; it
reports the runs it read in full and the frames it built. Whatever changed in between, the frame must equal
one read in full by a process with a cache folder of its own (``full``), attrs included.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import pickle
import shutil
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from noesis_nb.frames.runindex import INDEX_DIR

from .newprocess import copy_runs, load_counted, same, settle
from .runkit import SMOKE, basic_events, hand_summary, write_run

FLAT = {"openai/gpt-4o": {"input": 2.5, "output": 10}}


def full(root: Path, env: dict[str, str], tmp_path: Path, **args: Any) -> pd.DataFrame:
    """The frame of a process that never saw these runs: every run read, the frame built."""
    cache = tmp_path / f"other-cache-{len(list(tmp_path.glob('other-cache-*')))}"
    df, reads, built = load_counted(root, {**env, "NOESIS_NB_CACHE_DIR": str(cache)}, tmp_path / "full.pkl", **args)
    assert built == 1 and len(reads) == len(df)
    return df


def kept_files(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "cache" / INDEX_DIR).glob("*.json.frame"))


def edit_task(run: Path) -> dict[str, str]:
    """An edit of the run's task in place that keeps the file's size (the reversed task): a step for ``again``."""
    summary = run / "summary.json"
    text = summary.read_text()
    task = json.loads(text)["task"]
    old, new = json.dumps(task), json.dumps(task[::-1])
    assert old in text and old != new and len(old) == len(new)
    return {"path": str(summary), "old": old, "new": new}


def engine_run(root: Path) -> Path:
    return sorted(p for p in root.iterdir() if (p / "tool_invocations").is_dir() and (p / "summary.json").is_file())[0]


def test_an_unchanged_folder_is_served_its_kept_frame(clean_corpus: Path, tmp_path: Path, env: dict[str, str]) -> None:
    root = copy_runs(clean_corpus, tmp_path)
    first, reads, built = load_counted(root, env, tmp_path / "a.pkl")
    assert len(reads) == len(os.listdir(root)) and built == 1
    [kept] = kept_files(tmp_path)
    assert kept.stat().st_mode & 0o777 == 0o600
    second, reads, built = load_counted(root, env, tmp_path / "b.pkl")
    assert reads == [] and built == 0  # neither a run read nor a frame built
    same(second, first)
    same(second, full(root, env, tmp_path))


def test_a_run_edited_in_place_added_or_removed_has_the_frame_built_again(
    clean_corpus: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    root = copy_runs(clean_corpus, tmp_path)
    load_counted(root, env, tmp_path / "a.pkl")
    edited = engine_run(root)
    step = edit_task(edited)
    summary, st = Path(step["path"]), Path(step["path"]).stat()
    summary.write_text(summary.read_text().replace(step["old"], step["new"], 1))
    os.utime(summary, ns=(st.st_atime_ns, st.st_mtime_ns))  # same size and mtime: only the ctime tells
    settle()
    got, reads, built = load_counted(root, env, tmp_path / "b.pkl")
    assert reads == [edited.name] and built == 1
    same(got, full(root, env, tmp_path))
    assert got.set_index("episode_id").loc[edited.name, "task"] == json.loads(step["new"])
    again, reads, built = load_counted(root, env, tmp_path / "c.pkl")  # the frame built was kept in its place
    assert reads == [] and built == 0
    same(again, got)

    write_run(root, "ep_added", basic_events("ep_added"), summary=hand_summary("ep_added", task="added later"))
    settle()
    got, reads, built = load_counted(root, env, tmp_path / "d.pkl")
    assert reads == ["ep_added"] and built == 1
    same(got, full(root, env, tmp_path))

    [last] = os.listdir(root / SMOKE.name)  # the last run listed (its nested folder's): every other one is where it was
    shutil.rmtree(root / SMOKE.name)
    got, reads, built = load_counted(root, env, tmp_path / "e.pkl")
    assert reads == [] and built == 1  # every run left is in the index; the frame is not the kept one
    same(got, full(root, env, tmp_path))
    assert last not in set(got["episode_id"])


def test_another_price_table_is_never_served_a_frame_priced_by_this_one(
    clean_corpus: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    root = copy_runs(clean_corpus, tmp_path)
    load_counted(root, env, tmp_path / "a.pkl")
    got, _, built = load_counted(root, env, tmp_path / "b.pkl", prices=FLAT)
    assert built == 1
    same(got, full(root, env, tmp_path, prices=FLAT))
    got, _, built = load_counted(root, env, tmp_path / "c.pkl")  # and back: the kept frame is the flat table's now
    assert built == 1
    same(got, full(root, env, tmp_path))


def test_another_verify_level_builds_its_own_frame(clean_corpus: Path, tmp_path: Path, env: dict[str, str]) -> None:
    root = copy_runs(clean_corpus, tmp_path)
    load_counted(root, env, tmp_path / "a.pkl")
    got, _, built = load_counted(root, env, tmp_path / "b.pkl", verify="hash")
    assert built == 1
    same(got, full(root, env, tmp_path, verify="hash"))


def test_a_frame_kept_under_other_library_versions_is_not_unpickled(
    clean_corpus: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    """A frame pickled by one pandas (numpy, pyarrow, Python) is not loaded by another: the key names them."""
    root = copy_runs(clean_corpus, tmp_path)
    load_counted(root, env, tmp_path / "a.pkl", versions=["3.99", "pandas 9", "numpy 9", "no pyarrow"])
    got, _, built = load_counted(root, env, tmp_path / "b.pkl")
    assert built == 1
    same(got, full(root, env, tmp_path))


class _Marker:
    """Unpickled, it creates its marker file: what a crafted kept frame would run if it were ever loaded."""

    def __init__(self, path: Path):
        self.path = str(path)

    def __reduce__(self) -> tuple[Any, ...]:
        return (open, (self.path, "w"))


@pytest.mark.parametrize("damage", ["crafted", "cut", "other key"])
def test_a_kept_frame_that_does_not_check_is_never_loaded(
    clean_corpus: Path, tmp_path: Path, env: dict[str, str], damage: str
) -> None:
    """A file signed with another key (here one that would run code if unpickled), cut by a crash, or kept under
    another seal key: the frame is built, true, and nothing in the file is loaded."""
    from noesis_nb.frames import keptframe, runindex

    root = copy_runs(clean_corpus, tmp_path)
    want, _, _ = load_counted(root, env, tmp_path / "a.pkl")
    [kept] = kept_files(tmp_path)
    marker = tmp_path / "unpickled"
    if damage == "crafted":
        meta = pickle.dumps(_Marker(marker), protocol=5)
        body = len(meta).to_bytes(8, "big") + meta + pickle.dumps(_Marker(marker), protocol=5)
        mac = hmac.new(b"not the seal key".ljust(32, b"!"), keptframe._FORMAT + runindex._code_version(), hashlib.sha256)
        mac.update(body)
        kept.write_bytes(mac.hexdigest().encode() + b"\n" + body)
    elif damage == "cut":
        kept.write_bytes(kept.read_bytes()[: kept.stat().st_size // 2])
    else:  # kept (with the indexes) by a process with another seal key, then the indexes of this key put back
        mine = {index: index.read_bytes() for index in kept.parent.glob("*.json")}
        load_counted(root, {**env, "XDG_CONFIG_HOME": str(tmp_path / "other-config")}, tmp_path / "k.pkl")
        for index, data in mine.items():
            index.write_bytes(data)
    got, reads, built = load_counted(root, env, tmp_path / "b.pkl")
    assert reads == [] and built == 1  # the index checks; the kept frame does not
    assert not marker.exists()
    same(got, want)
    same(got, full(root, env, tmp_path))


def test_a_process_that_knows_a_secret_builds_the_frame(clean_corpus: Path, tmp_path: Path, env: dict[str, str]) -> None:
    root = copy_runs(clean_corpus, tmp_path)
    load_counted(root, env, tmp_path / "a.pkl")
    secret = "hunter2-correct-horse-battery"
    got, reads, built = load_counted(root, env, tmp_path / "b.pkl", learn=str(tmp_path / "somewhere"), secret=secret)
    assert len(reads) == len(os.listdir(root)) and built == 1
    same(got, full(root, env, tmp_path))


def test_a_later_load_after_a_served_frame_reads_only_the_run_that_changed(
    clean_corpus: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    """The served frame made no record: the index stays open for the next load of the folder, so one run changed
    is the one read (not all of them), even after a load of some of the runs in between."""
    root = copy_runs(clean_corpus, tmp_path)
    load_counted(root, env, tmp_path / "a.pkl")
    edited = engine_run(root)
    subset = {"episodes": sorted(os.listdir(root))[:2]}
    got, reads, built = load_counted(root, env, tmp_path / "b.pkl", again=[subset, edit_task(edited)])
    assert reads == [edited.name] and built == 1
    same(got, full(root, env, tmp_path))


def test_a_subset_load_neither_keeps_nor_takes_a_kept_frame(clean_corpus: Path, tmp_path: Path, env: dict[str, str]) -> None:
    root = copy_runs(clean_corpus, tmp_path)
    names = sorted(os.listdir(root))[:3]
    load_counted(root, env, tmp_path / "a.pkl", episodes=names)
    assert kept_files(tmp_path) == []
    load_counted(root, env, tmp_path / "b.pkl")
    assert len(kept_files(tmp_path)) == 1
    got, reads, built = load_counted(root, env, tmp_path / "c.pkl", episodes=names)
    assert reads == [] and built == 1
    same(got, full(root, env, tmp_path, episodes=names))


def test_clear_cache_deletes_kept_frames_and_their_temp_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from noesis_nb.frames import clear_cache, runindex, runs_df

    monkeypatch.setenv("NOESIS_NB_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(runindex, "known_everywhere", lambda: ())
    root = tmp_path / "runs"
    for ep in ("ep_a", "ep_b"):
        write_run(root, ep, basic_events(ep), summary=hand_summary(ep, task="t"))
    settle()
    runs_df(root)
    [kept] = kept_files(tmp_path)
    (kept.parent / f".{kept.name}.4242.abcdef").write_bytes(b"x" * 100)  # what a kill -9 mid-write leaves
    clear_cache()
    assert list(kept.parent.iterdir()) == []


def test_a_run_whose_sums_gave_way_to_its_calls_is_served_as_priced_from_the_calls(tmp_path: Path, env: dict[str, str]) -> None:
    """Under genai-prices the summary's sums of this run price differently from its calls: the first load reads the
    log; the kept frame was priced from the calls, and a change to the log is seen (its stamp is the run's)."""
    import noesis_nb

    from .test_runs_usage_sums import _two_gpt_calls

    root = tmp_path / "runs"
    noesis_nb.solve("two calls", using=_two_gpt_calls, runs_dir=root)
    write_run(root, "ep_plain", basic_events("ep_plain"), summary=hand_summary("ep_plain", task="t"))
    settle()
    first, _, built = load_counted(root, env, tmp_path / "a.pkl")
    got, reads, built = load_counted(root, env, tmp_path / "b.pkl")
    assert reads == [] and built == 0
    same(got, first)
    same(got, full(root, env, tmp_path))
    [run] = [p for p in root.iterdir() if p.name != "ep_plain"]
    log = run / "events.jsonl"
    text, st = log.read_text(), log.stat()
    assert '"output_tokens":' in text
    log.write_text(text.replace('"output_tokens":', '"output_tokenz":', 1))  # same size, same mtime: the ctime tells
    os.utime(log, ns=(st.st_atime_ns, st.st_mtime_ns))
    settle()
    got, reads, built = load_counted(root, env, tmp_path / "c.pkl")
    assert built == 1
    same(got, full(root, env, tmp_path))


def test_a_frame_with_a_call_of_unknown_time_is_not_kept(tmp_path: Path, env: dict[str, str]) -> None:
    """A call whose time is not a time is priced at the time of the load: a frame kept on another day could be priced
    by another rate, so it is built each time."""
    root = tmp_path / "runs"
    for ep in ("ep_a", "ep_b"):
        events = basic_events(ep)
        if ep == "ep_b":
            events[2]["timestamp"] = "not a time"
        write_run(root, ep, events)
    settle()
    first, _, _ = load_counted(root, env, tmp_path / "a.pkl")
    assert kept_files(tmp_path) == []
    got, reads, built = load_counted(root, env, tmp_path / "b.pkl")
    assert reads == [] and built == 1  # the rows from the index, the frame built
    same(got, first)
