"""source= forms, the per-run cache (hits, live appends, changed documents) and the progress bar."""

from __future__ import annotations

import os
import time

import pandas as pd
import pytest

from noesis_nb import config
from noesis_nb.errors import RunNotFoundError
from noesis_nb.frames import events_df, runs_df
from noesis_nb.frames.cache import CACHE
from noesis_nb.frames.fs import RACY_NS
from noesis_nb.store import write_manifest

from .runkit import basic_events, dump_line, event, hand_summary, write_run


@pytest.fixture
def three_runs(tmp_path):
    root = tmp_path / "runs"
    for ep in ("ep_a", "ep_b", "ep_c"):
        write_run(root, ep, basic_events(ep), summary=hand_summary(ep, task=ep))
    settle()
    return root


def settle() -> None:
    """Let files just written age past the file system's clock tick: only then may a stamp key the cache."""
    time.sleep(RACY_NS / 1e9 + 0.01)


def test_source_forms(three_runs, monkeypatch):
    assert runs_df(three_runs)["episode_id"].tolist() == ["ep_a", "ep_b", "ep_c"]
    assert runs_df(three_runs / "ep_b")["episode_id"].tolist() == ["ep_b"]
    assert runs_df([three_runs / "ep_c", str(three_runs / "ep_a")])["episode_id"].tolist() == ["ep_c", "ep_a"]
    assert runs_df(str(three_runs / "ep_[ab]"))["episode_id"].tolist() == ["ep_a", "ep_b"]
    assert runs_df(f"file://{three_runs}")["episode_id"].tolist() == ["ep_a", "ep_b", "ep_c"]
    config.set(runs_dir=str(three_runs))
    assert runs_df("ep_c")["episode_id"].tolist() == ["ep_c"]  # an episode id, found under the configured runs dir
    assert len(runs_df()) == 3  # None: the configured runs dir
    with pytest.raises(RunNotFoundError, match="ep_zzz"):
        runs_df("ep_zzz")
    with pytest.raises(RunNotFoundError, match="matches nothing"):
        runs_df(str(three_runs / "nope*"))


def test_second_load_is_served_from_the_cache(three_runs):
    first = events_df(three_runs)
    hits = CACHE.hits
    second = events_df(three_runs)
    assert CACHE.hits == hits + 3
    assert first.equals(second)
    runs_df(three_runs)
    hits = CACHE.hits
    runs_df(three_runs)
    assert CACHE.hits == hits + 3
    events_df(three_runs, cache=False)
    assert CACHE.hits == hits + 3


def test_live_run_appending_is_reloaded(three_runs):
    path = three_runs / "ep_b" / "events.jsonl"
    before = events_df(three_runs)
    with open(path, "a") as fh:
        fh.write(dump_line(event("ep_b", 6, "memory", {"status": "skipped"}, ts="2025-03-01T10:01:00+00:00"), "new"))
    after = events_df(three_runs)
    assert len(after) == len(before) + 1
    assert after[after["episode_id"] == "ep_b"]["phase"].iloc[-1] == "memory"
    pd.testing.assert_frame_equal(
        after[after["episode_id"] == "ep_a"].reset_index(drop=True),
        before[before["episode_id"] == "ep_a"].reset_index(drop=True),
        check_categorical=False,
    )


def test_changed_summary_is_reloaded(three_runs):
    assert runs_df(three_runs)["task"].tolist() == ["ep_a", "ep_b", "ep_c"]
    summary = three_runs / "ep_b" / "summary.json"
    summary.write_text(summary.read_text().replace('"ep_b"', '"ep_b"', 1).replace('"task": "ep_b"', '"task": "renamed"'))
    stat = os.stat(summary)
    os.utime(summary, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert runs_df(three_runs)["task"].tolist() == ["ep_a", "renamed", "ep_c"]
    (three_runs / "ep_c" / "final.json").write_text('{"outcome": "success"}')
    assert runs_df(three_runs)["sealed"].tolist() == [False, False, False]  # final.json alone: still being sealed
    write_manifest(three_runs / "ep_c", "ep_c")
    assert runs_df(three_runs)["sealed"].tolist() == [False, False, True]


def test_progress_bar_for_many_runs(tmp_path, capsys):
    root = tmp_path / "runs"
    for i in range(3):
        write_run(root, f"ep_{i}", basic_events(f"ep_{i}"))
    events_df(root, progress=True)
    assert "noesis_nb: events" in capsys.readouterr().err
    events_df(root)
    assert capsys.readouterr().err == ""


def _edit_in_place(path, old: str, new: str) -> None:
    """Rewrite a file's bytes without a rename (the directory's mtime stays), with a later mtime."""
    text = path.read_text().replace(old, new)
    with open(path, "r+", encoding="utf-8") as fh:
        fh.write(text)
        fh.truncate()
    stat = os.stat(path)
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))


def test_in_place_edits_of_a_sealed_run_are_reloaded(tmp_path):
    root = tmp_path / "runs"
    run = write_run(
        root,
        "ep_a",
        basic_events("ep_a"),
        summary=hand_summary("ep_a", task="before"),
        final={"outcome": "success"},
        manifest=True,
    )
    nosum = write_run(
        root,
        "ep_b",
        basic_events("ep_b"),
        state={"episode": {"id": "ep_b"}, "goal": {"task": "state before"}},
        final={"outcome": "success"},
    )
    df = runs_df(root).set_index("episode_id")
    assert (df.loc["ep_a", "task"], df.loc["ep_a", "outcome"], df.loc["ep_b", "task"]) == ("before", "success", "state before")
    assert df.loc["ep_a", "manifest_ok"]
    dir_mtime = os.stat(run).st_mtime_ns
    _edit_in_place(run / "summary.json", '"before"', '"after"')
    _edit_in_place(run / "final.json", '"success"', '"failed"')
    _edit_in_place(run / "manifest.json", '"size_bytes": ', '"size_bytes": 1')
    _edit_in_place(nosum / "state.json", '"state before"', '"state after"')
    assert os.stat(run).st_mtime_ns == dir_mtime
    df = runs_df(root).set_index("episode_id")
    assert (df.loc["ep_a", "task"], df.loc["ep_a", "outcome"], df.loc["ep_b", "task"]) == ("after", "failed", "state after")
    assert not df.loc["ep_a", "manifest_ok"]


def test_a_file_changed_within_one_tick_of_a_load_is_read_again(tmp_path):
    """Git's "racily clean" rule: a run whose files changed moments before it was read is not cached, so a
    same-size rewrite that keeps the mtime (the same tick of the file system's clock) is still seen."""
    root = tmp_path / "runs"
    write_run(root, "ep_a", basic_events("ep_a"), summary=hand_summary("ep_a", task="first"))
    summary = root / "ep_a" / "summary.json"
    before = summary.stat()
    assert runs_df(root)["task"].tolist() == ["first"]
    summary.write_text(summary.read_text().replace('"first"', '"again"'))  # same size
    os.utime(summary, ns=(before.st_atime_ns, before.st_mtime_ns))  # and the same tick
    assert summary.stat().st_size == before.st_size
    assert runs_df(root)["task"].tolist() == ["again"]
    assert events_df(root)["episode_id"].tolist() == events_df(root, cache=False)["episode_id"].tolist()
    settle()  # once the files are older than a tick, loads are cached again
    runs_df(root)
    hits = CACHE.hits
    runs_df(root)
    assert CACHE.hits == hits + 1
