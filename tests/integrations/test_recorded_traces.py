"""Recorded traces: Noetic stream-event logs and Taisce memory injections, replayed as sealed runs."""

from __future__ import annotations

import json

import pytest

from noesis_nb.integrations.noetic import NoeticLogError, import_noetic, noetic_replay, noetic_rows
from noesis_nb.integrations.replay import RecordedRunError
from noesis_nb.integrations.taisce import MEMORY_PREFIX, TaisceTranscriptError, import_taisce, parse_memory_message, taisce_rows
from noesis_nb.store import read_events, read_json, verify_manifest

from .helpers import run

NOETIC_LOG = [
    {"source": "framework", "type": "helper:turn_started", "data": {"turnId": "t1", "messageIds": ["u1"]}},
    {"source": "framework", "type": "helper:model_call_started", "data": {"round": 1, "messageCount": 2, "toolCount": 1}},
    {"source": "sdk", "type": "response.output_text.delta", "data": {"delta": "Look"}, "outputIndex": 0},
    {"source": "sdk", "type": "response.output_text.delta", "data": {"delta": "ing "}, "outputIndex": 0},
    {"source": "sdk", "type": "response.output_text.delta", "data": {"delta": "now"}, "outputIndex": 0},
    {"source": "framework", "type": "helper:tool_call_started", "data": {"callId": "c1", "name": "search"}},
    {"source": "framework", "type": "helper:tool_call_completed", "data": {"callId": "c1"}},
    {"source": "framework", "type": "helper:inbox_injected", "data": {"round": 2, "count": 1, "messageIds": ["m9"]}},
    {"source": "framework", "type": "helper:model_call_stalled", "data": {"round": 2, "idleTimeoutMs": 120000}},
    {
        "source": "framework",
        "type": "helper:turn_aborted",
        "data": {"turnId": "t1", "reason": "model stream idle timeout after 120000ms"},
    },
    {"source": "framework", "type": "helper:foo:bar", "data": {}},
]
HARNESS = {"usage": {"inputTokens": 900, "outputTokens": 40}, "cost": 0.0021, "text": "Looking now", "items": []}


def test_noetic_log_text_splits_at_newlines_only():
    """A JSON string may hold U+2028 or U+0085 unescaped; only "\n" (or "\r\n") ends a JSONL line."""
    event = {"source": "sdk", "type": "response.output_text.delta", "data": {"delta": "a\u2028b\x85c"}, "outputIndex": 0}
    text = "\r\n".join(json.dumps(e, ensure_ascii=False) for e in [NOETIC_LOG[0], event])
    assert list(noetic_rows(text)) == list(noetic_rows([json.dumps(NOETIC_LOG[0]), json.dumps(event)]))


def test_noetic_rows_in_order_with_unknown_cache_as_none():
    rows = list(noetic_rows([json.dumps(e) for e in NOETIC_LOG], HARNESS))
    kinds = [p["kind"] for _, p in rows]
    assert kinds == [
        "run_started",
        "model_call_started",
        "message",
        "tool_call",
        "tool_result",
        "steering",
        "run_error",
        "run_error",
        "custom",
        "usage",
        "harness_response",
    ]
    assert rows[2][1]["text"] == "Looking now" and rows[0][1]["agent"] == "helper"
    assert rows[7][1]["error"] == "model stream idle timeout after 120000ms" and "120000" in rows[6][1]["error"]
    assert rows[8][1]["event_name"] == "noetic.foo:bar"
    usage = rows[9][1]
    assert usage["input_tokens"] == 900 and usage["cached_input_tokens"] is None and usage["cost_usd"] == 0.0021
    assert all(p["source"] == "noetic" for _, p in rows)


def test_noetic_import_writes_a_sealed_run(runs_dir):
    completed = [
        *NOETIC_LOG[:7],
        {"source": "framework", "type": "helper:turn_completed", "data": {"turnId": "t1", "durationMs": 9}},
    ]
    episode = import_noetic(completed, HARNESS, runs_dir=runs_dir)
    run_dir = runs_dir / episode
    assert read_json(run_dir / "summary.json")["status"] == "ok"
    assert read_json(run_dir / "final.json")["outcome"] == "success"
    assert read_json(run_dir / "state.json")["episode"]["tags"] == {"source": "noetic"} and verify_manifest(run_dir).ok
    models = [e for e in read_events(run_dir / "events.jsonl") if e["phase"] == "model"]
    assert len(models) == 1 and models[0]["agent_id"] == "model:unknown"


