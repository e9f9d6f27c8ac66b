"""runs_df on engine-written runs, hand-written runs in both serialisations, and the real Noēsis run."""

from __future__ import annotations

import hashlib
import json

import pandas as pd
import pytest

from noesis_nb.frames import RUN_COLUMNS, Column, RunLoadError, runs_df, usage_df

from .runkit import basic_events, event, hand_summary, write_run

# gpt-4o: $2.5 input, $1.25 cached, $10 output per M; claude-sonnet-4: $3, $0.30 cached, $3.75 cache write, $15 output.
GPT4O_CALL = (600 * 2.5 + 400 * 1.25 + 100 * 10) / 1e6  # 1000 in (400 cached), 100 out (20 reasoning inside)
SONNET_CALL = (1300 * 3 + 500 * 0.3 + 200 * 3.75 + 300 * 15) / 1e6  # 2000 in (500 cached, 200 cache-write), 300 out


def by_scenario(engine_runs):
    runs, ids = engine_runs
    df = runs_df(runs)
    names = {v: k for k, v in ids.items()}
    return df.set_index(df["episode_id"].map(names))


def test_engine_statuses_and_flags(engine_runs):
    df = by_scenario(engine_runs)
    assert list(df.columns[: len(RUN_COLUMNS)]) == list(RUN_COLUMNS)
    expected = {
        "success": "ok",
        "failure": "error",
        "veto_enforce": "vetoed",
        "veto_audit": "ok",
        "paused": "paused",
        "approved": "ok",
        "rejected": "vetoed",
        "replayed": "ok",
        "cancelled": "cancelled",
    }
    assert df["status"].astype(str).to_dict() == expected
    assert df.loc["veto_enforce", "veto_count"] == 1 and df.loc["veto_enforce", "governance_mode"] == "enforce"
    assert df.loc["veto_audit", "governance_mode"] == "audit" and df.loc["veto_audit", "veto_count"] == 0
    assert df.loc["paused", "pending_approvals"] == 1 and not df.loc["paused", "sealed"]
    assert pd.isna(df.loc["paused", "manifest_ok"]) and pd.isna(df.loc["paused", "ended_at"])
    assert df.loc["approved", "tool_calls"] == 1 and df.loc["approved", "pending_approvals"] == 0
    assert df.loc["replayed", "tool_calls"] == 2
    sealed = df.drop(index="paused")
    assert sealed["sealed"].all() and sealed["manifest_ok"].all()
    assert df.loc["success", "success"] and not df.loc["failure", "success"]
    assert df.loc["cancelled", "outcome"] == "cancelled" and df.loc["rejected", "outcome"] == "vetoed"
    assert df.loc["success", "task"] == "answer a question" and df.loc["success", "using"] == "llm_adapter"
    assert df.loc["success", "tags_team"] == "search" and df.loc["success", "tags_n"] == 1
    assert (df["ended_at"].dropna() >= df["started_at"][df["ended_at"].notna()]).all()
    assert str(df["started_at"].dtype) == "datetime64[us, UTC]"


def test_engine_tokens_and_cost(engine_runs):
    df = by_scenario(engine_runs)
    row = df.loc["success"]
    assert row["model_calls"] == 2
    assert (row["input_tokens"], row["cached_input_tokens"], row["output_tokens"]) == (3000, 900, 400)
    # gpt-4o reported no cache-write count and sonnet no reasoning count: those totals are unknown, not partial sums
    assert pd.isna(row["cache_write_input_tokens"]) and pd.isna(row["reasoning_tokens"])
    assert row["cost_usd"] == pytest.approx(GPT4O_CALL + SONNET_CALL, rel=1e-9)
    assert row["priced"]
    # an unknown model is never priced as 0
    assert pd.isna(df.loc["failure", "cost_usd"]) and not df.loc["failure", "priced"]
    # no model calls: 0 tokens at $0.00, the sums of its usage_df rows (none), not unknown
    assert df.loc["veto_enforce", "model_calls"] == 0 and df.loc["veto_enforce", "input_tokens"] == 0
    assert df.loc["veto_enforce", "cost_usd"] == 0.0 and df.loc["veto_enforce", "priced"]
    assert df.attrs["price_source"] == "genai-prices" and df.attrs["price_version"].startswith("genai-prices ")


