"""A model call in flight when its episode is cancelled (the interrupt, ``handle.cancel()``), through the real
openai client against a loopback server that answers slowly: the call was sent (the provider bills it), so the
run counts it, its usage unknown, whether the adapter is async (cancelled with it) or sync (its thread runs on)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.store import read_events
from tests.compat.checker import check_run

from .provider_stub import Reply

openai = pytest.importorskip("openai")

MSG = [{"role": "user", "content": "hi"}]


def _model_events(run_dir: Path) -> list[dict[str, Any]]:
    return [e for e in read_events(run_dir / "events.jsonl") if e["phase"] == "model"]


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_a_call_in_flight_at_the_cancel_is_counted_with_its_usage_unknown(stub: Any, tmp_path: Path, kind: str) -> None:
    stub.script("/v1/chat/completions", Reply(delay=1.5))
    sent = stub.hits("/v1/chat/completions")

    def sync_agent(task: str, ctx: Any) -> str:
        client = openai.OpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)
        client.chat.completions.create(model="gpt-4o-mini", messages=MSG)
        return "done"

    async def async_agent(task: str, ctx: Any) -> str:
        client = openai.AsyncOpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)
        await client.chat.completions.create(model="gpt-4o-mini", messages=MSG)
        return "done"

    async def main() -> Any:
        handle = noesis_nb.start("cut off", using=sync_agent if kind == "sync" else async_agent, runs_dir=tmp_path)
        deadline = time.monotonic() + 10
        while stub.hits("/v1/chat/completions") == sent and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        handle.cancel()
        await handle.wait()
        return handle

    handle = asyncio.run(main())
    assert handle.status == "cancelled" and stub.hits("/v1/chat/completions") == sent + 1
    calls = _model_events(handle.run_dir)
    assert len(calls) == 1, calls  # before: none for a sync adapter, as if the call had never been sent
    assert calls[0]["payload"].get("input_tokens") is None and calls[0]["payload"].get("output_tokens") is None
    assert handle.usage["model_calls"] == 1 and handle.usage["input_tokens"] is None
    time.sleep(1.6)  # the sync adapter's thread gets its answer late: nothing more is written
    assert len(_model_events(handle.run_dir)) == 1
    assert check_run(handle.run_dir) == []
