"""A sealed run's file changed with its time set back, or its manifest edited after its files, is reported by every
frame, cold and warm: no file's time tells whether the manifest's list needs reading."""

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
from noesis_nb.frames import clear_cache
from noesis_nb.frames.fs import LocalFS
from noesis_nb.frames.loadwarning import LoadProblemsWarning
from noesis_nb.frames.problems import SEAL_CHANGE, LoadProblem
from noesis_nb.frames.sealsizes import is_seal_change, listed_sizes, size_changes
from noesis_nb.frames.source import RunRef

from .runkit import add_one

FRAMES: dict[str, Callable[..., pd.DataFrame]] = {
    "events_df": noesis_nb.events_df,
    "usage_df": noesis_nb.usage_df,
    "tools_df": noesis_nb.tools_df,
    "runs_df": noesis_nb.runs_df,
}
CHANGED = "changed after the run was sealed"


def _adapter(task: str, ctx: Any) -> Any:
    ctx.model_call("gpt-4o", provider="openai", input_tokens=1000, output_tokens=100)
    first = ctx.tool("calc.add", {"kwargs": {"x": 1}}, protocol="python", fn=add_one)
    ctx.model_call("gpt-4o", provider="openai", input_tokens=2000, output_tokens=200)
    return first


@pytest.fixture(scope="module")
def sealed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("sealed") / "runs"
    return root / noesis_nb.solve("add one", using=_adapter, runs_dir=root)


@pytest.fixture
def run(sealed: Path, tmp_path: Path) -> Path:
    """A copy of the sealed run, its times kept (``cp -a``)."""
    dest = tmp_path / "runs" / sealed.name
    shutil.copytree(sealed, dest)
    return dest


def _frames(run: Path) -> dict[str, list[dict[str, Any]]]:
    """Each frame's problems for ``run`` (the cache as it is)."""
    out = {}
    for name, frame in FRAMES.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", LoadProblemsWarning)
            out[name] = frame(run).attrs["errors"]
    return out


def _said(errors: dict[str, list[dict[str, Any]]], file: str) -> dict[str, bool]:
    return {
        name: any(e["path"].replace("\\", "/").endswith("/" + file) and CHANGED in e["reason"] for e in found)
        for name, found in errors.items()
    }


def _cut_log_time_kept(run: Path) -> None:
    """The log cut to its first lines, its times set back to what they were (``os.utime``)."""
    log = run / "events.jsonl"
    before = log.stat()
    log.write_bytes(b"".join(log.read_bytes().splitlines(keepends=True)[:3]))
    os.utime(log, ns=(before.st_atime_ns, before.st_mtime_ns))


def _manifest_lists_other_log_size(run: Path) -> None:
    """The manifest edited in place (after the log, its time set back): it lists the log one byte longer."""
    manifest, size = run / "manifest.json", (run / "events.jsonl").stat().st_size
    before = manifest.stat()
    text = manifest.read_text()
    entry = next(e for e in (f'"size_bytes":{size}', f'"size_bytes": {size}') if e in text)
    manifest.write_text(text.replace(entry, entry.replace(str(size), str(size + 1)), 1))
    os.utime(manifest, ns=(before.st_atime_ns, before.st_mtime_ns))


@pytest.mark.parametrize("change", [_cut_log_time_kept, _manifest_lists_other_log_size], ids=["log time set back", "manifest"])
def test_every_frame_reports_the_change_cold(run: Path, change: Callable[[Path], None]) -> None:
    change(run)
    clear_cache()
    said = {}
    for name, frame in FRAMES.items():
        clear_cache()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", LoadProblemsWarning)
            said.update(_said({name: frame(run).attrs["errors"]}, "events.jsonl"))
    assert said == dict.fromkeys(FRAMES, True)
    usage = noesis_nb.runs_df(run)
    assert pd.isna(usage.iloc[0]["model_calls"])


@pytest.mark.parametrize("change", [_cut_log_time_kept, _manifest_lists_other_log_size], ids=["log time set back", "manifest"])
def test_every_frame_reports_the_change_on_a_warm_reload(run: Path, change: Callable[[Path], None]) -> None:
    clear_cache()
    assert _said(_frames(run), "events.jsonl") == dict.fromkeys(FRAMES, False)  # intact, and now cached
    change(run)
    assert _said(_frames(run), "events.jsonl") == dict.fromkeys(FRAMES, True)
    assert _said(_frames(run), "events.jsonl") == dict.fromkeys(FRAMES, True)  # kept with the cached run


def test_a_tool_record_changed_with_its_time_set_back_is_reported_by_tools_df(run: Path) -> None:
    record = next(p for p in (run / "tool_invocations").rglob("*.json") if p.parent.name == "executions")
    clear_cache()
    assert noesis_nb.tools_df(run).attrs["errors"] == []
    before = record.stat()
    record.write_bytes(record.read_bytes() + b" ")
    os.utime(record, ns=(before.st_atime_ns, before.st_mtime_ns))
    for _ in range(2):  # warm, then cold
        with pytest.warns(LoadProblemsWarning):
            df = noesis_nb.tools_df(run)
        assert _said({"tools_df": df.attrs["errors"]}, record.name) == {"tools_df": True}, df.attrs["errors"]
        clear_cache()


def test_a_seal_change_is_known_by_its_kind_not_its_words(run: Path) -> None:
    _cut_log_time_kept(run)
    ref = RunRef(LocalFS(), str(run))
    listed = listed_sizes(ref)
    assert listed is not None
    found = size_changes(ref, listed, {"events.jsonl": LocalFS().stat(str(run / "events.jsonl"))})
    assert [p.kind for p in found] == [SEAL_CHANGE] and is_seal_change(found[0])
    # the same words made elsewhere (quoted in another problem's reason) are no seal change
    assert not is_seal_change(LoadProblem(found[0].path, 3, found[0].reason))
    # the problems' public columns stay as they were
    with pytest.warns(LoadProblemsWarning):
        errors = noesis_nb.events_df(run, cache=False).attrs["errors"]
    assert errors and all(list(e) == ["path", "line", "reason"] for e in errors)
