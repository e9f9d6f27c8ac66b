"""What one frame says is unknown about a run, the others do not count; what two files of a run say differently is
said. A sealed run whose log changed since its seal: ``runs_df`` gives its calls, tokens and cost unknown, and
``usage_df`` keeps its calls with those figures unknown too (a sum of either frame leaves the run out alike, and with
``skipna=False`` is NaN in both). A run not sealed whose ``summary.json`` usage disagrees with its events: ``runs_df``
shows the events' figures and reports both."""

from __future__ import annotations

import json
import shutil
import warnings
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import noesis_nb
from noesis_nb.frames import RunLoadError, clear_cache
from noesis_nb.frames.columns import TOKEN_COLUMNS


def _adapter(task: str, ctx: Any) -> Any:
    ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=100, output_tokens=10)
    return 1


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two runs sealed by the engine, one model call each."""
    root = tmp_path_factory.mktemp("agree") / "runs"
    first = noesis_nb.solve("one", using=_adapter, runs_dir=root)
    second = noesis_nb.solve("two", using=_adapter, runs_dir=root)
    return root / first, root / second


def _copy(runs: tuple[Path, ...], tmp_path: Path) -> Path:
    root = tmp_path / "runs"
    for run in runs:
        shutil.copytree(run, root / run.name)
    return root


def _quiet(frame: Any, *args: Any, **kwargs: Any) -> pd.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return frame(*args, **kwargs)


def _rewrite_calls(log: Path, change: Any) -> None:
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    for event in lines:
        if event.get("payload", {}).get("event_name") == "model.call":
            change(event["payload"])
    log.write_text("".join(json.dumps(e) + "\n" for e in lines))


def _as_floats(payload: dict[str, Any]) -> None:
    payload["input_tokens"], payload["output_tokens"] = 100.0, 10.0


def test_a_changed_sealed_log_leaves_its_usage_rows_unknown_as_runs_df_says(made, tmp_path):
    root = _copy(made, tmp_path)
    changed, intact = made[0].name, made[1].name
    _rewrite_calls(root / changed / "events.jsonl", _as_floats)  # the same calls, another size than the seal lists
    for _ in range(2):  # cold, then warm from the cache
        runs = _quiet(noesis_nb.runs_df, root).set_index("episode_id")
        usage = _quiet(noesis_nb.usage_df, root)
        said = [e["reason"] for e in runs.attrs["errors"]]
        assert said and said == [e["reason"] for e in usage.attrs["errors"]], (said, usage.attrs["errors"])
        assert "model calls, tokens and cost are unknown" in said[0]
        assert pd.isna(runs.loc[changed, "cost_usd"]) and pd.isna(runs.loc[changed, "input_tokens"])
        mine = usage[usage["episode_id"] == changed]
        assert len(mine) == 1  # the call is still listed as the log now reads it, its figures unknown
        for column in (*TOKEN_COLUMNS, "cost_usd", "reported_cost_usd"):
            assert mine[column].isna().all(), (column, mine[column].tolist())
        assert not mine["priced"].any() and mine["price_source"].isna().all()
        assert mine["model"].tolist() == ["gpt-4o-mini"]
        # the frames' sums agree: the run is left out of both, or NaN in both
        assert usage["cost_usd"].sum() == pytest.approx(runs["cost_usd"].sum()) and usage["cost_usd"].sum() > 0
        assert usage["input_tokens"].sum() == runs["input_tokens"].sum() == 100
        assert pd.isna(usage["cost_usd"].sum(skipna=False)) and pd.isna(runs["cost_usd"].sum(skipna=False))
        other = usage[usage["episode_id"] == intact].iloc[0]  # the intact run keeps its figures
        assert other["input_tokens"] == runs.loc[intact, "input_tokens"] == 100 and other["priced"]
        assert other["cost_usd"] == pytest.approx(runs.loc[intact, "cost_usd"])


def _unseal(run: Path) -> None:
    for name in ("final.json", "manifest.json"):
        (run / name).unlink()


def _repeat_call(log: Path, new_id: bool) -> None:
    lines = log.read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if '"model.call"' in line)
    event = json.loads(lines[at])
    if new_id:
        event["id"] = event["id"][:-4] + "ffff"
    lines.insert(at + 1, json.dumps(event))
    log.write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize("new_id", [True, False], ids=["new id", "same id"])
def test_a_summary_that_disagrees_with_the_events_of_an_unsealed_run_is_reported(made, tmp_path, new_id):
    root = _copy(made, tmp_path)
    run, intact = root / made[0].name, root / made[1].name
    _unseal(run)
    _unseal(intact)  # not sealed either, its summary as its events: nothing to say
    _repeat_call(run / "events.jsonl", new_id)
    clear_cache()
    for _ in range(2):  # cold, then warm from the cache
        runs = _quiet(noesis_nb.runs_df, root).set_index("episode_id")
        found = [e for e in runs.attrs["errors"] if e["path"].replace("\\", "/").endswith(f"{run.name}/summary.json")]
        assert len(found) == 1, runs.attrs["errors"]
        reason = found[0]["reason"]
        assert "gives model_calls 1, input_tokens 100, output_tokens 10" in reason, reason
        assert "adds up to model_calls 2, input_tokens 200, output_tokens 20" in reason, reason
        assert "the frames show the events' figures" in reason
        assert not [e for e in runs.attrs["errors"] if intact.name in e["path"]], runs.attrs["errors"]
        usage = _quiet(noesis_nb.usage_df, root)  # the figures runs_df shows are those usage_df lists
        assert runs.loc[run.name, "model_calls"] == 2 == (usage["episode_id"] == run.name).sum()
        assert runs.loc[run.name, "input_tokens"] == 200 == usage[usage["episode_id"] == run.name]["input_tokens"].sum()
    said = "adds up to model_calls 2" if new_id else "the same event written twice"  # strict: the first problem
    with pytest.raises(RunLoadError, match=said):
        noesis_nb.runs_df(run, strict=True, cache=False)


def test_tool_calls_counted_from_a_changed_sealed_log_are_unknown(made, tmp_path):
    # a run with no tool records counts its tool calls from the log's tool.requested lines: once the log changed
    # since its seal, that count is as unknown as its model calls (a line added says a call the run never made)
    root = _copy(made, tmp_path)
    changed = root / made[0].name
    log = changed / "events.jsonl"
    event = json.loads(log.read_text().splitlines()[-1])
    event["id"], event["type"] = event["id"] + "x", "tool.requested"
    with log.open("a") as f:
        f.write(json.dumps(event) + "\n")
    clear_cache()
    runs = _quiet(noesis_nb.runs_df, root).set_index("episode_id")
    assert pd.isna(runs.loc[changed.name, "tool_calls"]) and pd.isna(runs.loc[changed.name, "model_calls"])
    assert runs.loc[made[1].name, "tool_calls"] == 0


def _edit_summary_usage(run: Path) -> None:
    summary = run / "summary.json"
    doc = json.loads(summary.read_text())
    doc["x-noesis_nb"]["usage"]["input_tokens"] = 100000
    summary.write_text(json.dumps(doc))


@pytest.mark.parametrize("edit", ["call written twice", "summary edited"])
def test_a_sealed_file_changed_since_the_seal_is_one_problem_not_also_a_usage_disagreement(made, tmp_path, edit):
    # the log or the summary changed after the seal is the cause: it is reported once, at its file, and the
    # summary is not also said to disagree with the events (the frames show neither figure as known then)
    root = _copy(made, tmp_path)
    run = root / made[0].name
    if edit == "call written twice":
        _repeat_call(run / "events.jsonl", new_id=True)
    else:
        _edit_summary_usage(run)
    changed = "events.jsonl" if edit == "call written twice" else "summary.json"
    clear_cache()
    for _ in range(2):  # cold, then warm from the cache
        errors = _quiet(noesis_nb.runs_df, root).attrs["errors"]
        mine = [e for e in errors if run.name in e["path"]]
        assert len(mine) == 1, errors
        assert mine[0]["path"].replace("\\", "/").endswith(f"{run.name}/{changed}")
        assert "changed after the run was sealed" in mine[0]["reason"]
        assert not [e for e in errors if "adds up to" in e["reason"]], errors
