"""A secret streamed across events in a chunk shape no list names (Gemini's ``candidates[0].content.parts[0].text``,
Bedrock's ``contentBlockDelta.delta.text``, a known chunk wrapped in ``{"data": …}``, a client's own envelope) was
written in pieces: only the listed stream places were read joined. Any chunk-like payload (one text under a chunk
text key, at any depth, every other string a name) is a stream's piece now, on the write path and the read path;
ordinary events (prose beside the text, two texts, the runtime's own events) are not, and their texts are kept."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from noesis_nb.secrets.streamed import streamed_piece
from tests.secrets.test_secrets_stream_shapes import (
    _key,
    key_streamed_is_hidden_on_disk,
    ordinary_messages_are_kept,
    streamed_live,
)

_SHAPES: dict[str, Callable[[str], dict[str, Any]]] = {
    "gemini": lambda p: {"candidates": [{"content": {"parts": [{"text": p}], "role": "model"}, "index": 0}]},
    "bedrock": lambda p: {"contentBlockDelta": {"delta": {"text": p}, "contentBlockIndex": 0}},
    "openai wrapped": lambda p: {"data": {"id": "chatcmpl-1", "choices": [{"index": 0, "delta": {"content": p}}]}},
    "sse envelope": lambda p: {"event": "message", "data": {"payload": {"chunk": p}}},
    "vertex stream": lambda p: {"outputs": [{"candidates": [{"content": {"parts": [{"text": p}]}}]}]},
}
_PASSWORD = "Hq8xK2mPw9Tr"


@pytest.mark.parametrize("shape", sorted(_SHAPES))
def test_a_secret_streamed_live_in_any_chunk_shape_reaches_no_file(shape: str, tmp_path: Path) -> None:
    key = _key()
    streams = [
        (["key: " + key[:20], key[20:34], key[34:]], [key[20:34], key[34:]]),
        (["Connect with password=", f"{_PASSWORD} now"], [_PASSWORD]),
    ]
    for pieces, secret_parts in streams:
        _, written = streamed_live(tmp_path, _SHAPES[shape], [*pieces, " and that was all"])
        for part in secret_parts:
            assert part not in written, (shape, part)
        assert "and that was all" in written


@pytest.mark.parametrize("shape", sorted(_SHAPES))
def test_a_key_streamed_in_any_chunk_shape_read_from_disk_is_hidden(shape: str, tmp_path: Path) -> None:
    key_streamed_is_hidden_on_disk(tmp_path, "ep_any_shape", _SHAPES[shape])


@pytest.mark.parametrize("shape", sorted(_SHAPES))
def test_ordinary_messages_in_any_chunk_shape_are_kept(shape: str, tmp_path: Path) -> None:
    ordinary_messages_are_kept(tmp_path, _SHAPES[shape])


@pytest.mark.parametrize(
    "payload",
    [
        {"title": "Deploy notes for today", "body": {"text": "all green"}},  # prose beside the text
        {"a": {"text": "one"}, "b": {"content": "two"}},  # two texts
        {"event_name": "tool.requested", "args": {"content": "hello"}},  # the runtime's own event
        {"items": [{"name": f"n{i}"} for i in range(30)] + [{"text": "x"}]},  # a large payload
        {"result": {"value": "no text key here"}},
    ],
)
def test_an_ordinary_payload_is_no_streamed_piece(payload: dict[str, Any]) -> None:
    assert streamed_piece(payload) is None


def test_a_nested_chunk_is_a_piece_at_its_place() -> None:
    assert streamed_piece(_SHAPES["gemini"]("abc")) == (("candidates", 0, "content", "parts", 0, "text"), "abc")
    assert streamed_piece(_SHAPES["bedrock"]("abc")) == (("contentBlockDelta", "delta", "text"), "abc")