def test_an_aborted_noetic_run_replays_as_error_and_keeps_every_row(runs_dir):
    handle, _ = run("replay", noetic_replay(NOETIC_LOG, HARNESS), runs_dir)
    assert handle.status == "error" and sum(e["phase"] == "model" for e in handle.events) == 1
    with pytest.raises(RecordedRunError, match="idle timeout after 120000ms"):
        handle.result()


def test_noetic_bad_line_is_named(tmp_path):
    path = tmp_path / "stream.jsonl"
    path.write_text(json.dumps(NOETIC_LOG[0]) + "\n\nnot json\n")
    with pytest.raises(NoeticLogError, match="line 3: not JSON"):
        list(noetic_rows(path))


MEMORY = (
    MEMORY_PREFIX
    + "\n"
    + json.dumps(
        {
            "watermark": {"stored": 12, "formed": 10, "parked": 1},
            "plan": {"controls": {}, "degraded": False, "reach": {}},
            "facts": [{"statement": "Ana likes tea"}, {"statement": "Ana lives in Cork"}],
            "reports": [],
            "passages": [{"id": "p"}],
            "future_key": True,
        }
    )
)


def test_taisce_memory_message_is_an_untrusted_memory_row_never_user_input():
    transcript = [
        {"role": "user", "content": MEMORY, "name": "taisce", "additional_kwargs": {"taisce.untrusted": True}},
        {"role": "user", "content": "What do I drink?"},
        {"role": "assistant", "content": "Tea."},
    ]
    rows = list(taisce_rows(transcript))
    assert [(ph, p["kind"]) for ph, p in rows] == [
        ("memory", "memory_injection"),
        ("integration", "message"),
        ("integration", "message"),
    ]
    memory = rows[0][1]
    assert memory["event_name"] == "taisce.memory_injection" and memory["untrusted"] is True and memory["source"] == "taisce"
    assert (memory["facts"], memory["passages"], memory["stored"], memory["formed"], memory["parked"]) == (2, 1, 12, 10, 1)
    assert "role" not in memory and "text" not in memory and "Ana" not in json.dumps(memory)
    assert [p.get("role") for _, p in rows[1:]] == ["user", "assistant"]


def test_taisce_compaction_variant_and_unreadable_json():
    info = parse_memory_message(
        MEMORY_PREFIX
        + "\n"
        + json.dumps({"watermark": {}, "plan": {"characters": 9, "truncated": True}, "segments": [1, 2, 3], "turns": []})
    )
    assert info["variant"] == "compaction" and info["segments"] == 3 and info["truncated"] is True
    assert "parse_error" in parse_memory_message(MEMORY_PREFIX + "\n{oops")


def test_taisce_unreadable_pretty_printed_json_names_the_line():
    """A multi-line document's parse error says the line and the column, not only a column of some line."""
    doc = (
        '{\n  "watermark": {"stored": 1},\n  "plan": {},\n  "facts": [\n    {"statement": "a"},\n    {"statement": "b",}\n  ]\n}'
    )
    line = 1 + doc[: doc.index(",}")].count("\n")  # a trailing comma: not JSON
    error = parse_memory_message(MEMORY_PREFIX + "\n" + doc)["parse_error"]
    assert f"line {line}, column" in error, error


def test_taisce_langchain_messages_and_import(runs_dir):
    langchain = pytest.importorskip("langchain_core.messages")
    transcript = [
        langchain.HumanMessage(content=MEMORY, name="taisce", additional_kwargs={"taisce.untrusted": True}),
        langchain.HumanMessage(content="hi"),
        langchain.AIMessage(content="hello"),
    ]
    episode = import_taisce(transcript, runs_dir=runs_dir)
    events = read_events(runs_dir / episode / "events.jsonl")
    memory = [e for e in events if e["payload"].get("event_name") == "taisce.memory_injection"]
    assert len(memory) == 1 and memory[0]["phase"] == "memory" and memory[0]["payload"]["injected_as"] == "user"
    assert read_json(runs_dir / episode / "summary.json")["status"] == "ok"


def test_taisce_non_message_is_named():
    with pytest.raises(TaisceTranscriptError, match="item #2 is a int"):
        list(taisce_rows([{"role": "user", "content": "x"}, 42]))
