"""tools_df and usage_df on engine-written runs and hand-written tool records."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from noesis_nb.frames import TOOL_COLUMNS, USAGE_COLUMNS, Column, tools_df, usage_df

from .runkit import event, write_run
from .test_runs import GPT4O_CALL, SONNET_CALL


def test_engine_tool_drafts(engine_runs):
    runs, ids = engine_runs
    df = tools_df(runs)
    assert list(df.columns) == list(TOOL_COLUMNS)
    names = {v: k for k, v in ids.items()}
    df["scenario"] = df["episode_id"].map(names)
    got = sorted(zip(df["scenario"], df["status"].astype(str)))
    assert got == [
        ("approved", "succeeded"),
        ("paused", "pending"),
        ("rejected", "rejected"),
        ("replayed", "replayed"),
        ("replayed", "succeeded"),
    ]
    approved = df[df["scenario"] == "approved"].iloc[0]
    assert approved["tool"] == "fs.write@1" and approved["protocol"] == "python"
    assert approved["effect_kind"] == "write" and approved["risk_tier"] == "high" and approved["requires_approval"]
    assert approved["approver_id"] == "ops" and approved["decision_reason"] == "looks fine"
    assert approved["requested_at"] <= approved["decided_at"] <= approved["executed_at"]
    assert approved["wait_s"] > 0 and approved["duration_ms"] >= 0
    rejected = df[df["scenario"] == "rejected"].iloc[0]
    assert rejected["reason_code"] == "governance.vetoed" and rejected["decision_reason"] == "no writes on friday"
    assert pd.isna(rejected["executed_at"])
    paused = df[df["scenario"] == "paused"].iloc[0]
    assert paused["reason_code"] == "governance.approval_required" and pd.isna(paused["decided_at"]) and pd.isna(paused["wait_s"])
    replay = df[(df["scenario"] == "replayed") & (df["status"] == "replayed")].iloc[0]
    assert replay["reason_code"] == "idempotency.replay" and not replay["requires_approval"]


def test_hand_written_tool_records(tmp_path):
    ep, draft = "ep_t", "draft:ep_t:req_1"
    ts = [f"2025-03-01T10:00:{s:02d}+00:00" for s in (0, 1, 2, 32, 33, 35)]
    events = [
        event(
            ep,
            0,
            "tool",
            {"event_name": "tool.requested", "request_id": "req_1", "protocol": "subprocess", "tool": "write"},
            ts=ts[0],
        ),
        event(ep, 1, "tool", {"event_name": "tool.draft_created", "request_id": "req_1", "draft_id": draft}, ts=ts[1]),
        event(
            ep,
            2,
            "tool",
            {
                "event_name": "tool.approval.pending",
                "request_id": "req_1",
                "draft_id": draft,
                "reason_code": "governance.approval_required",
            },
            ts=ts[2],
        ),
        event(ep, 3, "tool", {"event_name": "tool.approved", "request_id": "req_1", "draft_id": draft}, ts=ts[3]),
        event(ep, 4, "tool", {"event_name": "tool.execution.started", "request_id": "req_1", "draft_id": draft}, ts=ts[4]),
        event(
            ep,
            5,
            "tool",
            {
                "event_name": "tool.execution.failed",
                "request_id": "req_1",
                "draft_id": draft,
                "reason_code": "tool.execution_failed",
            },
            ts=ts[5],
        ),
    ]
    run = write_run(tmp_path / "runs", ep, events, style="old")
    folder = run / "tool_invocations"
    for kind, doc in (
        (
            "prepared",
            {
                "draft_id": draft,
                "request_id": "req_1",
                "protocol": "subprocess",
                "status": "approved",
                "tool": {"namespace": "repo", "name": "write", "version": None},
                "governance": {"effect_kind": "write", "risk_tier": "critical", "requires_approval": True},
            },
        ),
        ("approvals", {"draft_id": draft, "status": "approved", "approver_id": "alice", "reason_code": None}),
    ):
        (folder / kind).mkdir(parents=True)
        (folder / kind / f"{draft}.json").write_text(json.dumps(doc))
    row = tools_df(tmp_path / "runs", columns=[Column("approver", path="approval.approver_id", type="str")]).iloc[0]
    assert row["tool"] == "repo.write" and row["status"] == "failed" and row["reason_code"] == "tool.execution_failed"
    assert row["wait_s"] == 30.0 and row["duration_ms"] == 2000.0 and row["risk_tier"] == "critical"
    assert row["decided_at"] == pd.Timestamp(ts[3]) and row["approver"] == "alice"


def test_engine_usage_rows(engine_runs):
    runs, ids = engine_runs
    df = usage_df(runs, episodes=[ids["success"], ids["failure"]])
    assert list(df.columns) == list(USAGE_COLUMNS)
    ok = df[df["episode_id"] == ids["success"]].reset_index(drop=True)
    assert ok["model"].astype(str).tolist() == ["gpt-4o", "claude-sonnet-4-20250514"]
    assert ok["provider"].astype(str).tolist() == ["openai", "anthropic"]
    assert ok["input_tokens"].tolist() == [1000, 2000] and ok["output_tokens"].tolist() == [100, 300]
    assert ok["cached_input_tokens"].tolist() == [400, 500]
    assert pd.isna(ok["cache_write_input_tokens"][0]) and ok["cache_write_input_tokens"][1] == 200  # null stays NaN
    assert ok["reasoning_tokens"][0] == 20 and ok["latency_ms"][0] == 500.0
    assert ok["cost_usd"].tolist() == pytest.approx([GPT4O_CALL, SONNET_CALL], rel=1e-12)
    assert ok["reported_cost_usd"][0] == 0.5 and pd.isna(ok["reported_cost_usd"][1])  # provider figure kept apart
    assert ok["price_source"].astype(str).tolist() == ["genai-prices:openai/gpt-4o", "genai-prices:anthropic/claude-sonnet-4-0"]
    bad = df[df["episode_id"] == ids["failure"]].iloc[0]
    assert bad["model"] == "unknown-model-xyz" and pd.isna(bad["cost_usd"]) and not bad["priced"]
    assert df.attrs["price_source"] == "genai-prices" and "genai-prices" in df.attrs["price_version"]


def test_usage_reprice_and_extra_column(engine_runs):
    from noesis_nb.cost import reprice

    runs, ids = engine_runs
    df = usage_df(runs, episodes=ids["success"], columns=[Column("model_again", path="payload.model", type="str")])
    assert df["model_again"].tolist() == ["gpt-4o", "claude-sonnet-4-20250514"]
    cheaper = reprice(df, {"gpt-4o": {"input": 0, "output": 0}})
    assert cheaper["cost_usd"].tolist() == pytest.approx([0.0, SONNET_CALL])
    assert cheaper.attrs["price_source"] == "user > genai-prices"


def test_malformed_tool_record_beside_a_good_one(tmp_path):
    from noesis_nb.frames import RunLoadError

    root = tmp_path / "runs"
    for ep, governance in (
        ("ep_bad", "x"),
        ("ep_good", {"effect_kind": "write", "risk_tier": "high", "requires_approval": True}),
    ):
        run = write_run(root, ep, [event(ep, 0, "start", {"task": "t"}, ts="2025-03-01T10:00:00+00:00")])
        folder = run / "tool_invocations" / "prepared"
        folder.mkdir(parents=True)
        (folder / f"draft:{ep}:r1.json").write_text(
            json.dumps({"draft_id": f"draft:{ep}:r1", "status": "approved", "governance": governance})
        )
        (run / "tool_invocations" / "approvals").mkdir()
        (run / "tool_invocations" / "approvals" / f"draft:{ep}:r1.json").write_text(
            json.dumps(
                {
                    "draft_id": f"draft:{ep}:r1",
                    "status": "approved",
                    "decided_at": 7 if ep == "ep_bad" else "2025-03-01T10:00:01Z",
                }
            )
        )
    df = tools_df(root).set_index("episode_id")
    assert df.loc["ep_good", "risk_tier"] == "high" and df.loc["ep_good", "requires_approval"]
    assert pd.isna(df.loc["ep_bad", "risk_tier"]) and df.loc["ep_bad", "status"] == "approved"
    prepared, approval = df.attrs["errors"]  # each bad field is reported against its own record
    assert (
        prepared["path"].endswith("ep_bad/tool_invocations/prepared/draft:ep_bad:r1.json") and "governance" in prepared["reason"]
    )
    assert (
        approval["path"].endswith("ep_bad/tool_invocations/approvals/draft:ep_bad:r1.json") and "decided_at" in approval["reason"]
    )
    with pytest.raises(RunLoadError, match="draft:ep_bad:r1.json"):
        tools_df(root, strict=True, cache=False)


def test_token_counts_written_as_text_are_unknown(tmp_path):
    """usage_df keeps to its docstring and to integrations' token_count: "12" is not a count."""
    root = tmp_path / "runs"
    payload = {
        "event_name": "model.call",
        "model": "gpt-4o",
        "provider": "openai",
        "input_tokens": "1000",
        "output_tokens": 100,
        "cached_input_tokens": "400",
        "latency_ms": "12.5",
        "reasoning_tokens": True,
    }
    write_run(root, "ep_a", [event("ep_a", 0, "model", payload, ts="2025-03-01T10:00:00+00:00")])
    row = usage_df(root).iloc[0]
    assert row["output_tokens"] == 100
    assert all(pd.isna(row[c]) for c in ("input_tokens", "cached_input_tokens", "latency_ms", "reasoning_tokens"))
    assert pd.isna(row["cost_usd"]) and not row["priced"]