def test_user_prices_override(engine_runs):
    runs, ids = engine_runs
    table = {"gpt-4o": {"input": 1, "cached_input": 0.5, "output": 2}, "claude-sonnet-4-20250514": {"input": 10, "output": 20}}
    df = runs_df(runs, episodes=[ids["success"]], prices=table)
    expected = (600 * 1 + 400 * 0.5 + 100 * 2) / 1e6 + (2000 * 10 + 300 * 20) / 1e6  # no cache prices: charged as input
    assert df["cost_usd"].iloc[0] == pytest.approx(expected, rel=1e-12)
    assert df.attrs["price_source"] == "user > genai-prices"


@pytest.mark.parametrize("style", ["old", "new"])
def test_hand_written_runs_both_serialisations(tmp_path, style):
    root = tmp_path / "runs"
    write_run(
        root,
        "ep_ok",
        basic_events("ep_ok"),
        style=style,
        manifest=True,
        summary=hand_summary("ep_ok", task="task of ep_ok", tags={"team": "a"}),
        final={"outcome": "success", "finalized_at": "2025-03-01T10:00:51+00:00"},
    )
    # older Noēsis: success as 0, no status in the summary: the terminate event decides
    write_run(
        root, "ep_err", basic_events("ep_err", status="error"), style=style, summary=hand_summary("ep_err", task="t", success=0)
    )
    # still running: no summary, no state
    write_run(root, "ep_live", basic_events("ep_live")[:3], style=style)
    # paused: lifecycle events, state partial
    pause = basic_events("ep_pause")[:2] + [
        event(
            "ep_pause",
            2,
            "runtime",
            {"kind": "run.interrupt", "status": "interrupted"},
            ts="2025-03-01T10:00:20+00:00",
            event_type="run.interrupt",
        ),
        event(
            "ep_pause",
            3,
            "runtime",
            {"kind": "run.checkpoint", "status": "paused", "checkpoint_id": "chk_1"},
            ts="2025-03-01T10:00:30+00:00",
            event_type="run.checkpoint",
        ),
    ]
    write_run(
        root,
        "ep_pause",
        pause,
        style=style,
        state={
            "episode": {
                "id": "ep_pause",
                "started_at": "2025-03-01T10:00:00+00:00",
                "using": "adapter:hand",
                "tags": {"team": "b"},
            },
            "goal": {"task": "paused task"},
            "outcomes": {"status": "partial", "actions": [{}, {}]},
        },
    )
    df = runs_df(root).set_index("episode_id")
    assert df["status"].astype(str).to_dict() == {"ep_err": "error", "ep_live": "running", "ep_ok": "ok", "ep_pause": "paused"}
    assert not df.loc["ep_err", "success"] and df.loc["ep_ok", "success"]
    assert df.loc["ep_ok", "manifest_ok"] and pd.isna(df.loc["ep_err", "manifest_ok"])
    assert df.loc["ep_ok", "sealed"] and not df.loc["ep_live", "sealed"]
    assert df.loc["ep_ok", "duration_s"] == 50.0
    assert df.loc["ep_ok", "ended_at"] == pd.Timestamp("2025-03-01T10:00:50Z")
    assert df.loc["ep_live", "task"] == "task of ep_live" and df.loc["ep_live", "using"] == "hand"
    assert df.loc["ep_pause", "task"] == "paused task" and df.loc["ep_pause", "act_count"] == 2
    assert df.loc["ep_pause", "using"] == "hand" and df.loc["ep_pause", "tags_team"] == "b"
    # tokens from the model.call lines: gpt-4o priced, the private model is not → the run is unpriced
    assert df.loc["ep_ok", "model_calls"] == 2 and df.loc["ep_ok", "input_tokens"] == 1050
    assert pd.isna(df.loc["ep_ok", "cost_usd"]) and not df.loc["ep_ok", "priced"]
    priced = runs_df(root, prices={"acme/my-private-model": {"input": 1, "output": 1}}).set_index("episode_id")
    assert priced.loc["ep_ok", "cost_usd"] == pytest.approx(GPT4O_CALL + 55 / 1e6)


