"""Noeta envelopes saved out of commit order are read in ``seq`` order, and a call is priced whatever the order.

The model of a call is named by its ``LLMRequestStarted``; its usage comes in ``LLMRequestFinished``. A log saved with
the finish before the start gave a usage row without a model, so the call had no price (cost NaN) while the same
envelopes in order were priced.
"""

from __future__ import annotations

import itertools

import pytest

from noesis_nb.frames import usage_df
from noesis_nb.integrations.noeta import import_noeta, noeta_rows

MODEL = "claude-sonnet-4-5"  # in the default price table


def env(seq, kind, payload, task="T", **extra):
    envelope = {"id": f"{task}-{seq}-{kind}", "task_id": task, "type": kind, "payload": payload, **extra}
    if seq is not None:
        envelope["seq"] = seq
    return envelope


def task(task="T", *, seqs=True):
    """One task's envelopes in commit order: created, a priced call, completed."""
    usage = {"uncached": 10, "cache_read": 5, "cache_write": 0, "output": 3, "reasoning_tokens": 0}
    steps = [
        ("TaskCreated", {"goal": "g"}),
        ("ModelBound", {"provider": "anthropic", "model": MODEL}),
        ("LLMRequestStarted", {"call_id": f"{task}-c", "model": MODEL}),
        ("LLMRequestFinished", {"call_id": f"{task}-c", "success": True, "usage": usage}),
        ("TaskCompleted", {"answer": "done"}),
    ]
    return [env(n if seqs else None, kind, payload, task) for n, (kind, payload) in enumerate(steps)]


@pytest.mark.parametrize("order", list(itertools.permutations(range(5)))[::7])
def test_a_call_is_priced_and_read_in_commit_order_however_the_log_was_saved(runs_dir, order):
    envelopes = task()
    saved = [envelopes[i] for i in order]
    rows = noeta_rows(saved)
    names = [p["event_name"] for _, p in rows if p["kind"] != "usage"]
    assert names == [f"noeta.{e['type']}" for e in envelopes], names
    [usage] = [p for _, p in rows if p["kind"] == "usage"]
    assert usage["model"] == MODEL and usage["provider"] == "anthropic", usage
    import_noeta(saved, runs_dir=runs_dir / "saved")
    import_noeta(envelopes, runs_dir=runs_dir / "in_order")
    got, want = (usage_df(runs_dir / name, cache=False) for name in ("saved", "in_order"))
    assert got["model"].tolist() == [MODEL] and got["cost_usd"].notna().all(), got[["model", "cost_usd"]]
    assert got["cost_usd"].tolist() == want["cost_usd"].tolist()


def test_a_finish_saved_before_its_start_without_any_seq_still_gets_its_model():
    envelopes = task(seqs=False)
    saved = [envelopes[0], envelopes[3], envelopes[2], envelopes[1], envelopes[4]]
    [usage] = [p for _, p in noeta_rows(saved) if p["kind"] == "usage"]
    assert usage["model"] == MODEL and usage["provider"] == "anthropic"


def test_the_envelopes_moved_are_marked_and_two_tasks_stay_interleaved_as_saved():
    a, b = task("A"), task("B")
    saved = [a[0], b[0], a[3], b[1], a[2], b[2], a[1], b[4], a[4], b[3]]
    rows = [p for _, p in noeta_rows(saved) if p["kind"] != "usage"]
    assert [(p["task_id"], p["seq"]) for p in rows] == [
        ("A", 0), ("B", 0), ("A", 1), ("B", 1), ("A", 2), ("B", 2), ("A", 3), ("B", 3), ("A", 4), ("B", 4)
    ]  # fmt: skip
    late = {(p["task_id"], p["seq"]) for p in rows if p.get("out_of_order")}
    assert late == {("A", 2), ("A", 1), ("B", 3)}


def test_the_same_call_id_started_twice_keeps_the_model_of_the_request_before_the_finish():
    """In commit order the latest request before a finish names its model, as when read live."""
    usage = {"uncached": 1, "cache_read": 0, "cache_write": 0, "output": 1}
    saved = [
        env(0, "LLMRequestStarted", {"call_id": "c", "model": "first"}),
        env(1, "LLMRequestFinished", {"call_id": "c", "usage": usage}),
        env(2, "LLMRequestStarted", {"call_id": "c", "model": "second"}),
        env(3, "LLMRequestFinished", {"call_id": "c", "usage": usage}),
    ]
    models = [p["model"] for _, p in noeta_rows(saved[::-1]) if p["kind"] == "usage"]
    assert models == ["first", "second"]