def _cut_model_call(ep: str) -> bytes:
    """A model.call line cut off mid-way, with no newline: how a copy cut short (or a write in transit) ends."""
    from .runkit import dump_line, model_call

    line = dump_line(model_call(ep, 6, "2025-03-01T10:00:55.000000+00:00", "gpt-4o", "openai", input_tokens=7), "new")
    return line.encode()[:60]


def test_a_cut_last_line_is_reported_once_the_run_is_sealed_even_if_first_read_while_live(tmp_path, monkeypatch):
    """Read while live, the cut line is one in transit (cached without a word); sealed with it still cut, it is damage."""
    import noesis_nb.frames.fs as frames_fs
    from noesis_nb.frames import events_df
    from noesis_nb.frames.problems import CUT_IN_SEALED_RUN

    from .runkit import basic_events, hand_summary

    monkeypatch.setattr(frames_fs, "RACY_NS", 0)  # every stamp settled: the first read may key the cache
    root = tmp_path / "runs"
    run = write_run(
        root, "ep_cut", basic_events("ep_cut"), summary=hand_summary("ep_cut", task="t"), extra_lines=[_cut_model_call("ep_cut")]
    )
    live = usage_df(root)
    assert len(live) == 2 and live.attrs["errors"] == []  # a live run's last line may be half written
    (run / "final.json").write_text(json.dumps({"outcome": "success"}))  # sealed; events.jsonl unchanged
    wanted = [{"path": str(run / "events.jsonl"), "line": 7, "reason": CUT_IN_SEALED_RUN}]
    sealed = usage_df(root)
    assert len(sealed) == 2 and sealed.attrs["errors"] == wanted
    assert events_df(root).attrs["errors"] == wanted  # named the same way


def test_runs_df_reports_a_cut_model_call_of_a_sealed_run_it_counts_calls_from(tmp_path):
    """A run whose summary has no per-call usage is priced from its model.call lines: a cut one is named, not dropped."""
    from noesis_nb.frames import runs_df
    from noesis_nb.frames.problems import CUT_IN_SEALED_RUN

    from .runkit import basic_events, hand_summary

    root = tmp_path / "runs"
    events = basic_events("ep_cut")
    run = write_run(
        root,
        "ep_cut",
        events,
        summary=hand_summary("ep_cut", task="t"),
        final={"outcome": "success"},
        extra_lines=[_cut_model_call("ep_cut")],
    )
    df = runs_df(root, cache=False)
    assert {"path": str(run / "events.jsonl"), "line": 7, "reason": CUT_IN_SEALED_RUN} in df.attrs["errors"]
    assert df["model_calls"][0] == 2
