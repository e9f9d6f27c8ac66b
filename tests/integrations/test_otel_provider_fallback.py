"""export_otel: a chat span whose call names no provider (a Noeta import, ``ctx.model_call`` without one) still carries
``gen_ai.provider.name`` (Required by the GenAI conventions): the provider ``usage_df`` prices the call under, and the
``invoke_agent`` root the provider of its model calls."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import noesis_nb
from noesis_nb.integrations.noeta import import_noeta

T0 = 1700000000.0


def _envelope(seq: int, kind: str, payload: dict[str, Any], dt: float) -> dict[str, Any]:
    return {
        "id": f"e{seq}",
        "task_id": "k",
        "seq": seq,
        "type": kind,
        "schema_version": 1,
        "occurred_at": T0 + dt,
        "actor": "llm",
        "trace_id": "tr",
        "correlation_id": None,
        "causation_id": None,
        "payload": payload,
        "origin": "llm",
    }


def _agent(task: str, ctx: Any) -> int:
    ctx.model_call("gpt-4o-mini", input_tokens=10, output_tokens=2)
    return 1


def test_chat_spans_without_a_provider_name_the_pricing_one(tmp_path: Path) -> None:
    root = tmp_path / "runs"
    usage = {"uncached": 10, "cache_read": 5, "cache_write": 0, "output": 3, "reasoning_tokens": 0}
    import_noeta(
        [
            _envelope(0, "TaskCreated", {"goal": "g"}, 0),
            _envelope(1, "LLMRequestStarted", {"call_id": "l1", "model": "claude-sonnet-4-5", "input_tokens": 15}, 1),
            _envelope(2, "LLMRequestFinished", {"call_id": "l1", "success": True, "latency_ms": 5, "usage": usage}, 2),
            _envelope(3, "TaskCompleted", {"answer": "a"}, 3),
        ],
        runs_dir=root,
    )
    noesis_nb.solve("no provider", using=_agent, runs_dir=root)
    calls = noesis_nb.usage_df(root)
    assert calls["provider"].isna().all()  # no call names its provider
    priced = {
        str(m): str(s).removeprefix("genai-prices:").partition("/")[0] for m, s in zip(calls["model"], calls["price_source"])
    }
    out = tmp_path / "trace.json"
    noesis_nb.export_otel(sorted(root.glob("ep_*")), path=out)
    traces: dict[str, list[dict[str, Any]]] = {}
    for resource in json.loads(out.read_text())["resourceSpans"]:
        for scope in resource["scopeSpans"]:
            for span in scope["spans"]:
                traces.setdefault(span["traceId"], []).append(span)
    chats = 0
    for spans in traces.values():
        named = [(s["name"], {a["key"]: a["value"] for a in s["attributes"]}) for s in spans]
        chat = [(name, attrs) for name, attrs in named if name.startswith("chat ")]
        (agent,) = [attrs for name, attrs in named if name.startswith("invoke_agent ")]
        for name, attrs in chat:
            model = name.removeprefix("chat ")
            assert attrs.get("gen_ai.provider.name") == {"stringValue": priced[model]}, (name, attrs)
            assert agent.get("gen_ai.provider.name") == {"stringValue": priced[model]}
            chats += 1
    assert (chats, len(traces)) == (2, 2)
