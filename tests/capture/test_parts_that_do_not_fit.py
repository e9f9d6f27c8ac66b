"""Token parts that cannot be right: a span's part above its total, an Anthropic cache part that is no count.

The rule (README, "Tokens"): totals include their parts; unknown is null, never 0. A part above its total is
unknown and the total kept (what the SDK capture does with OpenAI's counts); a part that is given but is not a
count makes unknown the total it is added into, while a part left out (or null) adds nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import noesis_nb

from .provider_stub import ProviderStub, Reply, anthropic_message
from .recorded_calls import checked_calls, tokens

sdk_trace = pytest.importorskip("opentelemetry.sdk.trace")
anthropic = pytest.importorskip("anthropic")

MSG = [{"role": "user", "content": "hi"}]


def test_a_span_part_above_its_total_is_unknown_and_the_total_kept(tracer: Any, runs_dir: Path) -> None:
    spans = [
        {"gen_ai.usage.input_tokens": 10, "gen_ai.usage.cache_read.input_tokens": 50, "gen_ai.usage.output_tokens": 3},
        {"gen_ai.usage.input_tokens": 10, "gen_ai.usage.output_tokens": 3, "gen_ai.usage.reasoning.output_tokens": 9},
        # a part whose total is not given contradicts nothing: kept
        {"gen_ai.usage.cache_creation.input_tokens": 7, "gen_ai.usage.output_tokens": 3},
        {"gen_ai.usage.input_tokens": 10, "gen_ai.usage.cache_read.input_tokens": 4, "gen_ai.usage.output_tokens": 3},
    ]

    def agent(task: str, ctx: Any) -> str:
        for attrs in spans:
            with tracer.start_as_current_span("chat") as span:
                span.set_attributes({"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o-mini", **attrs})
        return "ok"

    ep = noesis_nb.solve("parts", using=agent, runs_dir=runs_dir)
    got = checked_calls(runs_dir, ep)  # usage_df(strict=True) reads the run (before: it refused it)
    assert [tokens(p) for p in got] == [
        (10, None, None, 3, None),
        (10, None, None, 3, None),
        (None, None, 7, 3, None),
        (10, 4, None, 3, None),
    ]
    assert "cached_input_tokens (50)" in got[0]["usage_warning"] and "left unknown" in got[0]["usage_warning"]
    assert "reasoning_tokens (9)" in got[1]["usage_warning"]
    assert "usage_warning" not in got[2] and "usage_warning" not in got[3]


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
def test_an_anthropic_cache_part_that_is_no_count_makes_the_input_total_unknown(stream: bool, runs_dir: Path) -> None:
    usages: list[dict[str, Any]] = [
        {"uncached": 200, "cache_read": -1000, "cache_write": 0},
        {"uncached": 200, "cache_read": 1000.5, "cache_write": 0},
        {"uncached": 200, "cache_read": 0, "cache_write": -3},
        {"uncached": 200, "cache_read": None, "cache_write": 30},  # null: adds nothing
        {"uncached": 200, "cache_read": 1000, "cache_write": 30},
    ]
    absent = anthropic_message("claude-x", {"uncached": 200, "cache_read": 0, "cache_write": 0, "output": 80}, "r2")
    del absent["usage"]["cache_read_input_tokens"], absent["usage"]["cache_creation_input_tokens"]  # left out: adds nothing
    server = ProviderStub()
    try:

        def agent(task: str, ctx: Any) -> str:
            client = anthropic.Anthropic(base_url=server.url, api_key="sk-ant-test", max_retries=0)
            for n in usages:  # the stub answers with the counts the request names
                sent = client.messages.create(
                    model="claude-x", max_tokens=8, messages=MSG, stream=stream, extra_body={"stub_usage": n}
                )
                for _event in sent if stream else ():
                    pass
            server.script("/v1/messages", Reply(body=absent))
            client.messages.create(model="claude-x", max_tokens=8, messages=MSG)
            return "ok"

        ep = noesis_nb.solve("cache parts", using=agent, runs_dir=runs_dir)
    finally:
        server.close()
    got = checked_calls(runs_dir, ep)
    assert [p["input_tokens"] for p in got] == [None, None, None, 230, 1230, 200]  # before: 200, 200, 200 for the first
    assert [p["cached_input_tokens"] for p in got] == [None, None, 0, None, 1000, None]
    assert [p["cache_write_input_tokens"] for p in got] == [0, 0, None, 30, 30, None]
    assert [p["output_tokens"] for p in got] == [80] * 6