def test_legacy_label_layout_and_manifest_missing_file(tmp_path):
    root = tmp_path / "runs"
    run = write_run(
        root / "demo",
        "ep_20251104_155501_805857_c5f4_s0",
        basic_events("ep_old"),
        style="old",
        manifest=True,
        summary=hand_summary("ep_20251104_155501_805857_c5f4_s0", task="legacy", success=1),
    )
    manifest = json.loads((run / "manifest.json").read_text())
    manifest["files"].append({"name": "transcript.jsonl", "sha256": "sha256:00", "size_bytes": 3, "kind": "attachment"})
    (run / "manifest.json").write_text(json.dumps(manifest))
    df = runs_df(root)
    assert len(df) == 1 and df["episode_id"].iloc[0] == "ep_20251104_155501_805857_c5f4_s0"
    assert df["manifest_ok"].iloc[0] is False or df["manifest_ok"].iloc[0] == False  # noqa: E712
    assert df["status"].iloc[0] == "ok" and df["success"].iloc[0]


def test_changed_file_size_fails_the_manifest_and_hash_mode(tmp_path):
    root = tmp_path / "runs"
    run = write_run(root, "ep_a", basic_events("ep_a"), manifest=True, summary=hand_summary("ep_a", task="t"))
    assert runs_df(root)["manifest_ok"].iloc[0]
    text = (run / "summary.json").read_text()
    (run / "summary.json").write_text(text.replace('"t"', '"u"'))  # same size, different bytes
    # modified after manifest.json: the quick check hashes it too, and finds it changed
    assert not runs_df(root, cache=False)["manifest_ok"].iloc[0]
    assert not runs_df(root, verify="hash", cache=False)["manifest_ok"].iloc[0]
    (run / "summary.json").write_text(text + " ")
    assert not runs_df(root, cache=False)["manifest_ok"].iloc[0]


def test_bad_summary_is_reported_or_raised(tmp_path):
    root = tmp_path / "runs"
    write_run(root, "ep_good", basic_events("ep_good"), summary=hand_summary("ep_good", task="fine"))
    bad = write_run(root, "ep_bad", basic_events("ep_bad"))
    (bad / "summary.json").write_text("{not json")
    df = runs_df(root)
    assert len(df) == 2 and set(df["status"]) == {"ok"}
    [problem] = df.attrs["errors"]
    assert problem["path"].endswith("ep_bad/summary.json") and "invalid JSON" in problem["reason"]
    with pytest.raises(RunLoadError, match=r"ep_bad/summary.json.*invalid JSON"):
        runs_df(root, strict=True, cache=False)


def test_extra_columns(tmp_path):
    root = tmp_path / "runs"
    write_run(
        root,
        "ep_a",
        basic_events("ep_a"),
        summary=hand_summary("ep_a", task="t") | {"metrics": {"success": True, "plan_adherence": 0.75}},
    )
    df = runs_df(
        root,
        columns=[
            Column("adherence", path="summary.metrics.plan_adherence", type="float"),
            Column("task_len", fn=lambda r: len(r["summary"]["task"]), type="int"),
            Column("nothing", path="summary.no.such.key", type="str"),
        ],
    )
    assert df["adherence"].iloc[0] == 0.75 and df["task_len"].iloc[0] == 1 and pd.isna(df["nothing"].iloc[0])
    with pytest.raises(ValueError, match="default column"):
        runs_df(root, columns=[Column("status", path="summary.x")])


def test_real_noesis_run(smoke_root):
    df = runs_df(smoke_root)
    row = df.iloc[0]
    assert row["episode_id"] == "ep_01K9RBBMXXRSFWR49SXFGF4SPR" and row["status"] == "ok"
    assert row["task"] == "smoke: manifest happy path" and row["using"] == "core.minimal"
    assert row["act_count"] == 3 and row["success"] and row["sealed"] and row["manifest_ok"]
    assert row["duration_s"] == 0.000911 and row["model_calls"] == 0
    assert df.attrs["errors"] == []


