"""What a run never screened reveals (``runlearned``: its documents and tool records) is read with no avoidable work.

A load lists each of the run's tool folders once (the listing that tells what the records reveal is the one that makes
``tools_df``'s rows and ``runs_df``'s counts); a warm load lists none (the folders' stamps, taken before they were
listed, tell a record made, renamed or removed since) and stats no document the load's cache keys stat-ed already.
Counted by the calls into ``os`` by path: a shared machine's clock is too noisy to hold a figure.
"""

from __future__ import annotations

import os
import shutil
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest

from noesis_nb.frames import clear_cache, events_df, runs_df, tools_df
from noesis_nb.frames import fs as frames_fs


def _counting(monkeypatch: pytest.MonkeyPatch) -> Counter[tuple[str, str]]:
    """(call, path) -> how often ``os.listdir``, ``os.scandir``, ``os.stat`` and ``os.open`` were called on it."""
    seen: Counter[tuple[str, str]] = Counter()
    for name in ("listdir", "scandir", "stat", "open"):
        real = getattr(os, name)

        def counted(path: object = ".", *args: object, _real: object = real, _name: str = name, **kwargs: object) -> object:
            seen[(_name, str(path))] += 1
            return _real(path, *args, **kwargs)  # type: ignore[operator]

        monkeypatch.setattr(os, name, counted)
    return seen


def _paused_runs(engine_runs: tuple[Path, dict[str, str]], root: Path) -> list[Path]:
    """Two unsealed engine runs (a draft waiting for a person), each with an approval and an execution record."""
    runs_root, ids = engine_runs
    runs = []
    for name in ("a", "b"):
        run = root / f"{ids['paused']}{name}"
        shutil.copytree(runs_root / ids["paused"], run, symlinks=True)
        assert not (run / "manifest.json").exists()
        [draft] = sorted((run / "tool_invocations" / "x-python" / "prepared").glob("*.json"))
        for kind, body in (("approvals", '{"status": "approved"}'), ("executions", '{"status": "succeeded"}')):
            (run / "tool_invocations" / kind).mkdir()
            (run / "tool_invocations" / kind / draft.name).write_text(body)
        runs.append(run)
    return runs


def _listings(seen: Counter[tuple[str, str]], run: Path) -> dict[str, int]:
    tools = str(run / "tool_invocations")
    return {path: n for (call, path), n in seen.items() if call in ("listdir", "scandir") and path.startswith(tools)}


@pytest.fixture
def paused(engine_runs, tmp_path, monkeypatch) -> list[Path]:
    monkeypatch.setattr(frames_fs, "RACY_NS", 0)  # the files just written are kept as read, as older ones are
    clear_cache()
    yield _paused_runs(engine_runs, tmp_path / "runs")
    clear_cache()


@pytest.mark.parametrize("frame", [tools_df, runs_df])
def test_a_cold_load_lists_each_tool_folder_once(paused, monkeypatch, frame):
    root = paused[0].parent
    expected = frame(root, cache=False)
    clear_cache()
    with monkeypatch.context() as m:
        seen = _counting(m)
        got = frame(root)
    pd.testing.assert_frame_equal(got, expected)
    for run in paused:
        listed = _listings(seen, run)
        assert listed and max(listed.values()) == 1, listed  # each folder listed once (2 or 3 times before)


def test_a_warm_events_df_lists_no_tool_folder_and_stats_no_document_twice(paused, monkeypatch):
    root = paused[0].parent
    cold = events_df(root)
    with monkeypatch.context() as m:
        seen = _counting(m)
        warm = events_df(root)
    pd.testing.assert_frame_equal(warm.drop(columns="payload"), cold.drop(columns="payload"))
    assert list(warm["payload"]) == list(cold["payload"])
    for run in paused:
        assert _listings(seen, run) == {}  # the folders' stamps tell a record made since (4 listed a run before)
        twice = {p: n for (call, p), n in seen.items() if call == "stat" and p.startswith(str(run)) and n > 1}
        assert twice == {}  # state.json and final.json stat-ed for the cache key, not again to check what they reveal


@pytest.mark.parametrize("cache", [True, False])
def test_clear_cache_and_cache_false_read_the_records_again(paused, monkeypatch, cache):
    """``clear_cache()`` and ``cache=False`` promise a load that reads every file again: what the tool records reveal
    too (it was kept through both, and only its files' stats looked at)."""
    root = paused[0].parent
    events_df(root)
    if cache:
        clear_cache()
    with monkeypatch.context() as m:
        seen = _counting(m)
        events_df(root, cache=cache)
    for run in paused:
        records = sorted(run.glob("tool_invocations/**/*.json"))
        assert len(records) == 3 and all(seen[("open", str(r))] == 1 for r in records), seen
