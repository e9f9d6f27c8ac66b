"""A key written twice in one JSON object of a run file (``"input_tokens":100,"input_tokens":999999999``): readers
disagree on which value counts, so no frame picks one. The line (or document) is reported and the key read as
unknown, by events_df, usage_df and runs_df alike, and ``strict=True`` raises; the same text with each key once
(whatever its spacing and escapes) reads with no problem. Real engine runs, edited on disk."""

from __future__ import annotations

import hashlib
import json
import time
import warnings
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import noesis_nb
from noesis_nb.errors import EventLogIntegrityError
from noesis_nb.frames import LoadProblemsWarning, clear_cache, events_df, runs_df, usage_df
from noesis_nb.frames.fs import RACY_NS
from noesis_nb.store import iter_events, read_events, read_summary


def _agent(task: str, ctx: Any) -> str:
    ctx.model_call("gpt-4o", provider="openai", input_tokens=100, output_tokens=10)
    return "ok"


def _call_line(lines: list[str]) -> int:
    return next(i for i, line in enumerate(lines) if '"model.call"' in line)


# each writes the call's input_tokens twice; the last, the value Python and orjson keep, is huge
TWICE = {
    "compact": lambda line: line.replace('"input_tokens":100', '"input_tokens":100,"input_tokens":999999999'),
    "spaced": lambda line: line.replace('"input_tokens":100', '"input_tokens" :100 , "input_tokens" : 999999999'),
    "escaped key": lambda line: line.replace('"input_tokens":100', '"input_tokens":100,"input\\u005ftokens":999999999'),
    "colon escaped elsewhere": lambda line: line.replace(
        '"input_tokens":100', '"input_tokens" :100,"input_tokens" :999999999,"note":"a\\u003ab\\u003Ac"'
    ),
    # nested as deep as orjson reads: past where Python's own parser stops when called from a deep stack
    "beside 1,000 levels of lists": lambda line: line.replace(
        '"input_tokens":100', '"input_tokens":100,"input_tokens":999999999,"pad":' + "[" * 1015 + "]" * 1015
    ),
}
# each key once, written in ways a re-serialisation does not reproduce: read with no problem
ONCE = {
    "spaced": lambda line: line.replace('"input_tokens":100', '"input_tokens" : 100 , "note" : "x\\"y\\":z"'),
    "escapes": lambda line: line.replace('"input_tokens":100', '"input_tokens":100,"note":"\\u003a\\u0022:\\\\u003a"'),
}


def _manifest_remade(run: Path) -> None:
    """The manifest made again over the edited files (a copy whose maker re-hashed it): only the repeated key is
    wrong, so ``strict=True`` stops at it."""
    path = run / "manifest.json"
    doc = json.loads(path.read_text())
    for entry in doc["files"]:
        data = (run / entry["name"]).read_bytes()
        entry.update(sha256="sha256:" + hashlib.sha256(data).hexdigest(), size_bytes=len(data))
    path.write_text(json.dumps(doc))


def _edited(root: Path, edit: Any) -> tuple[Path, int]:
    """A sealed engine run whose model.call line is edited by ``edit``; (its events file, that line's number)."""
    episode = noesis_nb.solve("t", using=_agent, runs_dir=root)
    path = root / episode / "events.jsonl"
    lines = path.read_text().splitlines()
    i = _call_line(lines)
    edited = edit(lines[i])
    assert edited != lines[i]
    lines[i] = edited
    path.write_text("\n".join(lines) + "\n")
    _manifest_remade(path.parent)
    time.sleep(RACY_NS / 1e9 * 3)
    return path, i + 1


def _repeats(df: pd.DataFrame, path: Path) -> list[int | None]:
    return [p["line"] for p in df.attrs["errors"] if p["path"] == str(path) and "comes twice" in p["reason"]]