def test_summary_usage_by_model_of_a_run_not_sealed_here_gives_way_to_its_events(tmp_path):
    """A summary that lists usage by model (noesis_nb extension) stands in for the events only in a run sealed here:
    a hand-written one is priced from its events (as ``usage_df`` reads them: here, none, from a line that cannot be
    read: what it held is unknown, so the run's calls are too, never the summary's 3 nor a plausible 0)."""
    root = tmp_path / "runs"
    by_model = [
        {
            "provider": "openai",
            "model": "gpt-4o",
            "model_calls": 3,
            "input_tokens": 3000,
            "cached_input_tokens": 1200,
            "cache_write_input_tokens": 0,
            "output_tokens": 300,
            "reasoning_tokens": 0,
        }
    ]
    summary = hand_summary("ep_a", task="t", status="ok") | {"x-noesis_nb": {"usage": {"model_calls": 3, "by_model": by_model}}}
    run = write_run(root, "ep_a", basic_events("ep_a"), summary=summary, final={"outcome": "success"})
    (run / "events.jsonl").write_text("this would be a corrupt line if it were read\n")
    df = runs_df(root)
    row = df.iloc[0]
    assert pd.isna(row["model_calls"]) and pd.isna(row["input_tokens"]) and len(usage_df(root)) == 0


def test_summary_usage_by_model_of_a_run_sealed_here_needs_no_event_scan(tmp_path, monkeypatch):
    """A run sealed here, unedited, is priced from its summary's per-model sums: its events are not scanned."""
    import noesis_nb
    from noesis_nb.frames import runrecord

    root = tmp_path / "runs"
    ep = noesis_nb.solve("t", using=_every_part_known, runs_dir=root)
    scans = []
    scan = runrecord.scan_model_calls
    monkeypatch.setattr(runrecord, "scan_model_calls", lambda *a, **kw: scans.append(1) or scan(*a, **kw))
    df = runs_df(root, cache=False)
    assert df.attrs["errors"] == [] and df["episode_id"].tolist() == [ep]
    usage = usage_df(root, cache=False)
    assert df["input_tokens"].iloc[0] == usage["input_tokens"].sum() == 2_000
    assert scans == []


def _every_part_known(task, ctx):
    """Two calls of one model, every token part given: the summary's per-model sums price as the calls do."""
    for _ in range(2):
        ctx.model_call(
            "gpt-4o", provider="openai", input_tokens=1_000, output_tokens=10, cached_input_tokens=0, cache_write_input_tokens=0
        )
    return "done"


def test_verify_modes(tmp_path):
    root = tmp_path / "runs"
    run = write_run(root, "ep_a", basic_events("ep_a"), summary=hand_summary("ep_a", task="t"))
    record = run / "tool_invocations" / "prepared" / "draft:ep_a:r1.json"
    record.parent.mkdir(parents=True)
    record.write_text('{"status": "approved"}')
    files = [
        {
            "name": p.relative_to(run).as_posix(),
            "size_bytes": p.stat().st_size,
            "sha256": "sha256:" + hashlib.sha256(p.read_bytes()).hexdigest(),
        }
        for p in sorted(run.rglob("*"))
        if p.is_file()
    ]
    (run / "manifest.json").write_text(json.dumps({"files": files}))
    assert runs_df(root)["manifest_ok"].iloc[0] and runs_df(root, verify="hash", cache=False)["manifest_ok"].iloc[0]
    record.write_text('{"status": "approved", "x": 1}')
    # quick: a tool record's size is checked too (tools_df compares it; the frames agree)
    assert not runs_df(root, cache=False)["manifest_ok"].iloc[0]
    assert not runs_df(root, verify="size", cache=False)["manifest_ok"].iloc[0]
    assert not runs_df(root, verify="hash", cache=False)["manifest_ok"].iloc[0]
    record.unlink()
    assert not runs_df(root, cache=False)["manifest_ok"].iloc[0]
    with pytest.raises(ValueError, match="verify='fast'"):
        runs_df(root, verify="fast")


def _two_gpt_calls(task, ctx):
    """Two gpt-4o calls: one with most input read from cache, one that did not report its cache split."""
    ctx.model_call(
        "gpt-4o",
        provider="openai",
        input_tokens=100_000,
        output_tokens=100,
        cached_input_tokens=90_000,
        cache_write_input_tokens=0,
    )
    ctx.model_call("gpt-4o", provider="openai", input_tokens=1_000, output_tokens=100)
    return "done"


