"""Run folders swapped by rename between loads: every frame reads what is on disk now, warm or in a new process.

Two roots each hold a run ``ep_a`` (and another, so a new process keeps a runs index and a frame for the root)
whose files have the same sizes, mtimes and ctimes (set back to back) but not the same content. Swapping the two
folders by rename changes no file's size or times, only which file (inode) each path names: a cache keyed by
(size, mtime, ctime) alone would serve each root the other's old frame.
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from noesis_nb.frames import clear_cache, events_df, runs_df, usage_df

from .newprocess import load, settle
from .runkit import basic_events, hand_summary, write_run

NAMES = ("events.jsonl", "summary.json")
WHEN = 1_700_000_000_000_000_000


def _stamp(path: Path) -> tuple[int, int, int]:
    st = os.stat(path)
    return st.st_size, st.st_mtime_ns, st.st_ctime_ns


def twin_runs(tmp_path: Path) -> tuple[Path, Path]:
    """``one/ep_a`` and ``two/ep_a``: same sizes and times file by file, different tasks, days and token counts."""
    for attempt in range(200):  # a ctime cannot be set: write and touch the files within one clock tick until they match
        roots = tmp_path / f"one-{attempt}", tmp_path / f"two-{attempt}"
        for root, task, day in zip(roots, ("task one", "task two"), ("2025-03-01", "2025-03-02")):
            summary = hand_summary("ep_a", task=task, started_at=f"{day}T10:00:00+00:00")
            write_run(root, "ep_a", basic_events("ep_a", day=day), summary=summary)
            write_run(root, "ep_z", basic_events("ep_z"), summary=hand_summary("ep_z", task="the same"))
        pairs = [(roots[0] / "ep_a" / n, roots[1] / "ep_a" / n) for n in NAMES]
        for a, b in pairs:
            os.utime(a, ns=(WHEN, WHEN))
            os.utime(b, ns=(WHEN, WHEN))
        if all(_stamp(a) == _stamp(b) for a, b in pairs):
            break
    assert all(a.read_bytes() != b.read_bytes() and _stamp(a) == _stamp(b) for a, b in pairs)
    settle()
    return roots


def swap(a: Path, b: Path) -> None:
    a.rename(a.with_name("ep_tmp"))
    b.rename(a)
    a.with_name("ep_tmp").rename(b)
    settle()


def frames(root: Path) -> list[pd.DataFrame]:
    return [runs_df(root), events_df(root), usage_df(root)]


def test_swapped_run_folders_are_read_again_in_process(tmp_path: Path) -> None:
    one, two = twin_runs(tmp_path)
    before = {root: frames(root) for root in (one, two)}
    swap(one / "ep_a", two / "ep_a")
    warm = {root: frames(root) for root in (one, two)}
    clear_cache()
    cold = {root: frames(root) for root in (one, two)}
    for root in (one, two):
        assert warm[root][0]["task"].tolist() != before[root][0]["task"].tolist()  # the swap shows
        for got, want in zip(warm[root], cold[root]):
            pd.testing.assert_frame_equal(got, want)


def test_swapped_run_folders_are_read_again_by_a_new_process(tmp_path: Path, env: dict[str, str]) -> None:
    one, two = twin_runs(tmp_path)
    first = {root: load(root, env, tmp_path / f"{root.name}.pkl")[0] for root in (one, two)}
    swap(one / "ep_a", two / "ep_a")
    for root in (one, two):  # the runs index and kept frame written by the first loads must not be served
        kept, _ = load(root, env, tmp_path / f"{root.name}-kept.pkl")
        other = {**env, "NOESIS_NB_CACHE_DIR": str(tmp_path / f"cold-{root.name}")}
        cold, reads = load(root, other, tmp_path / f"{root.name}-cold.pkl")
        assert reads == 2 and kept["task"].tolist() != first[root]["task"].tolist()
        pd.testing.assert_frame_equal(kept, cold)
