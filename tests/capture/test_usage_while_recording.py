"""The episode's usage read while its model calls are being written (a view's subscriber, another thread) and once
sealed: every call counted once, each read seeing every call written before it, and the summary's totals and
per-model split equal to the log's. Real SDK calls against the loopback provider."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.store import read_events

from .recorded_calls import calls

openai = pytest.importorskip("openai")

MSG = [{"role": "user", "content": "hi"}]
MODELS = ("gpt-4o-mini", "gpt-4o")


def _agent(stub: Any, n: int) -> Any:
    def agent(task: str, ctx: Any) -> str:
        client = openai.OpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)
        for i in range(n):
            usage = {"input": 100 + i, "cached": i % 7, "output": 10 + i % 3, "reasoning": i % 2}
            client.chat.completions.create(model=MODELS[i % 2], messages=MSG, extra_body={"stub_usage": usage})
            if i % 5 == 4:
                ctx.model_call("o3", provider="openai", input_tokens=7, output_tokens=2)  # a manual report among them
        return "done"

    return agent


def _total(values: Any) -> int | None:
    """A total as the summary keeps it: the sum when every call reported the count, None (unknown) when any did not."""
    values = list(values)
    return None if any(v is None for v in values) else sum(values)


def test_usage_read_while_calls_are_written_counts_each_once_and_the_summary_matches_the_log(stub: Any, runs_dir: Path) -> None:
    n = 40
    seen_by_subscriber: list[tuple[int, int, int]] = []
    polled: list[int] = []
    stop = threading.Event()

    async def main() -> Any:
        handle = noesis_nb.start("usage while recording", using=_agent(stub, n), runs_dir=runs_dir)
        written = 0

        def on_event(event: dict[str, Any]) -> None:
            nonlocal written
            if event["phase"] == "model":
                written += 1
                seen_by_subscriber.append((written, handle.usage["model_calls"], len(handle.usage_calls)))

        handle.subscribe(on_event)

        def poll() -> None:
            while not stop.is_set():
                polled.append(handle.usage["model_calls"])

        poller = threading.Thread(target=poll)
        poller.start()
        try:
            await handle.wait()
        finally:
            stop.set()
            poller.join()
        return handle

    handle = asyncio.run(main())
    assert handle.status == "ok"
    logged = calls(runs_dir, handle.episode_id)
    assert len(logged) == n + n // 5
    # the subscriber, told of each model event, sees it counted (the live usage includes the call just written)
    assert [(k, k, k) for k in range(1, len(logged) + 1)] == seen_by_subscriber
    assert polled == sorted(polled) and polled and polled[-1] <= len(logged)  # never a count going back
    # the sealed summary: totals and the per-model split, as the log says
    summary = json.loads((runs_dir / handle.episode_id / "summary.json").read_text())["x-noesis_nb"]["usage"]
    fields = ("input_tokens", "cached_input_tokens", "output_tokens", "reasoning_tokens")
    assert summary["model_calls"] == len(logged)
    for field in fields:
        assert summary[field] == _total(p[field] for p in logged)
    by_model = {row["model"]: row for row in summary["by_model"]}
    assert set(by_model) == {p["model"] for p in logged}
    for model, row in by_model.items():
        mine = [p for p in logged if p["model"] == model]
        assert row["model_calls"] == len(mine)
        for field in fields:
            assert row[field] == _total(p[field] for p in mine)
    assert handle.usage["model_calls"] == len(logged) and len(handle.usage_calls) == len(logged)
    assert sum(1 for e in read_events(runs_dir / handle.episode_id / "events.jsonl") if e["phase"] == "model") == len(logged)