def test_run_cost_equals_the_sum_of_its_calls_when_a_summary_part_is_unknown(tmp_path):
    """A by_model row with a null cached part must not price the group as uncached: runs_df sums usage_df per run."""
    import noesis_nb
    from noesis_nb.frames import usage_df

    root = tmp_path / "runs"
    ep = noesis_nb.solve("two calls", using=_two_gpt_calls, runs_dir=root)
    summary = json.loads((root / ep / "summary.json").read_text())
    [group] = summary["x-noesis_nb"]["usage"]["by_model"]
    assert group["cached_input_tokens"] is None  # the case: the per-model sum lost the first call's cache split
    runs = runs_df(root).set_index("episode_id")
    calls = usage_df(root).groupby("episode_id", observed=True)["cost_usd"].sum()
    expected = (10_000 * 2.5 + 90_000 * 1.25 + 100 * 10) / 1e6 + (1_000 * 2.5 + 100 * 10) / 1e6  # by hand
    assert calls[ep] == pytest.approx(expected, rel=1e-12)
    assert runs.loc[ep, "cost_usd"] == pytest.approx(expected, rel=1e-12) and runs.loc[ep, "priced"]
    assert pd.isna(runs.loc[ep, "cached_input_tokens"]) and runs.loc[ep, "input_tokens"] == 101_000


def test_token_totals_are_nan_when_any_call_is_unknown(tmp_path):
    root = tmp_path / "runs"
    write_run(root, "ep_a", basic_events("ep_a"), summary=hand_summary("ep_a", task="t"))  # cached: 400 and unknown
    row = runs_df(root).iloc[0]
    assert row["input_tokens"] == 1050 and row["output_tokens"] == 105
    assert pd.isna(row["cached_input_tokens"]) and pd.isna(row["reasoning_tokens"])


@pytest.mark.parametrize(
    "name, patch",
    [
        ("summary.json", {"summary": {"metrics": [1]}}),
        ("summary.json", {"summary": {"flags": "x"}}),
        ("summary.json", {"summary": {"metrics": {"act_count": "three", "success": True}}}),
        ("summary.json", {"summary": {"started_at": 5, "duration_sec": "long", "tags": [1]}}),
        ("state.json", {"state": {"episode": "x", "outcomes": "y", "goal": [2]}}),
    ],
)
def test_one_malformed_run_does_not_spoil_the_load(tmp_path, name, patch):
    root = tmp_path / "runs"
    write_run(root, "ep_good", basic_events("ep_good"), summary=hand_summary("ep_good", task="fine"))
    docs = {"summary": hand_summary("ep_bad", task="bad") | patch.get("summary", {})} if "summary" in patch else {}
    write_run(root, "ep_bad", basic_events("ep_bad")[:3], state=patch.get("state"), **docs)
    df = runs_df(root).set_index("episode_id")
    assert list(df.index) == ["ep_bad", "ep_good"]
    assert df.loc["ep_good", "task"] == "fine" and df.loc["ep_good", "act_count"] == 1 and df.loc["ep_good", "status"] == "ok"
    assert df.attrs["errors"] and all(e["path"].endswith(f"ep_bad/{name}") for e in df.attrs["errors"])
    with pytest.raises(RunLoadError, match=f"ep_bad/{name}"):
        runs_df(root, strict=True, cache=False)


def test_summary_usage_of_a_run_spanning_midnight_is_priced_from_its_calls(tmp_path):
    """Prices are per day: per-model sums of a run that crosses midnight (UTC) cannot say which day a call was on."""
    root = tmp_path / "runs"
    by_model = [
        {
            "provider": "openai",
            "model": "gpt-4o",
            "model_calls": 1,
            "input_tokens": 1000,
            "cached_input_tokens": 0,
            "cache_write_input_tokens": 0,
            "output_tokens": 10,
            "reasoning_tokens": 0,
        }
    ]
    summary = hand_summary("ep_a", task="t", status="ok", started_at="2025-03-01T23:59:50+00:00", duration=20.0) | {
        "x-noesis_nb": {"usage": {"model_calls": 1, "by_model": by_model}}
    }
    run = write_run(root, "ep_a", basic_events("ep_a"), summary=summary, final={"outcome": "success"})
    (run / "events.jsonl").write_text('{"payload": {"event_name": "model.call"} torn\n')
    df = runs_df(root)
    assert [e["line"] for e in df.attrs["errors"]] == [1, None]  # the events were read
    # the call the summary counts is not among them (its line is torn): the frames show 0 and say so
    assert "gives model_calls 1" in df.attrs["errors"][1]["reason"] and "model_calls 0" in df.attrs["errors"][1]["reason"]
