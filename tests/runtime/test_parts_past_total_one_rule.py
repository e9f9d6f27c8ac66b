"""A token part above its total (cached 60 in an input of 50, reasoning 9 in an output of 5) is one contradiction,
and every path now treats it by the rule SDK and OTel capture follow: the totals kept, the part written null.
Before, AG-UI's ``RUN_FINISHED.usage`` stored it as given (usage_df then read the input unknown too, and the cost),
and ``ctx.model_call`` raised and wrote the call with every count null: the run's tokens and cost read unknown."""

from __future__ import annotations

import asyncio
import math
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.integrations.agui import AGUIAdapter
from noesis_nb.store import read_events

# (given counts, what the rule keeps): the totals, and the parts that fit in them
CASES = [
    (
        {"input_tokens": 50, "output_tokens": 5, "cached_input_tokens": 60},
        {"input_tokens": 50, "output_tokens": 5, "cached_input_tokens": None},
    ),
    (
        {"input_tokens": 50, "output_tokens": 5, "reasoning_tokens": 9},
        {"input_tokens": 50, "output_tokens": 5, "reasoning_tokens": None},
    ),
    (
        {"input_tokens": 50, "output_tokens": 5, "cached_input_tokens": 30, "cache_write_input_tokens": 40},
        {"input_tokens": 50, "output_tokens": 5, "cached_input_tokens": 30, "cache_write_input_tokens": None},
    ),
]
AGUI_NAMES = {
    "input_tokens": "inputTokens",
    "output_tokens": "outputTokens",
    "cached_input_tokens": "cachedInputTokens",
    "cache_write_input_tokens": "cacheWriteInputTokens",
    "reasoning_tokens": "reasoningTokens",
}
GPT_4O = (2.5, 10.0, 1.25)  # USD per million input, output and cache-read tokens (genai-prices' gpt-4o)


def _cost(kept: dict[str, Any]) -> float:
    cached = kept.get("cached_input_tokens") or 0
    rates = ((kept["input_tokens"] - cached, GPT_4O[0]), (kept["output_tokens"], GPT_4O[1]), (cached, GPT_4O[2]))
    return sum(n * rate for n, rate in rates) / 1e6


def _calls(run: Path) -> list[dict[str, Any]]:
    return [e["payload"] for e in read_events(run / "events.jsonl") if e["phase"] == "model"]


def _by_hand(runs_dir: Path, given: dict[str, int], how: str) -> tuple[Path, list[str]]:
    said: list[str] = []

    def agent(task: str, ctx: Any) -> str:
        ctx.model_call("gpt-4o", provider="openai", input_tokens=1000, output_tokens=50)
        try:
            if how == "model_call":
                ctx.model_call("gpt-4o", provider="openai", **given)
            else:
                ctx.emit("model", {"event_name": "model.call", "model": "gpt-4o", "provider": "openai", **given})
        except ValueError as exc:
            said.append(str(exc))
        return "ok"

    return runs_dir / noesis_nb.solve("t", using=agent, runs_dir=runs_dir), said


def _agui(runs_dir: Path, given: dict[str, int]) -> Path:
    async def agent(run_input: Any) -> Any:
        ids = {"threadId": run_input.thread_id, "runId": run_input.run_id}
        yield {"type": "RUN_STARTED", **ids}
        usage = {"model": "gpt-4o", "provider": "openai", **{AGUI_NAMES[k]: v for k, v in given.items()}}
        yield {"type": "RUN_FINISHED", **ids, "usage": [usage]}

    return runs_dir / asyncio.run(noesis_nb.solve_async("t", using=AGUIAdapter(agent), runs_dir=runs_dir))


@pytest.mark.parametrize("given, kept", CASES, ids=["cached>input", "reasoning>output", "cached+write>input"])
def test_model_call_keeps_the_totals_and_says_so(runs_dir: Path, given: dict[str, int], kept: dict[str, Any]) -> None:
    run, said = _by_hand(runs_dir, given, "model_call")
    calls = _calls(run)
    assert len(calls) == 2, calls  # the call is written once, never a phantom with every count null
    assert {k: calls[1][k] for k in kept} == kept
    lost = [k for k, v in kept.items() if v is None]
    assert len(said) == 1 and "exceeds" in said[0] and all(f"{k} unknown" in said[0] for k in lost), said
    row = noesis_nb.runs_df(runs_dir).iloc[0]
    assert row.model_calls == 2 and row.input_tokens == 1050 and row.output_tokens == 55
    assert math.isclose(row.cost_usd, (1000 * GPT_4O[0] + 50 * GPT_4O[1]) / 1e6 + _cost(kept), rel_tol=1e-9)


@pytest.mark.parametrize("given, kept", CASES, ids=["cached>input", "reasoning>output", "cached+write>input"])
def test_emit_and_agui_follow_the_same_rule(runs_dir: Path, given: dict[str, int], kept: dict[str, Any]) -> None:
    (runs_dir / "emit").mkdir()
    emitted, said = _by_hand(runs_dir / "emit", given, "emit")
    assert said == []  # ctx.emit is the raw path: never refused for parts
    assert {k: _calls(emitted)[1][k] for k in kept} == kept
    (runs_dir / "agui").mkdir()
    call = _calls(_agui(runs_dir / "agui", given))[0]
    assert {k: call[k] for k in kept} == kept
    assert "exceeds" in call["usage_warning"] and "the totals kept" in call["usage_warning"]
    usage = noesis_nb.usage_df(runs_dir / "agui").iloc[0]
    assert usage.input_tokens == 50 and usage.output_tokens == 5 and bool(usage.priced)
    assert math.isclose(usage.cost_usd, _cost(kept), rel_tol=1e-9)
