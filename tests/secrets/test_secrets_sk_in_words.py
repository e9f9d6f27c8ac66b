"""``sk-`` starts an OpenAI or Anthropic key only where a word starts: Noeta's task ids (``task-<32 hex>``) and other
ids whose word ends in "sk" keep their value, while a key after punctuation or an escape of JSON is still redacted."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from noesis_nb.secrets import redact, shown

KEY = "sk-proj-" + "Ab3" * 14


@pytest.mark.parametrize("word", ["task", "disk", "desk", "Task"])
def test_an_id_whose_word_ends_in_sk_is_kept(word: str) -> None:
    ident = f"{word}-{uuid.uuid4().hex}"
    assert redact({"task_id": ident}) == ({"task_id": ident}, [])


@pytest.mark.parametrize(
    "text",
    [
        KEY,
        f"key={KEY}",
        f"Key:{KEY}",
        f"_{KEY}",
        json.dumps({"error": f"bad key\n{KEY}"}),
        json.dumps({"error": f"tab\t{KEY}"}),
        '{"error": "\\u003e' + KEY + '"}',  # Go's encoder writes ">" as \u003e
    ],
)
def test_a_key_after_punctuation_or_an_escape_is_still_redacted(text: str) -> None:
    assert KEY not in shown(text)
    assert KEY not in json.dumps(redact({"text": text})[0])


def test_an_imported_noeta_task_keeps_its_task_id(runs_dir: Path) -> None:
    from noesis_nb.integrations.noeta import import_noeta
    from noesis_nb.store import read_events

    task_id = f"task-{uuid.uuid4().hex}"
    envelopes = [
        {"seq": 0, "type": "TaskCreated", "task_id": task_id, "payload": {"goal": "say hi"}},
        {"seq": 1, "type": "TaskCompleted", "task_id": task_id, "payload": {"answer": "hi"}},
    ]
    episode = import_noeta(envelopes, runs_dir=runs_dir)
    text = (runs_dir / episode / "events.jsonl").read_text()
    assert task_id in text and "ta[REDACTED]" not in text
    assert any(e["payload"].get("task_id") == task_id for e in read_events(runs_dir / episode / "events.jsonl"))


@pytest.mark.parametrize("prefix", ["abc", "Token", "x9"])
def test_a_key_of_a_named_kind_glued_to_a_word_is_still_redacted(prefix: str) -> None:
    text = f"{prefix}{KEY}"
    assert KEY not in shown(text)
    assert KEY not in json.dumps(redact({"text": text})[0])
