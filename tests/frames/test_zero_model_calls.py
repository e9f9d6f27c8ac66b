"""A run that made no model call totals 0 tokens at $0.00 (priced) in every figure: the summary it is sealed with,
``runs_df``, ``batch_summary`` and the view's header, as ``usage_df`` sums its rows (none). A run whose calls are not
known (its log unreadable or gone) stays unknown."""

from __future__ import annotations

import asyncio
import hashlib
import html
import json
import re
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import noesis_nb
from noesis_nb.frames import LoadProblemsWarning
from noesis_nb.widgets.money import money

from .runkit import basic_events, write_run

TOKENS = ("input_tokens", "output_tokens", "cached_input_tokens", "cache_write_input_tokens", "reasoning_tokens")


def no_model(task: str, ctx: Any) -> str:
    ctx.emit("note", {"text": "thinking without a model"})
    return "ok"


def one_model(task: str, ctx: Any) -> str:
    ctx.model_call("gpt-4o", provider="openai", input_tokens=100, output_tokens=10)
    return "ok"


def _header(run_dir: Path) -> str:
    page = re.sub(r"<style.*?</style>", " ", noesis_nb.show(run_dir).snapshot_html(), flags=re.S)
    text = html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page)))
    found = re.search(r"tokens (.*?) · cost (\S+)", text)
    assert found, text
    return f"{found.group(1)} | {found.group(2)}"


def test_a_run_without_model_calls_totals_zero_everywhere(runs_dir: Path) -> None:
    none = noesis_nb.solve("no model", using=no_model, runs_dir=runs_dir)
    one = noesis_nb.solve("one model", using=one_model, runs_dir=runs_dir)
    usage = json.loads((runs_dir / none / "summary.json").read_text())["x-noesis_nb"]["usage"]
    assert usage == {"model_calls": 0, **dict.fromkeys(TOKENS, 0), "by_model": []}  # was each token total null
    runs = noesis_nb.runs_df(runs_dir).set_index("episode_id")
    row = runs.loc[none]
    assert row.model_calls == 0 and all(row[t] == 0 for t in TOKENS)
    assert row.cost_usd == 0.0 and bool(row.priced)
    calls = noesis_nb.usage_df(runs_dir)
    assert (calls.episode_id == none).sum() == 0
    # runs_df's totals are the sums of each run's usage_df rows, the whole column too
    assert runs.cost_usd.sum(skipna=False) == calls.cost_usd.sum(skipna=False) == runs.loc[one, "cost_usd"]
    assert _header(runs_dir / none) == f"0 in · 0 out (0 calls) | {money(0.0)}"  # was "— | —"


def test_the_batch_summary_of_an_agent_without_model_calls_says_zero_per_task(runs_dir: Path) -> None:
    async def main() -> list[str]:
        b = noesis_nb.batch(["x", "y"], using=no_model, runs_dir=runs_dir)
        await b
        return [e.episode_id for e in b.entries]

    eps = asyncio.run(main())
    summary = noesis_nb.batch_summary(noesis_nb.runs_df(runs_dir, episodes=eps))
    assert summary.cost_per_task_usd.tolist() == [0.0] and summary.tokens_per_task.tolist() == [0.0]


def test_a_run_sealed_by_an_earlier_release_with_null_totals_and_no_calls_reads_zero(runs_dir: Path) -> None:
    """Earlier releases sealed a run without model calls with ``model_calls`` 0 and each token total null."""
    ep = noesis_nb.solve("no model", using=no_model, runs_dir=runs_dir)
    run = runs_dir / ep
    summary = json.loads((run / "summary.json").read_text())
    summary["x-noesis_nb"]["usage"] = {"model_calls": 0, **dict.fromkeys(TOKENS), "by_model": []}
    data = json.dumps(summary).encode()
    (run / "summary.json").write_bytes(data)
    manifest = json.loads((run / "manifest.json").read_text())
    for entry in manifest["files"]:  # sealed so: the manifest vouches for this summary
        if entry["name"] == "summary.json":
            entry.update(sha256="sha256:" + hashlib.sha256(data).hexdigest(), size_bytes=len(data))
    (run / "manifest.json").write_text(json.dumps(manifest))
    runs = noesis_nb.runs_df(runs_dir)
    assert not runs.attrs.get("errors")
    row = runs.iloc[0]
    assert row.model_calls == 0 and row.input_tokens == 0 and row.cost_usd == 0.0 and bool(row.priced)


def test_calls_that_are_not_known_stay_unknown(runs_dir: Path) -> None:
    """A sealed run whose log is gone, and a run whose log cannot be read, made calls nobody can count: unknown."""
    gone = noesis_nb.solve("no model", using=no_model, runs_dir=runs_dir)
    (runs_dir / gone / "events.jsonl").unlink()
    unreadable = runs_dir / "ep_unreadable"
    (unreadable / "events.jsonl").mkdir(parents=True)  # not a file: nothing of it is read
    state = {"episode": {"id": "ep_unreadable", "started_at": "2025-03-01T10:00:00+00:00"}}
    (unreadable / "state.json").write_text(json.dumps(state))
    runs = noesis_nb.runs_df(runs_dir).set_index("episode_id")
    for ep in (gone, "ep_unreadable"):
        row = runs.loc[ep]
        assert pd.isna(row.input_tokens) and pd.isna(row.cost_usd) and row.priced is not True, (ep, row)


def test_a_view_of_a_run_with_a_line_it_cannot_read_does_not_say_no_calls(runs_dir: Path) -> None:
    """A line of the log that cannot be read may have been a model call: the header says unknown, not 0."""
    ep = noesis_nb.solve("no model", using=no_model, runs_dir=runs_dir)
    assert _header(runs_dir / ep).startswith("0 in · 0 out (0 calls)")
    log = runs_dir / ep / "events.jsonl"
    lines = log.read_bytes().splitlines(keepends=True)
    log.write_bytes(b"".join([*lines[:2], b'{"phase": "model", "payload": {"event_name": "model.ca\n', *lines[2:]]))
    assert _header(runs_dir / ep) == "— | —"


def test_a_run_with_a_line_it_cannot_read_and_no_call_read_totals_unknown_in_the_frames(runs_dir: Path) -> None:
    """The frames read such a log as the view does: its calls unknown (tokens, cost, priced and the batch's tokens
    per task), not 0 at $0.00. The run has no summary, so its log is all there is to count from."""
    ep = "ep_torn"
    events = [e for e in basic_events(ep) if e["phase"] != "model"]
    # a model.call line damaged on disk (a NUL where a byte was): it cannot be read
    bad = b'{"episode_id":"ep_torn","payload":{"event_name":"model.call","input_tokens":1000,"model":"gpt-4o"\x00}}\n'
    write_run(runs_dir, ep, events, extra_lines=[bad])
    with pytest.warns(LoadProblemsWarning):
        runs = noesis_nb.runs_df(runs_dir)
    row = runs.set_index("episode_id").loc[ep]
    # before: 0 tokens, $0.00, priced True (batch_summary 0.0 tokens per task), while the view said unknown
    assert pd.isna(row.input_tokens) and pd.isna(row.cost_usd) and row.priced is not True, row
    assert pd.isna(noesis_nb.batch_summary(runs)["tokens_per_task"]).all()
    assert _header(runs_dir / ep) == "— | —"
