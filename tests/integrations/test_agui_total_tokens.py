"""AG-UI ``totalTokens``: input + output (AG-UI 1.0's rule). Alone it was written as sent and the counts stayed
unknown without a word; beside counts it disagreed with, or as text, NaN or a negative number, it was written as
sent (a NaN made the event's line no JSON for a strict reader) and nothing said so."""

from __future__ import annotations

import json
from typing import Any

import pytest

pytest.importorskip("ag_ui.core")

from noesis_nb.integrations.agui import agui_rows, parse_sse


def _usage(**counts: Any) -> dict[str, Any]:
    finished = {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1", "usage": [{"model": "gpt-4o-mini", **counts}]}
    started = {"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"}
    text = "".join(f"data: {json.dumps(e)}\n\n" for e in (started, finished))
    (usage,) = [p for _, p in agui_rows(parse_sse(text.splitlines())) if p["kind"] == "usage"]
    return usage


def test_a_total_with_one_count_gives_the_other():
    got = _usage(inputTokens=120, totalTokens=140)
    assert (got["input_tokens"], got["output_tokens"], got["total_tokens"]) == (120, 20, 140)
    got = _usage(outputTokens=20, totalTokens=140, cachedInputTokens=100)
    assert (got["input_tokens"], got["output_tokens"], got["cached_input_tokens"]) == (120, 20, 100)
    assert "usage_warning" not in got


def test_a_total_alone_leaves_the_counts_unknown_and_says_so():
    got = _usage(totalTokens=140)
    assert got["input_tokens"] is None and got["output_tokens"] is None and got["total_tokens"] == 140
    assert "only total_tokens (140) reported" in got["usage_warning"]


def test_a_total_that_disagrees_keeps_the_counts_and_says_so():
    got = _usage(inputTokens=120, outputTokens=20, totalTokens=999)
    assert (got["input_tokens"], got["output_tokens"], got["total_tokens"]) == (120, 20, 999)
    assert "total_tokens (999) is not input_tokens + output_tokens (140)" in got["usage_warning"]
    got = _usage(inputTokens=120, totalTokens=100)
    assert got["output_tokens"] is None and "less than input_tokens (120)" in got["usage_warning"]


@pytest.mark.parametrize("bad", ["140", -1, 1.5, True, {"n": 1}])
def test_a_total_that_is_no_count_is_left_out_and_said(bad):
    got = _usage(inputTokens=120, outputTokens=20, totalTokens=bad)
    assert "total_tokens" not in got
    assert "total_tokens reported as" in got["usage_warning"]


def test_a_nan_total_never_reaches_the_event():
    text = (
        'data: {"type":"RUN_STARTED","threadId":"t1","runId":"r1"}\n\n'
        'data: {"type":"RUN_FINISHED","threadId":"t1","runId":"r1","usage":[{"inputTokens":1,"outputTokens":1,'
        '"totalTokens":NaN}]}\n\n'
    )
    (usage,) = [p for _, p in agui_rows(parse_sse(text.splitlines())) if p["kind"] == "usage"]
    json.dumps(usage, allow_nan=False)  # a line every strict JSON reader takes
    assert "total_tokens" not in usage
