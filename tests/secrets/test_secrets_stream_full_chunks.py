"""A secret streamed across chunks as the providers' clients give them whole: a Gemini or Vertex chunk carries its
safety ratings, usage, model version and response id, a client's ``model_dump()`` every unset field as None. Such a
chunk holds some 30 to 60 values, and the piece test read no payload of more than 24 values: those chunks were no
stream's pieces, and a password streamed across them was written in plain text. Only strings count now (numbers,
None, booleans and empty containers can be no text); ordinary chunks' texts are kept. And an ordinary event (no
chunk text key in its line) is screened through as few Python calls as before the piece test walked it."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from anthropic.types import RawContentBlockDeltaEvent
from openai.types.chat import ChatCompletionChunk

import noesis_nb
from noesis_nb.secrets import guard
from tests.secrets.test_secrets_stream_shapes import _key, _unsealed_run
from tests.widgets.test_show_streamed_key import _shown

_HARMS = (
    "HARM_CATEGORY_HATE_SPEECH",
    "HARM_CATEGORY_DANGEROUS_CONTENT",
    "HARM_CATEGORY_HARASSMENT",
    "HARM_CATEGORY_SEXUALLY_EXPLICIT",
)


def _gemini_rest(text: str) -> dict[str, Any]:
    """A ``streamGenerateContent`` chunk of the Gemini API (1.5 sends safety ratings in each)."""
    return {
        "candidates": [
            {
                "content": {"parts": [{"text": text}], "role": "model"},
                "index": 0,
                "safetyRatings": [{"category": c, "probability": "NEGLIGIBLE"} for c in _HARMS],
            }
        ],
        "usageMetadata": {
            "promptTokenCount": 9,
            "candidatesTokenCount": 3,
            "totalTokenCount": 12,
            "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 9}],
        },
        "modelVersion": "gemini-1.5-flash-002",
        "responseId": "8zRMaJ2nFqrtnvgP",
    }


def _vertex_rest(text: str) -> dict[str, Any]:
    """A Vertex AI ``streamGenerateContent`` chunk: scored ratings, a creation time."""
    ratings = [
        {
            "category": c,
            "probability": "NEGLIGIBLE",
            "probabilityScore": 0.04,
            "severity": "HARM_SEVERITY_NEGLIGIBLE",
            "severityScore": 0.02,
        }
        for c in _HARMS
    ]
    return {
        "candidates": [{"content": {"role": "model", "parts": [{"text": text}]}, "safetyRatings": ratings}],
        "usageMetadata": {
            "promptTokenCount": 9,
            "candidatesTokenCount": 3,
            "totalTokenCount": 12,
            "trafficType": "ON_DEMAND",
            "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 9}],
            "candidatesTokensDetails": [{"modality": "TEXT", "tokenCount": 3}],
        },
        "modelVersion": "gemini-2.0-flash-001",
        "createTime": "2026-12-07T07:00:00.123456Z",
        "responseId": "Yk1UaKzLBq2Y-O4P",
    }


def _genai_dump(text: str) -> dict[str, Any]:
    """google-genai's ``GenerateContentResponse.model_dump(mode="json")`` of a streamed chunk: its fields, unset ones
    None."""
    part = dict.fromkeys(
        ("video_metadata", "thought", "inline_data", "file_data", "thought_signature", "code_execution_result")
        + ("executable_code", "function_call", "function_response")
    )
    candidate: dict[str, Any] = dict.fromkeys(
        ("citation_metadata", "finish_message", "token_count", "finish_reason", "url_context_metadata", "avg_logprobs")
        + ("grounding_metadata", "logprobs_result")
    )
    candidate |= {
        "content": {"parts": [{**part, "text": text}], "role": "model"},
        "index": 0,
        "safety_ratings": [
            {"blocked": None, "category": c, "overwritten_threshold": None, "probability": "NEGLIGIBLE"}
            | dict.fromkeys(("probability_score", "severity", "severity_score"))
            for c in _HARMS
        ],
    }
    usage: dict[str, Any] = dict.fromkeys(
        ("cache_tokens_details", "cached_content_token_count", "candidates_tokens_details", "thoughts_token_count")
        + ("tool_use_prompt_token_count", "tool_use_prompt_tokens_details", "traffic_type")
    )
    usage |= {
        "candidates_token_count": 3,
        "prompt_token_count": 9,
        "prompt_tokens_details": [{"modality": "TEXT", "token_count": 9}],
        "total_token_count": 12,
    }
    return {
        "candidates": [candidate],
        "create_time": None,
        "response_id": "8zRMaJ2nFqrtnvgP",
        "model_version": "gemini-2.0-flash",
        "prompt_feedback": None,
        "usage_metadata": usage,
        "automatic_function_calling_history": None,
        "parsed": None,
    }


def _bedrock(text: str) -> dict[str, Any]:
    """A Bedrock ``converse_stream`` event as boto3 yields it."""
    return {"contentBlockDelta": {"delta": {"text": text}, "contentBlockIndex": 0}}


def _openai(text: str) -> dict[str, Any]:
    chunk = ChatCompletionChunk(
        id="chatcmpl-AbC123xyz",
        object="chat.completion.chunk",
        created=1733000000,
        model="gpt-4o-mini-2024-07-18",
        system_fingerprint="fp_0aa8d3e20b",
        service_tier="default",
        choices=[{"index": 0, "delta": {"content": text}, "finish_reason": None, "logprobs": None}],
    )
    return chunk.model_dump()


def _anthropic(text: str) -> dict[str, Any]:
    event = RawContentBlockDeltaEvent(type="content_block_delta", index=0, delta={"type": "text_delta", "text": text})
    return event.model_dump()


_CHUNKS: dict[str, Callable[[str], dict[str, Any]]] = {
    "gemini rest": _gemini_rest,
    "vertex rest": _vertex_rest,
    "google-genai dump": _genai_dump,
    "bedrock converse_stream": _bedrock,
    "openai chunk dump": _openai,
    "anthropic delta dump": _anthropic,
}
_PASSWORD = "Hq8xK2mPw9Tr"


def _streams() -> list[tuple[list[str], list[str]]]:
    """Pieces of a stream, and the parts of its secret they hold (in 2 and in 3 chunks)."""
    key = _key()
    return [
        (["key: " + key[:20], key[20:34], key[34:]], [key[20:34], key[34:]]),
        (["Connect with password=", f"{_PASSWORD} now"], [_PASSWORD]),
        (["Connect with password=", _PASSWORD[:5], _PASSWORD[5:] + " now"], [_PASSWORD[:5], _PASSWORD[5:]]),
    ]


@pytest.mark.parametrize("shape", sorted(_CHUNKS))
def test_a_secret_streamed_across_whole_provider_chunks_reaches_no_file(shape: str, tmp_path: Path) -> None:
    make = _CHUNKS[shape]
    for pieces, secret_parts in _streams():

        def agent(task: str, ctx: Any, pieces: list[str] = pieces) -> str:
            for piece in (*pieces, " and that was all"):
                ctx.emit("model", make(piece))
            return "ok"

        episode = noesis_nb.solve("t", using=agent, runs_dir=tmp_path, approver="auto")
        files = sorted(p for p in (tmp_path / episode).rglob("*") if p.is_file())
        written = "\n".join(p.read_text("utf-8", "replace") for p in files)
        for part in secret_parts:
            assert part not in written, (shape, pieces, part)
        assert "and that was all" in written


@pytest.mark.parametrize("shape", sorted(_CHUNKS))
def test_a_key_streamed_across_whole_provider_chunks_read_from_disk_is_hidden(shape: str, tmp_path: Path) -> None:
    key = _key()
    parts = [key[:15], key[15:30], key[30:]]
    run = _unsealed_run(tmp_path, "ep_full_chunks", [_CHUNKS[shape](p) for p in parts])
    frame = noesis_nb.events_df(tmp_path).to_json(default_handler=str, date_format="iso")
    shown = _shown(run)
    for part in parts[1:]:
        assert part not in frame and part not in shown, (shape, part)


@pytest.mark.parametrize("shape", sorted(_CHUNKS))
def test_ordinary_text_in_whole_provider_chunks_is_kept(shape: str, tmp_path: Path) -> None:
    words = ["The build passed on the first try.", " Deploying to staging now;", " the token budget is 4096 tokens."]

    def agent(task: str, ctx: Any) -> str:
        for piece in words:
            ctx.emit("model", _CHUNKS[shape](piece))
        return "ok"

    episode = noesis_nb.solve("t", using=agent, runs_dir=tmp_path, approver="auto")
    log = (tmp_path / episode / "events.jsonl").read_text()
    for piece in words:
        assert json.dumps(piece)[1:-1] in log, (shape, piece)


#: Python calls of the screen of an ordinary event (no chunk text key in its line), the screen itself included, in a
#: process that has learned secret values: its prefilter and the known values' test, and for a line holding a list the
#: test of values split across its items (the piece test walked each such payload too, with a call per character of
#: its strings: 20 and 23)
SCREEN_BUDGET = 4
LISTED_BUDGET = 5


@pytest.mark.parametrize(
    ("payload", "budget"),
    [
        ({"path": "src/mod1.py", "status": "ok", "lines": 3}, SCREEN_BUDGET),
        ({"tool": "grep", "args": {"pattern": "TODO", "path": "src"}, "status": "ok", "matches": [1, 7, 9]}, LISTED_BUDGET),
    ],
)
def test_an_ordinary_event_is_screened_through_no_more_python_calls_than_its_budget(
    payload: dict[str, Any], budget: int, tmp_path: Path
) -> None:
    guard.for_run("ep_x").learn(["Sunset!Harbor2024", "sk-proj-Zq7Rt2Wv9Xy4Ab6Cd8Ef0Gh3"])
    secrets = guard.for_run(tmp_path)
    for i in range(20):
        secrets.screen(payload, event_id=f"warm-{i}", phase="tool")
    calls = [0]

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "call":
            calls[0] += 1

    counts = []
    for i in range(10):
        calls[0] = 0
        sys.setprofile(profile)
        try:
            out = secrets.screen(payload, event_id=f"ev-{i}", phase="tool")
        finally:
            sys.setprofile(None)
        counts.append(calls[0])
        assert out == payload
    assert min(counts) <= budget, f"an ordinary event's screen took {min(counts)} Python calls (budget {budget})"
