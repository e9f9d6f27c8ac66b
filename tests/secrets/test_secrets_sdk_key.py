"""The key an SDK client calls with is a secret the run knows, whatever it looks like.

A proxy's or a company's own key has no shape a detector knows. When a server's error or a model's
answer echoes it (``Incorrect API key provided: …``), the run's files must not hold it: capture tells
the episode each calling client's ``api_key`` (``auth_token`` for Anthropic) before the call is sent.
"""

from __future__ import annotations

import json
import secrets as stdlib_secrets
import string
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.secrets import find_in_text
from tests.capture.provider_stub import DEFAULT, anthropic_message, chat_completion
from tests.hardening.secret_corpus import run_files

openai = pytest.importorskip("openai")
anthropic = pytest.importorskip("anthropic")
httpx = pytest.importorskip("httpx")
httpx2 = pytest.importorskip("httpx2")  # the Anthropic SDK's HTTP client

ALNUM = string.ascii_letters + string.digits


def _key() -> str:
    """A key of no known shape (a detector finds nothing in it)."""
    key = "corp" + "".join(stdlib_secrets.choice(string.ascii_lowercase) for _ in range(10)) + "-2"
    assert not find_in_text(f"the key {key} was refused")
    return key


def _reply(provider: str, key: str, status: int) -> Any:
    http = httpx if provider == "openai" else httpx2

    def answer(request: Any) -> Any:
        if status != 200:
            return http.Response(status, json={"error": {"message": f"Incorrect API key provided: {key}", "type": "auth"}})
        if provider == "openai":
            body = chat_completion("gpt-4o", DEFAULT, "chatcmpl-1")
            body["choices"][0]["message"]["content"] = f"you called me with {key}"
        else:
            body = anthropic_message(
                "claude-sonnet-4-5", {"uncached": 10, "cache_read": 0, "cache_write": 0, "output": 5}, "msg_1"
            )
            body["content"] = [{"type": "text", "text": f"you called me with {key}"}]
        return http.Response(200, json=body)

    return http.MockTransport(answer)


def _call(provider: str, key: str, transport: Any) -> str:
    http = (httpx if provider == "openai" else httpx2).Client(transport=transport)
    if provider == "openai":
        client = openai.OpenAI(base_url="https://llm.example.com/v1", api_key=key, max_retries=0, http_client=http)
        reply = client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hi"}])
        return str(reply.choices[0].message.content)
    client = anthropic.Anthropic(base_url="https://llm.example.com", auth_token=key, max_retries=0, http_client=http)
    message = client.messages.create(model="claude-sonnet-4-5", max_tokens=10, messages=[{"role": "user", "content": "hi"}])
    return str(message.content[0].text)


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
@pytest.mark.parametrize("status", [200, 401])
def test_a_clients_key_echoed_by_the_server_or_the_model_is_not_written(tmp_path: Path, provider: str, status: int) -> None:
    key = _key()
    transport = _reply(provider, key, status)

    def agent(task: str, ctx: Any) -> str:
        try:
            text = _call(provider, key, transport)
        except (openai.APIError, anthropic.APIError) as exc:
            text = str(exc)
        ctx.emit("note", {"text": text})
        return text

    episode_id = noesis_nb.solve("ask", using=agent, runs_dir=tmp_path)
    files = run_files(tmp_path / episode_id)
    assert [where for where, blob in files if key[4:12].encode() in blob] == []
    calls = [json.loads(line) for line in (tmp_path / episode_id / "events.jsonl").read_text().splitlines()]
    assert [e for e in calls if e["payload"].get("event_name") == "model.call"]  # the call was captured


@pytest.mark.parametrize("placeholder", ["ollama", "lm-studio", "sk-no-key-required", "EMPTY"])
def test_a_local_servers_placeholder_key_is_not_taken_for_a_secret(tmp_path: Path, placeholder: str) -> None:
    """Ollama, LM Studio or vLLM take any key; their documented placeholders are words the run names elsewhere
    (the task, the answer): learned as secrets, every one of them would be redacted from the run."""
    transport = _reply("openai", "unused", 200)

    def agent(task: str, ctx: Any) -> str:
        http = httpx.Client(transport=transport)
        client = openai.OpenAI(base_url="http://127.0.0.1:11434/v1", api_key=placeholder, max_retries=0, http_client=http)
        client.chat.completions.create(model="llama3", messages=[{"role": "user", "content": task}])
        return f"answered by {placeholder}"

    episode_id = noesis_nb.solve(f"compare {placeholder} with vllm", using=agent, runs_dir=tmp_path)
    summary = json.loads((tmp_path / episode_id / "summary.json").read_text())
    state = json.loads((tmp_path / episode_id / "state.json").read_text())
    assert placeholder in json.dumps(summary) and placeholder in json.dumps(state)
    assert "[REDACTED]" not in (tmp_path / episode_id / "events.jsonl").read_text()


def test_each_clients_key_is_known_when_clients_take_turns(tmp_path: Path) -> None:
    """Capture tells the run a client's keys once (not at every call): clients that take turns in one
    episode, one with a key changed between its calls, each still have every key of theirs kept out."""
    first, second, changed = _key(), _key(), _key()
    echoed = {first: _reply("openai", first, 401), second: _reply("anthropic", second, 200)}

    def agent(task: str, ctx: Any) -> str:
        texts = []
        for provider, key in (("openai", first), ("anthropic", second), ("openai", first), ("anthropic", second)):
            try:
                texts.append(_call(provider, key, echoed[key]))
            except openai.APIError as exc:
                texts.append(str(exc))
        http = httpx.Client(transport=_reply("openai", changed, 200))
        client = openai.OpenAI(base_url="https://llm.example.com/v1", api_key=first, max_retries=0, http_client=http)
        client.api_key = changed  # the same client, calling with another key from now on
        reply = client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hi"}])
        texts.append(str(reply.choices[0].message.content))
        ctx.emit("note", {"texts": texts})
        return " ".join(texts)

    episode_id = noesis_nb.solve("ask", using=agent, runs_dir=tmp_path)
    files = run_files(tmp_path / episode_id)
    for key in (first, second, changed):
        assert [where for where, blob in files if key[4:12].encode() in blob] == [], key
    calls = [json.loads(line) for line in (tmp_path / episode_id / "events.jsonl").read_text().splitlines()]
    assert len([e for e in calls if e["payload"].get("event_name") == "model.call"]) == 5
