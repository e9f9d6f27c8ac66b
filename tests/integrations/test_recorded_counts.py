"""Token counts in recorded traces: a count given as anything but a whole number from 0 up is unknown, in every importer.

JSON booleans are the trap: Python's ``True`` is an ``int`` (``True + True == 2``), so a sum or an ``isinstance(x, int)``
check takes ``{"uncached": true, "cache_read": true}`` for two tokens. Every importer reads its counts as
``token_count`` does (None for a bool), so a view shows unknown, never a made-up number.
"""

from __future__ import annotations

import json

import pytest

from noesis_nb.frames import usage_df
from noesis_nb.integrations.noeta import import_noeta, noeta_usage
from noesis_nb.integrations.noetic import import_noetic
from noesis_nb.integrations.taisce import MEMORY_PREFIX, parse_memory_message

INPUT_PARTS = ("uncached", "cache_read", "cache_write")


def _finished(usage: dict) -> list[dict]:
    """A finished Noeta task with one priced call whose usage is ``usage``."""
    return [
        {"id": "e0", "task_id": "T", "seq": 0, "type": "TaskCreated", "payload": {"goal": "g"}},
        {"id": "e1", "task_id": "T", "seq": 1, "type": "LLMRequestStarted", "payload": {"call_id": "c", "model": "m"}},
        {"id": "e2", "task_id": "T", "seq": 2, "type": "LLMRequestFinished", "payload": {"call_id": "c", "usage": usage}},
        {"id": "e3", "task_id": "T", "seq": 3, "type": "TaskCompleted", "payload": {"answer": "done"}},
    ]


@pytest.mark.parametrize("part", INPUT_PARTS)
@pytest.mark.parametrize("flag", [True, False])
def test_a_noeta_input_part_given_as_a_boolean_makes_the_input_total_unknown(runs_dir, part, flag):
    usage = {"uncached": 10, "cache_read": 5, "cache_write": 1, "output": 3, part: flag}
    row = noeta_usage(usage, model="m")[1]
    assert row["input_tokens"] is None, row
    import_noeta(_finished(usage), runs_dir=runs_dir)
    frame = usage_df(runs_dir, cache=False)
    assert len(frame) == 1 and frame["input_tokens"].isna().all(), frame[["input_tokens"]].to_dict("records")
    assert frame["output_tokens"].tolist() == [3]


def test_noeta_counts_all_given_as_booleans_are_all_unknown(runs_dir):
    usage = {"uncached": True, "cache_read": True, "cache_write": False, "output": True, "reasoning_tokens": True}
    import_noeta(_finished(usage), runs_dir=runs_dir)
    frame = usage_df(runs_dir, cache=False)
    columns = ["input_tokens", "cached_input_tokens", "cache_write_input_tokens", "output_tokens", "reasoning_tokens"]
    assert frame[columns].isna().all().all(), frame[columns].to_dict("records")


def test_noeta_whole_counts_still_add_up_to_the_input_total():
    """The parts-of-totals rule holds for real counts (a whole float too, as JavaScript writers emit 10.0)."""
    row = noeta_usage({"uncached": 10, "cache_read": 5.0, "cache_write": 0, "output": 3}, model="m")[1]
    assert (row["input_tokens"], row["cached_input_tokens"], row["output_tokens"]) == (15, 5, 3)


def test_noetic_harness_counts_given_as_booleans_are_unknown(runs_dir, tmp_path):
    harness = tmp_path / "harness.json"
    harness.write_text(json.dumps({"usage": {"inputTokens": True, "outputTokens": False, "cachedTokens": True}}))
    log = [
        {"source": "framework", "type": "a:turn_started", "data": {"turnId": "t"}},
        {"source": "framework", "type": "a:turn_completed", "data": {"turnId": "t"}},
    ]
    import_noetic(log, harness, runs_dir=runs_dir)
    frame = usage_df(runs_dir, cache=False)
    columns = ["input_tokens", "output_tokens", "cached_input_tokens"]
    assert len(frame) == 1 and frame[columns].isna().all().all(), frame[columns].to_dict("records")


def test_taisce_watermark_counts_given_as_booleans_are_left_out():
    info = parse_memory_message(MEMORY_PREFIX + "\n" + json.dumps({"watermark": {"stored": True, "formed": 2, "parked": False}}))
    assert "stored" not in info and "parked" not in info and info["formed"] == 2
