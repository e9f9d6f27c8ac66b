"""An error text cut to its limit before it is written holds no head of a secret that the cut went through.

A tool's error is kept to 2,000 characters and a failed SDK call's to 500. Cutting first and screening
after left the secret's first characters, which no detector recognises without the rest: each shape of
the corpus, placed to straddle the cut, reaches no file of the run.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.secrets import REDACTED_VALUE, shown_cut
from tests.hardening.secret_corpus import corpus, leaks, run_files

SHAPES = corpus(random.SystemRandom().randrange(2**32))
HEAD = 12  # characters of the secret before the cut


def _filler(before: str, shape: Any, limit: int) -> str | None:
    """Text that puts the secret's first ``HEAD`` characters at the end of the kept ``limit`` characters,
    ``before`` being what precedes the filler in the written text; None when the shape cannot be placed."""
    at = shape.text.find(shape.value)
    if at < 0:
        return None
    size = limit - HEAD - len(before) - at
    return "x" * size + " " if size > 1 else None


def fail(text: str) -> None:
    raise RuntimeError(text)


def test_a_secret_across_the_cut_of_a_tools_error_is_not_written(tmp_path: Path) -> None:
    blobs, placed = [], 0
    for shape in SHAPES:
        filler = _filler("RuntimeError: ", shape, 2000)
        if filler is None:
            continue
        placed += 1

        def agent(task: str, ctx: Any, message: str = filler + shape.text) -> str:
            try:
                # the tool builds the text itself: the run has not seen the secret before the error
                ctx.tool("py.fail", {"kwargs": {"text": "go"}}, fn=lambda text: fail(message), effect="read", risk="low")
            except Exception:
                return "failed"
            return "ran"

        episode_id = noesis_nb.solve("deploy", using=agent, runs_dir=tmp_path)
        blobs += [(f"{shape.name}: {where}", blob) for where, blob in run_files(tmp_path / episode_id)]
    assert placed >= 20
    assert leaks(SHAPES, blobs) == []


def test_a_secret_across_the_cut_of_a_failed_sdk_calls_error_is_not_written(tmp_path: Path) -> None:
    openai = pytest.importorskip("openai")
    httpx = pytest.importorskip("httpx")
    blobs, placed = [], 0
    for shape in SHAPES:
        body = {"error": {"message": shape.text, "type": "invalid_request_error"}}
        before = "Error code: 401 - "
        at = (before + str(body)).find(shape.value[:HEAD])
        if at < 0 or "\n" in shape.value:
            continue
        body["error"]["message"] = "x" * (500 - HEAD - at - 1) + " " + shape.text  # the value's head ends the kept text
        placed += 1
        transport = httpx.MockTransport(lambda request, body=body: httpx.Response(401, json=body))

        def agent(task: str, ctx: Any, transport: Any = transport) -> str:
            client = openai.OpenAI(
                base_url="https://api.example.com/v1",
                api_key="sk-test",
                max_retries=0,
                http_client=httpx.Client(transport=transport),
            )
            try:
                client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hi"}])
            except openai.APIError:
                return "failed"
            return "answered"

        episode_id = noesis_nb.solve("deploy", using=agent, runs_dir=tmp_path)
        blobs += [(f"{shape.name}: {where}", blob) for where, blob in run_files(tmp_path / episode_id)]
    assert placed >= 20
    assert leaks(SHAPES, blobs) == []


def test_a_cut_keeps_a_redaction_marker_whole() -> None:
    token = SHAPES[0].value  # a GitHub token: found by its shape
    for limit in range(10, 10 + len(REDACTED_VALUE) + 2):
        cut = shown_cut("x" * 10 + token + " and more", limit)
        assert token[:8] not in cut and "[REDAC" not in cut.replace(REDACTED_VALUE, "")


@pytest.mark.parametrize("where", ["score error", "task"])
def test_a_secret_across_the_cut_of_a_failing_scores_message_is_not_written(tmp_path: Path, where: str) -> None:
    """``score(<task cut to 60>, result) raised <error cut to 200>``: the task and the error are both cut."""
    blobs, placed = [], 0
    for shape in SHAPES:
        error, task = "", "deploy"
        if where == "score error":
            filler = _filler("", shape, 200)
            error = f"{filler}{shape.text}" if filler else ""
        else:
            filler = _filler("", shape, 60)
            task = f"{filler}{shape.text}" if filler else ""
        if not (error or task != "deploy") or not task:
            continue
        placed += 1

        def score(task: str, result: Any, error: str = error or "the scorer broke") -> float:
            raise ValueError(error)

        episode_id = noesis_nb.solve(task, using=lambda task, ctx: "done", runs_dir=tmp_path, score=score)
        blobs += [(f"{shape.name}: {where}", blob) for where, blob in run_files(tmp_path / episode_id)]
    assert placed >= 15
    assert leaks(SHAPES, blobs) == []
