"""A key streamed across events in any common stream's shape: OpenAI chat (``choices[0].delta.content``, or the delta
as its client dumps it, ``{"role": None, "content": …}``), OpenAI Responses and AG-UI (``delta``), Anthropic
(``delta.text``), LangChain (``content``), Ollama (``message.content``, ``response``), a plain ``text``/``chunk``/
``token``. Only ``delta`` was read as a stream: under the others the key's head (``sk-proj-Ab3dE5f``) was written in a
live run's files and shown in ``events_df`` and ``show()`` of a run read from disk. One list of stream places
(``joined.CHUNK_TOP_KEYS``) serves the write path and the read path."""

from __future__ import annotations

import json
import secrets as stdlib_secrets
import string
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from tests.frames.runkit import unsealed_run as _unsealed_run  # (other stream tests import it from here)
from tests.widgets.test_show_streamed_key import _shown

_SHAPES: dict[str, Callable[[str], dict[str, Any]]] = {
    "openai chat": lambda p: {"id": "c1", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": p}}]},
    "openai delta dumped": lambda p: {"content": p, "role": None, "tool_calls": None, "refusal": None},
    "openai responses": lambda p: {"type": "response.output_text.delta", "item_id": "msg_1", "delta": p},
    "anthropic": lambda p: {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": p}},
    "langchain": lambda p: {"content": p, "type": "AIMessageChunk"},
    "ollama chat": lambda p: {"model": "llama3", "message": {"role": "assistant", "content": p}, "done": False},
    "ollama generate": lambda p: {"model": "llama3", "response": p, "done": False},
    "ag-ui": lambda p: {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": p},
    "text": lambda p: {"text": p},
    "chunk": lambda p: {"chunk": p},
    "token": lambda p: {"token": p},
}


def _key() -> str:
    return "sk-proj-" + "".join(stdlib_secrets.choice(string.ascii_letters + string.digits) for _ in range(48))


def key_streamed_is_hidden_on_disk(root: Path, ep: str, shape: Callable[[str], dict[str, Any]]) -> None:
    """A key streamed in two events of ``shape`` in a run read from disk is in neither ``events_df`` nor ``show``."""
    key = _key()
    head, tail = key[:15], key[15:]
    run = _unsealed_run(root, ep, [shape(head), shape(tail)])
    frame = noesis_nb.events_df(root).to_json(default_handler=str, date_format="iso")
    assert head not in frame and tail not in frame
    shown = _shown(run)
    assert head not in shown and tail not in shown


def streamed_live(runs_dir: Path, shape: Callable[[str], dict[str, Any]], pieces: list[str]) -> tuple[str, str]:
    """A live run emitting each piece as a ``model`` event of ``shape``: (its episode id, every file it wrote, joined)."""

    def agent(task: str, ctx: Any) -> str:
        for piece in pieces:
            ctx.emit("model", shape(piece))
        return "ok"

    episode = noesis_nb.solve("t", using=agent, runs_dir=runs_dir, approver="auto")
    files = sorted(p for p in (runs_dir / episode).rglob("*") if p.is_file())
    return episode, "\n".join(p.read_text("utf-8", "replace") for p in files)


def ordinary_messages_are_kept(runs_dir: Path, shape: Callable[[str], dict[str, Any]]) -> None:
    """Sentences streamed live in ``shape`` are written and read back whole."""
    words = ["The build passed on the first try.", " Deploying to staging now;", " the token budget is 4096 tokens."]
    episode, _ = streamed_live(runs_dir, shape, words)
    log = (runs_dir / episode / "events.jsonl").read_text()
    frame = noesis_nb.events_df(runs_dir).to_json(default_handler=str, date_format="iso")
    for piece in words:
        assert json.dumps(piece)[1:-1] in log and piece.strip() in frame


@pytest.mark.parametrize("shape", sorted(_SHAPES))
def test_a_key_streamed_in_a_run_read_from_disk_is_hidden_whole(shape: str, tmp_path: Path) -> None:
    key_streamed_is_hidden_on_disk(tmp_path, "ep_stream_shape", _SHAPES[shape])


@pytest.mark.parametrize("shape", sorted(_SHAPES))
def test_a_key_streamed_live_reaches_no_file_of_the_run(shape: str, tmp_path: Path) -> None:
    key = _key()
    _, written = streamed_live(tmp_path, _SHAPES[shape], [key[:15], key[15:30], key[30:], " and that was all"])
    for part in (key[:15], key[15:30], key[30:]):
        assert part not in written
    if shape != "token":  # a value named ``token`` is hidden whatever it holds
        assert "and that was all" in written  # the words after the key are kept


@pytest.mark.parametrize("shape", ["langchain", "ollama chat", "text"])
def test_ordinary_messages_in_stream_shapes_are_kept(shape: str, tmp_path: Path) -> None:
    ordinary_messages_are_kept(tmp_path, _SHAPES[shape])


def test_whole_messages_read_as_a_stream_are_not_glued_into_a_password(tmp_path: Path) -> None:
    """Whole messages under ``text`` are read as a stream's pieces: words of two read glued (``requiredYour``,
    ``incorrect.The``) are no password."""
    said = ["password is required", "Your password is incorrect.", "The passphrase is set", "Password is Required"]
    _unsealed_run(tmp_path, "ep_glued", [{"text": t} for t in said])
    frame = noesis_nb.events_df(tmp_path)
    assert [p["text"] for p in frame.payload if isinstance(p, dict) and "text" in p] == said
