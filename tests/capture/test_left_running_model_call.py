"""A model call an adapter left running when ``solve`` unwound to a pause (``asyncio.gather`` of a draft that needs a
person and a real SDK call against a loopback server that answers slowly) is waited for and recorded before the
episode leaves its pause on disk: its tokens were spent."""

from __future__ import annotations

import asyncio
import sys

import pytest

import noesis_nb
from noesis_nb.store import read_events
from tests.compat.checker import check_run

from .provider_stub import Reply

openai = pytest.importorskip("openai")

USAGE = {"stub_usage": {"input": 900, "cached": 0, "output": 70, "reasoning": 0}}


def test_a_model_call_left_running_at_a_pause_is_recorded_before_the_pause_is_left(stub, runs_dir, tmp_path):
    stub.script("/v1/chat/completions", Reply(delay=0.4))

    async def agent(task, ctx):
        client = openai.AsyncOpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)
        code = "import sys; open(sys.argv[1], 'a').write('w')"
        await asyncio.gather(
            ctx.tool_async(
                "fs.write", {"argv": [sys.executable, "-c", code, str(tmp_path / "w.txt")]}, effect="write", risk="high"
            ),
            client.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "hi"}], extra_body=USAGE),
        )

    episode_id = noesis_nb.solve("a draft beside a model call", using=agent, runs_dir=runs_dir, approver="ask")
    run = runs_dir / episode_id
    assert not (run / "final.json").exists()  # paused on the draft
    calls = [e["payload"] for e in read_events(run / "events.jsonl") if e["payload"].get("event_name") == "model.call"]
    assert [(c["input_tokens"], c["output_tokens"]) for c in calls] == [(900, 70)]
    assert check_run(run) == []
