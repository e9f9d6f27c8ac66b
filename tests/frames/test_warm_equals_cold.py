"""After any change a frame's output depends on, a warm load (from the cache) equals a cold one, frame for frame.

Each case changes a run between two loads in a way that leaves its events.jsonl as it was (the seal written,
a summary edited, a decision recorded, the whole folder swapped for another with the same sizes and times)."""

from __future__ import annotations

import json
import os
import shutil
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest

import noesis_nb
from noesis_nb.frames import Column, LoadProblemsWarning, clear_cache, events_df, runs_df, tools_df, usage_df
from noesis_nb.frames.fs import RACY_NS

from .runkit import basic_events, hand_summary, llm_adapter, write_run, writer_adapter

FRAMES = {"runs_df": runs_df, "events_df": events_df, "tools_df": tools_df, "usage_df": usage_df}


def _settle() -> None:
    time.sleep(RACY_NS / 1e9 * 3)


def _loads(root: Path) -> dict[str, pd.DataFrame]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LoadProblemsWarning)
        return {name: frame(root) for name, frame in FRAMES.items()}


def _assert_warm_is_cold(root: Path) -> dict[str, pd.DataFrame]:
    warm = _loads(root)
    clear_cache()
    cold = _loads(root)
    for name in FRAMES:
        pd.testing.assert_frame_equal(warm[name], cold[name], obj=name)
        assert warm[name].attrs.get("errors") == cold[name].attrs.get("errors"), name
    return cold


def _seal(run: Path) -> None:
    (run / "final.json").write_text(json.dumps({"episode_id": run.name, "outcome": "cancelled"}))
    (run / "manifest.json").write_text(json.dumps({"schema_version": "manifest/1.0", "episode_id": run.name, "files": []}))


def _edit_summary(run: Path) -> None:
    path = run / "summary.json"
    st = path.stat()
    doc = json.loads(path.read_text())
    doc["task"] = doc["task"].swapcase()  # same size, other content, times set back
    path.write_text(json.dumps(doc))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def _decide(run: Path) -> None:
    noesis_nb.approve_draft(run, next(iter(_drafts(run))), approver_id="ops", reason="fine")


def _drafts(run: Path) -> list[str]:
    return [p.stem for p in run.rglob("prepared/*.json")]


def _swap_folder(run: Path) -> None:
    """The run folder removed and made again under its name: other contents, the same sizes and times."""
    times = {p.relative_to(run): p.stat() for p in run.rglob("*")}
    data = {rel: (run / rel).read_bytes() for rel, st in times.items() if (run / rel).is_file()}
    shutil.rmtree(run)
    run.mkdir()
    for rel in sorted(times, key=lambda rel: len(rel.parts)):
        path = run / rel
        if rel in data:
            blob = data[rel]
            if rel.name == "events.jsonl":  # another task, as long: a different run in every frame
                blob = blob.replace(b"task of", b"TASK OF")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(blob)
        else:
            path.mkdir(parents=True, exist_ok=True)
    for rel, st in sorted(times.items(), key=lambda item: -len(item[0].parts)):
        os.utime(run / rel, ns=(st.st_atime_ns, st.st_mtime_ns))
    os.utime(run, ns=(run.stat().st_atime_ns, run.stat().st_mtime_ns))


def _hand_run(root: Path, ep: str) -> Path:
    return write_run(root, ep, basic_events(ep), summary=hand_summary(ep, task=f"task of {ep}"))


CASES: dict[str, tuple[str, Callable[[Path], None]]] = {
    "sealed without a decision": ("paused", _seal),
    "summary edited in place": ("hand", _edit_summary),
    "a draft decided": ("paused", _decide),
    "folder swapped for a twin": ("hand", _swap_folder),
}


@pytest.mark.parametrize("case", CASES)
def test_a_change_the_log_does_not_show_is_read_again(tmp_path: Path, case: str) -> None:
    kind, change = CASES[case]
    root = tmp_path / "runs"
    noesis_nb.solve("answer", using=llm_adapter, runs_dir=root)
    paused = root / noesis_nb.solve("write a file", using=writer_adapter, runs_dir=root, approver="ask")
    hand = _hand_run(root, "ep_01JWARMCOLD0000000000000000")
    _settle()
    _loads(root)  # the cache holds every run
    events_before = os.stat((paused if kind == "paused" else hand) / "events.jsonl")
    change(paused if kind == "paused" else hand)
    if case != "folder swapped for a twin":
        assert os.stat((paused if kind == "paused" else hand) / "events.jsonl").st_size == events_before.st_size
    _settle()
    _assert_warm_is_cold(root)


def test_runs_added_since_the_last_load_are_read_as_a_cold_load_reads_them(tmp_path: Path) -> None:
    root = tmp_path / "runs"
    noesis_nb.solve("answer", using=llm_adapter, runs_dir=root)
    _hand_run(root, "ep_01JWARMCOLD0000000000000001")
    _settle()
    first = _loads(root)
    noesis_nb.solve("write a file", using=writer_adapter, runs_dir=root, approver="ask")
    _hand_run(root, "ep_01JWARMCOLD0000000000000002")
    _settle()
    cold = _assert_warm_is_cold(root)
    assert len(cold["runs_df"]) == len(first["runs_df"]) + 2


def _reads(**kwargs: object) -> int:
    return 1


def _read_tool_adapter(task: str, ctx: object) -> object:
    return ctx.tool("fs.read@1", {"kwargs": {"path": "a"}}, protocol="python", fn=_reads, effect="read", risk="low")  # type: ignore[attr-defined]


def test_a_seal_put_back_is_read_again_though_the_log_is_unchanged(tmp_path: Path) -> None:
    """The seal says which tool records are as noesis_nb wrote them (shown as written, else redacted as read): the
    events' cache entry, which carries that answer, is redone when final.json comes or goes."""
    root = tmp_path / "runs"
    run = root / noesis_nb.solve("read a file", using=_read_tool_adapter, runs_dir=root)
    aside = tmp_path / "final.json"
    os.rename(run / "final.json", aside)  # a copy still being made, say: manifest.json came first
    _settle()
    columns = [Column("prepared", path="prepared")]
    without = tools_df(root, columns=columns)
    os.rename(aside, run / "final.json")
    _settle()
    warm = tools_df(root, columns=columns)
    clear_cache()
    cold = tools_df(root, columns=columns)
    assert cold["prepared"][0] != without["prepared"][0]  # the seal vouches for the record: shown as written
    pd.testing.assert_frame_equal(warm, cold)
