"""A sealed run's files changed since its seal (a log emptied, blank, cut at a line; a document or tool record
rewritten or gone) are reported by every frame with the file and its sizes, and what they count reads unknown."""

from __future__ import annotations

import os
import shutil
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import noesis_nb
from noesis_nb.frames import RunLoadError, clear_cache
from noesis_nb.frames.loadwarning import LoadProblemsWarning

from .runkit import SMOKE, add_one

FRAMES = {"events_df": noesis_nb.events_df, "usage_df": noesis_nb.usage_df, "tools_df": noesis_nb.tools_df}


def _adapter(task: str, ctx: Any) -> Any:
    ctx.model_call("gpt-4o", provider="openai", input_tokens=1000, output_tokens=100, cached_input_tokens=400)
    ctx.emit("reason", {"text": "thinking"})
    first = ctx.tool("calc.add", {"kwargs": {"x": 1}}, protocol="python", fn=add_one)
    ctx.model_call("gpt-4o", provider="openai", input_tokens=2000, output_tokens=200)
    return first


@pytest.fixture(scope="module")
def sealed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One run sealed by the engine: model calls, a tool draft with its records."""
    root = tmp_path_factory.mktemp("sealed") / "runs"
    ep = noesis_nb.solve("add one", using=_adapter, runs_dir=root)
    return root / ep


def _copy(run: Path, tmp_path: Path, copy: Callable[..., Any] = shutil.copy2) -> Path:
    """The run under a root of its own, its times kept (``cp -a``; ``copy=shutil.copyfile``: made now, in any order)."""
    dest = tmp_path / "runs" / run.name
    shutil.copytree(run, dest, copy_function=copy)
    return dest


def _lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


def _record(run: Path, kind: str) -> Path:
    return next(p for p in (run / "tool_invocations").rglob("*.json") if p.parent.name == kind)


LOG_TAMPERING: dict[str, Callable[[Path], None]] = {
    "emptied": lambda p: p.write_bytes(b""),
    "blank lines": lambda p: p.write_bytes(b"\n\n"),
    "cut at a line": lambda p: p.write_bytes(b"".join(_lines(p)[:3])),
    "lines removed from the middle": lambda p: p.write_bytes(b"".join(_lines(p)[:2] + _lines(p)[5:])),
}


def _load(source: Path) -> dict[str, pd.DataFrame]:
    """Every frame of ``source``, cold, each with the load warning it gave (``attrs["warned"]``)."""
    out = {}
    for name, frame in {**FRAMES, "runs_df": noesis_nb.runs_df}.items():
        clear_cache()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            df = frame(source)
        df.attrs["warned"] = [w for w in caught if issubclass(w.category, LoadProblemsWarning)]
        out[name] = df
    return out


def _reported(df: pd.DataFrame, file: str, *texts: str) -> list[dict[str, Any]]:
    found = [e for e in df.attrs["errors"] if e["path"].replace("\\", "/").endswith("/" + file)]
    return [e for e in found if all(t in e["reason"] for t in texts)]


def _assert_reported(frames: dict[str, pd.DataFrame], names: list[str], file: str, *texts: str) -> None:
    for name in names:
        df = frames[name]
        assert _reported(df, file, *texts), (name, file, df.attrs["errors"])
        assert df.attrs["warned"], name


@pytest.mark.parametrize("how", sorted(LOG_TAMPERING))
def test_a_sealed_log_changed_is_reported_by_every_frame_and_its_calls_are_unknown(sealed, tmp_path, how):
    run = _copy(sealed, tmp_path)
    log = run / "events.jsonl"
    listed = log.stat().st_size
    LOG_TAMPERING[how](log)
    frames = _load(run)
    size = f"{log.stat().st_size} bytes, but manifest.json lists {listed}"
    _assert_reported(frames, [*FRAMES, "runs_df"], "events.jsonl", size, "changed after the run was sealed")
    row = frames["runs_df"].iloc[0]
    for column in ("model_calls", "input_tokens", "output_tokens", "cost_usd", "priced"):
        assert pd.isna(row[column]), (column, row[column])


def test_a_sealed_log_deleted_leaves_its_calls_unknown_not_0(sealed, tmp_path):
    run = _copy(sealed, tmp_path)
    (run / "events.jsonl").unlink()
    frames = _load(run)
    _assert_reported(frames, [*FRAMES, "runs_df"], "events.jsonl", "missing")
    assert pd.isna(frames["runs_df"].iloc[0]["model_calls"])


@pytest.mark.parametrize("file", ["summary.json", "final.json"])
def test_a_sealed_document_rewritten_is_reported_by_every_frame(sealed, tmp_path, file):
    run = _copy(sealed, tmp_path)
    path = run / file
    listed = path.stat().st_size
    path.write_bytes(path.read_bytes().replace(b"{", b'{"edited": true, ', 1))
    frames = _load(run)
    size = f"{path.stat().st_size} bytes, but manifest.json lists {listed}"
    _assert_reported(frames, [*FRAMES, "runs_df"], file, size, "changed after the run was sealed")
    if file == "summary.json":  # its figures are not the sealed ones
        row = frames["runs_df"].iloc[0]
        assert all(pd.isna(row[c]) for c in ("success", "act_count", "veto_count")), row


def test_a_sealed_summary_deleted_is_reported_by_every_frame(sealed, tmp_path):
    run = _copy(sealed, tmp_path)
    (run / "summary.json").unlink()
    _assert_reported(_load(run), [*FRAMES, "runs_df"], "summary.json", "listed in manifest.json but missing")


@pytest.mark.parametrize("kind", ["prepared", "executions"])
def test_a_sealed_tool_record_changed_or_gone_is_reported_and_the_drafts_are_unknown(sealed, tmp_path, kind):
    for gone in (False, True):
        run = _copy(sealed, tmp_path / str(gone))
        record = _record(run, kind)
        name = record.relative_to(run).as_posix()
        listed = record.stat().st_size
        if gone:
            record.unlink()
        else:
            record.write_bytes(record.read_bytes().replace(b"{", b'{"edited": true, ', 1))
        frames = _load(run)
        said = "listed in manifest.json but missing" if gone else f"bytes, but manifest.json lists {listed}"
        _assert_reported(frames, ["tools_df"], name, said, "changed after the run was sealed")
        # runs_df counts the drafts by their records: one gone or edited leaves its counts unknown, and its default
        # (quick) check says so as tools_df does; "size" too
        _assert_reported(frames, ["runs_df"], name, said)
        row = frames["runs_df"].iloc[0]
        assert pd.isna(row["tool_calls"]) and pd.isna(row["pending_approvals"]) and not row["manifest_ok"]
        clear_cache()
        with pytest.warns(LoadProblemsWarning):
            df = noesis_nb.runs_df(run, verify="size")
        assert _reported(df, name, said)


def test_a_tool_record_edited_in_place_after_a_warm_load_is_reported_by_runs_df(sealed, tmp_path):
    # the record's folder keeps its stamp, and the edit sets the record's times back: only its size tells
    run = _copy(sealed, tmp_path)
    clear_cache()
    assert noesis_nb.runs_df(run).iloc[0]["tool_calls"] == 1
    record = _record(run, "prepared")
    before = record.stat()
    record.write_bytes(record.read_bytes() + b" ")
    os.utime(record, ns=(before.st_atime_ns, before.st_mtime_ns))
    for _ in range(2):  # the change seen on the warm load, then served from the cache with its report
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", LoadProblemsWarning)
            df = noesis_nb.runs_df(run)
        assert _reported(df, record.relative_to(run).as_posix(), f"{before.st_size + 1} bytes, but manifest.json lists")
        assert pd.isna(df.iloc[0]["tool_calls"]) and not df.iloc[0]["manifest_ok"]


def test_a_noesis_run_with_its_log_cut_is_reported_by_every_frame(tmp_path):
    run = _copy(next(SMOKE.iterdir()), tmp_path)
    log = run / "events.jsonl"
    listed = log.stat().st_size
    log.write_bytes(b"".join(_lines(log)[:2]))
    frames = _load(run)
    _assert_reported(frames, [*FRAMES, "runs_df"], "events.jsonl", f"bytes, but manifest.json lists {listed}")
    assert pd.isna(frames["runs_df"].iloc[0]["model_calls"])


@pytest.mark.parametrize("copy", [shutil.copy2, shutil.copyfile], ids=["times kept", "times now"])
def test_an_intact_sealed_run_reports_nothing_and_counts_its_calls(sealed, tmp_path, copy):
    run = _copy(sealed, tmp_path, copy)
    frames = _load(run)
    for name, df in frames.items():
        assert df.attrs["errors"] == [] and not df.attrs["warned"], (name, df.attrs["errors"])
    assert frames["runs_df"].iloc[0]["model_calls"] == 2 == len(frames["usage_df"])
    row = frames["runs_df"].iloc[0]
    assert row["tool_calls"] == 1 == len(frames["tools_df"]) and row["pending_approvals"] == 0
    assert row["success"] and row["act_count"] >= 0 and row["veto_count"] == 0 and row["input_tokens"] == 3000


def test_the_report_stays_on_a_warm_load(sealed, tmp_path):
    run = _copy(sealed, tmp_path)
    clear_cache()
    assert noesis_nb.events_df(run).attrs["errors"] == []
    (run / "events.jsonl").write_bytes(b"".join(_lines(run / "events.jsonl")[:3]))
    for _ in range(2):  # the change seen, then served from the cache with its report
        for frame in (noesis_nb.usage_df, noesis_nb.runs_df):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", LoadProblemsWarning)
                df = frame(run)
            assert _reported(df, "events.jsonl", "changed after the run was sealed"), frame
        assert pd.isna(df.iloc[0]["model_calls"])


def test_a_same_size_edit_of_a_sealed_log_is_found_by_hashing_and_its_calls_are_unknown(sealed, tmp_path):
    run = _copy(sealed, tmp_path)
    log = run / "events.jsonl"
    data = log.read_bytes()
    assert b'"input_tokens":1000' in data
    log.write_bytes(data.replace(b'"input_tokens":1000', b'"input_tokens":9000', 1))
    with pytest.warns(LoadProblemsWarning):
        df = noesis_nb.runs_df(run, verify="hash")
    assert _reported(df, "events.jsonl", "sha256")
    assert pd.isna(df.iloc[0]["model_calls"]) and pd.isna(df.iloc[0]["input_tokens"])


def test_a_size_written_twice_in_the_manifest_hides_no_change(sealed: Path, tmp_path: Path) -> None:
    """The manifest of a run whose log lost its model calls, edited to list the log's size twice (the old size, then
    the new): read as orjson reads it (the last value), the log matched it, and runs_df said ``model_calls=0``."""
    run = _copy(sealed, tmp_path)
    log = run / "events.jsonl"
    old = log.stat().st_size
    log.write_bytes(b"".join(line for line in _lines(log) if b'"model.call"' not in line))
    manifest = run / "manifest.json"
    text = manifest.read_text()
    entry = f'"size_bytes":{old}' if f'"size_bytes":{old}' in text else f'"size_bytes": {old}'
    assert entry in text, text[:300]
    manifest.write_text(text.replace(entry, f"{entry}, {entry.replace(str(old), str(log.stat().st_size))}", 1))
    loaded = _load(run.parent)  # the manifest edited after the log: every frame reads its list all the same
    assert pd.isna(loaded["runs_df"]["model_calls"].iloc[0])
    for name in ("runs_df", "events_df", "usage_df"):
        assert _reported(loaded[name], "events.jsonl", "gives it no size"), (name, loaded[name].attrs["errors"])
    with pytest.raises(RunLoadError, match="gives it no size"):  # strict: said, not passed over
        noesis_nb.usage_df(run.parent, strict=True, cache=False)
