"""A cold ``events_df`` reads a sealed run's ``final.json`` and ``manifest.json`` once each and takes their stamps
from those reads, with no ``stat`` of its own; the stamps are the ones a ``stat`` gives, whatever lies in their
place (a file, nothing, a folder, a link in or out of the run), so the warm reload is served and a seal edited or
removed since is seen."""

from __future__ import annotations

import json
import os
import shutil

import pytest

import noesis_nb
from noesis_nb.frames import events_df
from noesis_nb.frames.cache import CACHE
from noesis_nb.frames.eventblocks import _folder_stamp, _read_seal_docs
from noesis_nb.frames.fs import UNREAD, BadFile
from noesis_nb.frames.rowsource import read_run_source
from noesis_nb.frames.source import resolve_source

from .runkit import llm_adapter
from .test_source_cache import settle

SEAL_DOCS = ("final.json", "manifest.json")


@pytest.fixture(scope="module")
def sealed_runs(tmp_path_factory: pytest.TempPathFactory):
    runs = tmp_path_factory.mktemp("sealed") / "runs"
    return runs, [noesis_nb.solve(f"task {i}", using=llm_adapter, runs_dir=runs) for i in range(3)]


def test_seal_documents_read_say_what_a_stat_and_a_read_say(tmp_path, sealed_runs):
    root = tmp_path / "runs"
    shutil.copytree(sealed_runs[0], root, symlinks=True)
    src = root / sealed_runs[1][0]
    outside = tmp_path / "elsewhere.json"
    outside.write_bytes((src / "final.json").read_bytes())
    layouts = {
        "ep_gone": lambda doc: doc.unlink(),
        "ep_folder": lambda doc: (doc.unlink(), doc.mkdir()),
        "ep_link_in": lambda doc: (doc.rename(doc.with_suffix(".kept")), os.symlink(doc.with_suffix(".kept").name, doc)),
        "ep_link_out": lambda doc: (doc.unlink(), os.symlink(outside, doc)),
        "ep_dangling": lambda doc: (doc.unlink(), os.symlink("gone.json", doc)),
    }
    for ep, change in layouts.items():
        for name in SEAL_DOCS:
            shutil.copytree(src, root / f"{ep}_{name[:-5]}", symlinks=True)
            change(root / f"{ep}_{name[:-5]}" / name)
    refs = resolve_source(root)
    assert len(refs) == 3 + 2 * len(layouts)
    for ref in refs:
        folder, docs = _read_seal_docs(ref, read_run_source(ref))
        assert folder == _folder_stamp(ref), ref.name
        for name, doc in zip(SEAL_DOCS, docs):
            try:
                want = ref.read_seal(name)
            except BadFile as exc:
                assert type(doc) is type(exc) and str(doc) == str(exc), (ref.name, name)
            else:
                assert doc == want, (ref.name, name)
            assert doc is not UNREAD


def test_a_cold_load_stats_no_seal_document(sealed_runs, monkeypatch):
    root, eps = sealed_runs
    expected = events_df(root, cache=False)
    stat, seen = os.stat, []
    opened: list[str] = []
    real_open = os.open

    def counted(path, *args, **kwargs):  # the real stat, counted
        seen.append(os.fspath(path))
        return stat(path, *args, **kwargs)

    def counted_open(path, *args, **kwargs):  # the real open, counted
        opened.append(os.fspath(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", counted)
    monkeypatch.setattr(os, "open", counted_open)
    seen.clear()
    got = events_df(root, cache=False)
    assert got.drop(columns="payload").equals(expected.drop(columns="payload"))
    assert got.attrs["errors"] == expected.attrs["errors"] == []
    runs = [p for p in seen if os.path.dirname(p) != str(root)]  # the scan asks whether the root is itself a run
    assert [p for p in runs if os.path.basename(p) in SEAL_DOCS] == []
    for name in SEAL_DOCS:  # each read once a run
        assert sorted(p for p in opened if os.path.basename(p) == name) == sorted(str(root / ep / name) for ep in eps)


def test_the_stamps_from_the_reads_key_the_cache(tmp_path, sealed_runs):
    root = tmp_path / "runs"
    shutil.copytree(sealed_runs[0], root, symlinks=True)
    eps = sealed_runs[1]
    settle()
    first = events_df(root)
    assert first.attrs["errors"] == []
    hits = CACHE.hits
    assert events_df(root).equals(first) and CACHE.hits == hits + len(eps)  # the stamps stored are the ones a stat gives
    manifest = root / eps[0] / "manifest.json"
    doc = json.loads(manifest.read_text())
    for entry in doc["files"]:
        if entry["name"] == "events.jsonl":
            entry["size_bytes"] += 1
    manifest.write_text(json.dumps(doc))
    settle()
    again = events_df(root)
    changed = [e for e in again.attrs["errors"] if "manifest.json lists" in e["reason"]]
    assert [e["path"] for e in changed] == [str(root / eps[0] / "events.jsonl")]
    (root / eps[1] / "final.json").unlink()
    settle()
    third = events_df(root)
    assert [e["path"] for e in third.attrs["errors"] if e["path"].endswith("final.json")] == [str(root / eps[1] / "final.json")]