@pytest.mark.parametrize("how", list(TWICE))
@pytest.mark.parametrize("cache", [False, True])
def test_a_key_written_twice_is_reported_at_its_line_and_read_as_unknown(tmp_path: Path, how: str, cache: bool) -> None:
    path, line = _edited(tmp_path / "runs", TWICE[how])
    root = path.parent.parent
    for load in range(2 if cache else 1):  # cold, then warm (the same problems are not warned of twice)
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always")
            frames = {"events_df": events_df(root, cache=cache), "usage_df": usage_df(root, cache=cache)}
            frames["runs_df"] = runs_df(root, cache=cache)
        for name, df in frames.items():
            assert _repeats(df, path) == [line], name
            assert pd.isna(df["input_tokens"].iloc[0] if name != "events_df" else None), name
        assert {type(w.message) for w in said} == (set() if load else {LoadProblemsWarning})
        calls = frames["events_df"].query("event_name == 'model.call'")
        assert [p.get("input_tokens") for p in calls["payload"]] == [None]
        assert pd.isna(frames["runs_df"]["cost_usd"].iloc[0])
    for frame in (events_df, usage_df, runs_df):
        with pytest.raises(Exception, match="comes twice"):
            frame(root, strict=True, cache=False)
    with pytest.raises(EventLogIntegrityError, match="comes twice"):
        read_events(path)
    errors: list[Any] = []
    streamed = list(iter_events(path, strict=False, errors=errors))
    assert [e.line_number for e in errors] == [line]
    assert [e["payload"].get("input_tokens") for e in streamed if e["payload"].get("event_name") == "model.call"] == [None]
    clear_cache()


@pytest.mark.parametrize("how", list(ONCE))
def test_each_key_once_reads_with_no_problem_whatever_its_spacing_and_escapes(tmp_path: Path, how: str) -> None:
    path, _ = _edited(tmp_path / "runs", ONCE[how])
    root = path.parent.parent
    assert _repeats(events_df(root, cache=False), path) == []
    assert usage_df(root, cache=False)["input_tokens"].tolist() == [100]
    assert runs_df(root, cache=False)["input_tokens"].tolist() == [100]
    assert len(read_events(path)) == len(path.read_text().splitlines())


def test_a_key_written_twice_in_the_summary_is_reported_and_read_as_unknown(tmp_path: Path) -> None:
    root = tmp_path / "runs"
    episode = noesis_nb.solve("the task", using=_agent, runs_dir=root)
    path = root / episode / "summary.json"
    doc = json.loads(path.read_text())
    text = json.dumps(doc, indent=2)
    assert '"task": "the task"' in text
    path.write_text(text.replace('"task": "the task"', '"task": "the task", "task": "another task"', 1))
    _manifest_remade(path.parent)
    time.sleep(RACY_NS / 1e9 * 3)
    df = runs_df(root, cache=False)
    said = [p for p in df.attrs["errors"] if p["path"] == str(path) and "comes twice" in p["reason"]]
    assert len(said) == 1 and "'task'" in said[0]["reason"]
    assert df["task"].tolist() != ["another task"]
    assert read_summary(path.parent)["task"] is None
    with pytest.raises(Exception, match="comes twice"):
        runs_df(root, strict=True, cache=False)


def test_a_key_written_twice_in_a_tool_record_is_reported(tmp_path: Path) -> None:
    """An execution record holding ``"status": "failed", "status": "succeeded"``: tools_df reported nothing."""
    from noesis_nb.frames import tools_df

    def agent(task: str, ctx: Any) -> Any:
        return ctx.tool("shell.true", {"argv": ["true"]}, effect="read", risk="low")

    root = tmp_path / "runs"
    episode = noesis_nb.solve("t", using=agent, runs_dir=root, approver="auto")
    (record,) = (root / episode / "tool_invocations" / "executions").glob("*.json")
    text = json.dumps(json.loads(record.read_text()), indent=2)
    assert '"status": "succeeded"' in text
    record.write_text(text.replace('"status": "succeeded"', '"status": "failed", "status": "succeeded"', 1))
    _manifest_remade(root / episode)
    time.sleep(RACY_NS / 1e9 * 3)
    df = tools_df(root, cache=False)
    said = [p for p in df.attrs["errors"] if p["path"] == str(record) and "comes twice" in p["reason"]]
    assert len(said) == 1 and "'status'" in said[0]["reason"], df.attrs["errors"]
