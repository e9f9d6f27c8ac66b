"""Which choice gives a call's stop reason, and when a chat stream has said all it will: the real SDKs served by a
mock transport in the providers' documented shapes (OpenAI's usage chunk: ``choices`` empty, the last before
``[DONE]``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import noesis_nb

from ..compat.checker import check_run
from .recorded_calls import calls, tokens

openai = pytest.importorskip("openai")
httpx2 = pytest.importorskip("httpx2")

MSG = [{"role": "user", "content": "hi"}]
MODEL = "gpt-4o-mini-2024-07-18"
USAGE = {"prompt_tokens": 30, "completion_tokens": 12, "total_tokens": 42}


def _client(body: Any = None, chunks: list[Any] | None = None, asynchronous: bool = False) -> Any:
    headers = {"x-request-id": "req_rules"}
    if chunks is None:
        content, headers["content-type"] = json.dumps(body).encode(), "application/json"
    else:
        content = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks).encode() + b"data: [DONE]\n\n"
        headers["content-type"] = "text/event-stream"
    transport = httpx2.MockTransport(lambda request: httpx2.Response(200, headers=headers, content=content))
    if asynchronous:
        return openai.AsyncOpenAI(
            base_url="http://provider.test/v1", api_key="sk-test", max_retries=0,
            http_client=httpx2.AsyncClient(transport=transport),
        )  # fmt: skip
    return openai.OpenAI(
        base_url="http://provider.test/v1", api_key="sk-test", max_retries=0, http_client=httpx2.Client(transport=transport)
    )


def _choice(index: int, finish: str | None) -> dict[str, Any]:
    return {"index": index, "message": {"role": "assistant", "content": f"answer {index}"}, "finish_reason": finish}


def _completion(choices: list[dict[str, Any]]) -> dict[str, Any]:
    return {"id": "chatcmpl-rules", "object": "chat.completion", "created": 1764460800, "model": MODEL, "choices": choices,
            "usage": USAGE}  # fmt: skip


def _chunk(choices: list[dict[str, Any]], usage: Any = None) -> dict[str, Any]:
    return {"id": "chatcmpl-rules", "object": "chat.completion.chunk", "created": 1764460800, "model": MODEL,
            "choices": choices, "usage": usage}  # fmt: skip


def _delta(index: int, text: str, finish: str | None = None) -> dict[str, Any]:
    return {"index": index, "delta": {"content": text}, "finish_reason": finish}


def _recorded(runs_dir: Path, agent: Any) -> list[dict[str, Any]]:
    ep = noesis_nb.solve("rules", using=agent, runs_dir=runs_dir)
    assert check_run(runs_dir / ep) == []
    noesis_nb.usage_df(runs_dir, episodes=ep, strict=True)
    return calls(runs_dir, ep)


@pytest.mark.parametrize(
    "order",
    [[1, 0], [2, 0, 1], [1, 2, 0]],
    ids=["second", "middle", "last"],
)
def test_a_whole_responses_stop_reason_is_choice_zeros_wherever_it_is_as_in_a_stream(runs_dir: Path, order: list[int]) -> None:
    finish = {0: "length", 1: "stop", 2: "content_filter"}
    whole = _completion([_choice(i, finish[i]) for i in order])
    # the same answer streamed: each choice's finish in the same order, then the usage chunk
    streamed = [_chunk([_delta(i, "x")]) for i in order] + [_chunk([_delta(i, "", finish[i])]) for i in order]
    streamed.append(_chunk([], USAGE))

    def agent(task: str, ctx: Any) -> str:
        _client(whole).chat.completions.create(model="gpt-4o-mini", messages=MSG, n=len(order))
        for _ in _client(chunks=streamed).chat.completions.create(model="gpt-4o-mini", messages=MSG, n=len(order), stream=True):
            pass
        return "done"

    got = _recorded(runs_dir, agent)
    # before: the whole response took its first listed choice's reason ("stop" / "content_filter")
    assert [p["stop_reason"] for p in got] == ["length", "length"]
    assert [p["streamed"] for p in got] == [False, True]


def test_a_whole_response_with_no_choice_zero_has_an_unknown_stop_reason_not_another_choices(runs_dir: Path) -> None:
    whole = _completion([_choice(2, "stop"), _choice(1, "stop")])

    def agent(task: str, ctx: Any) -> str:
        _client(whole).chat.completions.create(model="gpt-4o-mini", messages=MSG, n=3)
        return "done"

    (call,) = _recorded(runs_dir, agent)
    assert call["stop_reason"] is None and tokens(call) == (30, None, None, 12, None)


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
def test_a_stream_that_never_names_a_finish_reason_is_complete_once_its_usage_chunk_came(
    runs_dir: Path, asynchronous: bool
) -> None:
    chunks = [_chunk([_delta(0, "Do")]), _chunk([_delta(0, "ne.")]), _chunk([], USAGE)]

    def agent(task: str, ctx: Any) -> str:
        client = _client(chunks=chunks, asynchronous=asynchronous)
        if not asynchronous:
            for chunk in client.chat.completions.create(model="gpt-4o-mini", messages=MSG, stream=True):
                if chunk.usage:  # the caller stops at the totals: [DONE] is never read
                    break
            return "done"

        async def read() -> None:
            async for chunk in await client.chat.completions.create(model="gpt-4o-mini", messages=MSG, stream=True):
                if chunk.usage:
                    break

        import asyncio

        asyncio.run(read())
        return "done"

    (call,) = _recorded(runs_dir, agent)
    # before: abandoned, as if the counts were partial
    assert not call.get("abandoned") and "abandoned_reason" not in call
    assert call["stop_reason"] is None  # the server never said why it stopped: unknown, not invented
    assert tokens(call) == (30, None, None, 12, None)


def test_a_stream_sending_running_totals_on_every_chunk_left_midway_is_still_abandoned(runs_dir: Path) -> None:
    running = [_chunk([_delta(0, w)], {**USAGE, "completion_tokens": k}) for k, w in enumerate(("Do", "ne", "."), 1)]
    chunks = [*running, _chunk([_delta(0, "", "stop")], USAGE), _chunk([], USAGE)]

    def agent(task: str, ctx: Any) -> str:
        for chunk in _client(chunks=chunks).chat.completions.create(model="gpt-4o-mini", messages=MSG, stream=True):
            if chunk.usage and chunk.usage.completion_tokens == 2:
                break
        return "done"

    (call,) = _recorded(runs_dir, agent)
    assert call["abandoned"] is True and call["output_tokens"] == 2


def test_a_usage_chunk_before_the_answer_does_not_end_the_stream(runs_dir: Path) -> None:
    early = {"prompt_tokens": 30, "completion_tokens": 0, "total_tokens": 30}  # a server's prompt count, sent first
    chunks = [_chunk([], early), _chunk([_delta(0, "Do")]), _chunk([_delta(0, "ne.")]), _chunk([], USAGE)]

    def agent(task: str, ctx: Any) -> str:
        for chunk in _client(chunks=chunks).chat.completions.create(model="gpt-4o-mini", messages=MSG, stream=True):
            if chunk.choices and chunk.choices[0].delta.content == "Do":
                break  # left in the middle of the answer
        return "done"

    (call,) = _recorded(runs_dir, agent)
    assert call["abandoned"] is True and call["output_tokens"] == 0  # the counts seen so far, not the call's
