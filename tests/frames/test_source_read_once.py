"""A cold ``events_df`` takes the stat of the document naming a run's source from its read, not from a ``stat`` of
its own, and keys its cache with the same stamp a ``stat`` gives (the warm reload is served, an edit is seen)."""

from __future__ import annotations

import json
import os

import pytest

from noesis_nb.frames import events_df
from noesis_nb.frames.cache import CACHE
from noesis_nb.frames.eventblocks import _source_stamp
from noesis_nb.frames.rowsource import read_run_source
from noesis_nb.frames.source import resolve_source
from tests.callcount import called_from

from .runkit import basic_events, hand_summary, write_run
from .test_source_cache import settle


def _layouts(root):
    """Runs whose source documents are present, absent, unreadable, not JSON, folders or links (in and out)."""
    outside = root.parent / "elsewhere.json"
    outside.write_text(json.dumps({"tags": {"source": "taisce"}, "x-noesis_nb": {}}))
    state = {"episode": {"id": "x", "tags": {"source": "taisce"}}, "x-noesis_nb": {}}
    runs = {
        "ep_summary": {"summary.json": json.dumps(hand_summary("ep_summary", task="t"))},
        "ep_both": {"summary.json": json.dumps({"x-noesis_nb": {}}), "state.json": json.dumps(state)},
        "ep_state": {"state.json": json.dumps(state)},
        "ep_none": {},
        "ep_torn": {"summary.json": '{"x-noesis_nb": ', "state.json": json.dumps(state)},
        "ep_list": {"summary.json": "[1, 2]"},
        "ep_dir": {"summary.json": None, "state.json": json.dumps(state)},
        "ep_state_dir": {"state.json": None},
        "ep_link_in": {"summary.json": "kept.json", "kept.json": json.dumps({"x-noesis_nb": {}})},
        "ep_link_out": {"summary.json": str(outside), "state.json": json.dumps(state)},
        "ep_dangling": {"summary.json": "gone.json", "state.json": json.dumps(state)},
    }
    for ep, docs in runs.items():
        write_run(root, ep, basic_events(ep))
        run = root / ep
        for name, text in docs.items():
            if text is None:
                (run / name).mkdir()
            elif ep.startswith(("ep_link", "ep_dangling")) and name == "summary.json":
                os.symlink(text, run / name)
            else:
                (run / name).write_text(text)
    return sorted(runs)


def test_stamped_read_says_what_a_stat_and_a_read_say(tmp_path):
    from noesis_nb.frames.rowsource import read_run_source_stamped

    root = tmp_path / "runs"
    names = _layouts(root)
    refs = resolve_source(root)
    assert [ref.name for ref in refs] == names
    for ref in refs:
        assert read_run_source_stamped(ref) == (read_run_source(ref), _source_stamp(ref)), ref.name


def test_a_cold_load_stats_no_source_document(tmp_path, monkeypatch):
    root = tmp_path / "runs"
    for ep in ("ep_a", "ep_b", "ep_c"):
        write_run(root, ep, basic_events(ep), summary=hand_summary(ep, task=ep))
    expected = events_df(root, cache=False)
    stat, seen = os.stat, []

    def counted(path, *args, **kwargs):  # the real stat, counted (not the stamps of what a run reveals, kept apart)
        if not called_from("noesis_nb.frames.runlearned"):
            seen.append(os.fspath(path))
        return stat(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", counted)
    for cache in (False, True):
        seen.clear()
        got = events_df(root, cache=cache)
        assert got.drop(columns="payload").equals(expected.drop(columns="payload"))
        runs = [p for p in seen if os.path.dirname(p) != str(root)]  # the scan asks whether the root is itself a run
        assert [p for p in runs if os.path.basename(p) in ("summary.json", "state.json")] == [], cache


@pytest.mark.parametrize("doc", ["summary.json", "state.json"])
def test_the_stamp_from_the_read_keys_the_cache(tmp_path, doc):
    root = tmp_path / "runs"
    for ep in ("ep_a", "ep_b"):
        tags = {"source": "taisce"}
        summary = {**hand_summary(ep, task=ep), "tags": tags} if doc == "summary.json" else None
        state = {"episode": {"id": ep, "tags": tags}} if doc == "state.json" else None
        write_run(root, ep, basic_events(ep), summary=summary, state=state)
    settle()
    first = events_df(root)
    hits = CACHE.hits
    assert events_df(root).equals(first) and CACHE.hits == hits + 2  # the stamp stored is the one a stat gives
    path = root / "ep_b" / doc
    text = json.loads(path.read_text())
    (text if doc == "summary.json" else text["episode"])["tags"] = {"source": "noetic"}
    path.write_text(json.dumps(text))
    settle()
    again = events_df(root)
    assert set(again.loc[again["episode_id"] == "ep_b", "source"].astype(str)) == {"noetic"}
    assert set(again.loc[again["episode_id"] == "ep_a", "source"].astype(str)) == {"taisce"}
