"""Noeta saved envelopes → rows and runs: pure, no ``noeta`` package needed (always on)."""

from __future__ import annotations

import pytest

import noesis_nb
from noesis_nb.integrations.noeta import NoetaEnvelopeError, import_noeta, noeta_rows
from noesis_nb.store import read_json, verify_manifest

SAVED = [  # envelope_to_dict output observed from a real run (integrations.md §3.2)
    {"seq": 0, "type": "TaskCreated", "actor": "engine", "origin": "engine", "task_id": "t", "payload": {"goal": "delete x.txt"}},
    {
        "seq": 7,
        "type": "LLMRequestStarted",
        "actor": "llm",
        "origin": "llm",
        "task_id": "t",
        "payload": {"call_id": "llm-1", "model": "claude-sonnet-5", "input_tokens": 0},
    },
    {
        "seq": 9,
        "type": "LLMRequestFinished",
        "actor": "llm",
        "origin": "llm",
        "causation_id": None,
        "task_id": "t",
        "payload": {
            "call_id": "llm-1",
            "success": True,
            "cost_usd": 7.65e-05,
            "latency_ms": 0,
            "usage": {"uncached": 10, "cache_read": 5, "cache_write": 0, "output": 3, "reasoning_tokens": 0},
        },
    },
    {
        "seq": 11,
        "type": "ToolCallApprovalRequested",
        "actor": "engine",
        "origin": "engine",
        "task_id": "t",
        "payload": {"call_id": "d1", "tool_name": "delete_file", "arguments": {"path": "x.txt"}, "arguments_ref": None},
    },
    {"seq": 12, "type": "TaskCompleted", "actor": "engine", "origin": "engine", "task_id": "t", "payload": {"answer": "Done."}},
]


def test_saved_envelopes_map_usage_by_the_token_rule():
    rows = noeta_rows(SAVED)
    [usage] = [p for ph, p in rows if ph == "model"]
    assert (usage["input_tokens"], usage["cached_input_tokens"], usage["cache_write_input_tokens"], usage["output_tokens"]) == (
        15,
        5,
        0,
        3,
    )
    assert usage["cost_usd"] == 7.65e-05 and usage["model"] == "claude-sonnet-5" and usage["source"] == "noeta"
    approval = next(p for _, p in rows if p["kind"] == "approval_requested")
    assert approval["tool_name"] == "delete_file" and approval["arguments"] == {"path": "x.txt"} and approval["seq"] == 11


def test_missing_usage_fields_stay_unknown():
    rows = noeta_rows([{"type": "LLMRequestFinished", "payload": {"call_id": "c", "usage": {"output": 3}}}])
    usage = rows[-1][1]
    assert usage["input_tokens"] is None and usage["cached_input_tokens"] is None and usage["output_tokens"] == 3


def test_import_noeta_writes_a_sealed_run(runs_dir):
    episode = import_noeta(SAVED, runs_dir=runs_dir)
    run_dir = runs_dir / episode
    assert read_json(run_dir / "summary.json")["status"] == "ok" and verify_manifest(run_dir).ok
    state = read_json(run_dir / "state.json")
    tags = state["episode"]["tags"]
    # the saved log's one delete_file call was asked for approval, never decided: it becomes no draft (tools_df has
    # no row for it), counted in the summary, so runs_df says <NA> calls; no count in its tags
    assert tags == {"source": "noeta", "trace_digest": tags["trace_digest"]}
    assert len(noesis_nb.tools_df(runs_dir)) == 0
    said = read_json(run_dir / "summary.json")["x-noesis_nb"]
    assert (said["undrafted_tool_calls"], said["undrafted_approvals"]) == (1, 1)
    assert state["episode"]["tags"]["trace_digest"].startswith("hmac-sha256:") and state["goal"]["task"] == "delete x.txt"
    assert read_json(run_dir / "final.json")["outcome"] == "success"


@pytest.mark.parametrize(
    ("given", "said"),
    [
        (5, "a int (5)"),
        ("TaskCreated", "a str ('TaskCreated')"),
        (b"[]", "a bytes (b'[]')"),
        (SAVED[0], "which looks like one envelope: pass a list of them"),
        ({"envelopes": SAVED}, "a dict ({'envelopes'"),
        ([None], "envelope #1 is a NoneType (None)"),
        ([SAVED[0], ["TaskCompleted"]], "envelope #2 is a list (['TaskCompleted'])"),
        ([{"seq": 0, "payload": {}}], "envelope #1 is a dict without 'type' (keys: 'seq', 'payload')"),
    ],
    ids=["number", "text", "bytes", "one-envelope", "a-wrapper-dict", "none-item", "list-item", "dict-without-type"],
)
def test_what_is_no_list_of_envelopes_is_one_clear_error_and_no_run(tmp_path, given, said):
    runs = tmp_path / "runs"
    with pytest.raises(NoetaEnvelopeError) as raised:
        import_noeta(given, runs_dir=runs)
    message = str(raised.value)
    assert said in message and "envelope_to_dict(envelope) dicts" in message, message
    assert isinstance(raised.value, ValueError) and isinstance(raised.value, TypeError)  # as TypeError was before
    assert not runs.exists() or not any(runs.iterdir()), "a run was made"
    with pytest.raises(NoetaEnvelopeError):
        noeta_rows(given)


def test_a_log_saved_twice_counts_its_usage_once_and_marks_the_repeats(runs_dir):
    """The same envelopes read twice and joined (or an envelope sent again) must not double tokens and cost."""
    from noesis_nb.frames import runs_df

    once = import_noeta(SAVED, runs_dir=runs_dir / "once")
    twice = import_noeta(SAVED + [dict(e) for e in SAVED], runs_dir=runs_dir / "twice")
    columns = ["input_tokens", "cached_input_tokens", "output_tokens", "cost_usd"]
    single = runs_df(runs_dir / "once").set_index("episode_id").loc[once, columns]
    joined = runs_df(runs_dir / "twice").set_index("episode_id").loc[twice, columns]
    assert single.tolist() == joined.tolist() and single["input_tokens"] == 15
    rows = noeta_rows(SAVED + SAVED)
    marked = [p for _, p in rows if p.get("repeated")]
    assert len(marked) == len(SAVED) and sum(p["kind"] == "usage" for _, p in rows) == 1
    assert all("repeated_differs" not in p for p in marked)


def test_an_envelope_repeated_with_other_content_or_out_of_order_is_marked():
    first = {"id": "e1", "seq": 3, "type": "LLMRequestFinished", "task_id": "t", "payload": {"call_id": "c", "cost_usd": 1.0}}
    changed = {**first, "payload": {"call_id": "c", "cost_usd": 9.0}}
    earlier = {"id": "e0", "seq": 1, "type": "TaskStarted", "task_id": "t", "payload": {}}
    rows = [p for _, p in noeta_rows([first, changed, earlier])]  # read in seq order; the one saved late is marked
    assert [p["kind"] for p in rows] == ["run_started", "model_call_finished", "usage", "model_call_finished"]
    assert rows[2]["cost_usd"] == 1.0 and rows[3]["repeated"] is True and rows[3]["repeated_differs"] is True
    assert rows[0]["out_of_order"] is True and "out_of_order" not in rows[1]


@pytest.mark.parametrize("before", [150, 175, 190])  # where the keys' 200-character cut fell inside the key
def test_the_keys_of_an_envelope_without_type_are_redacted_before_they_are_cut(before):
    """The keys' reprs were joined and cut to 200 characters: a key-like name crossing the cut lost its tail, and
    its head was shown. Each name is now quoted (redacted, then cut) on its own."""
    key = "ghp_" + "Ab3d" * 9
    envelope = {f"{'a' * before} {key}": 1, "payload": {}}
    with pytest.raises(NoetaEnvelopeError) as raised:
        noeta_rows([envelope])
    message = str(raised.value)
    assert "is a dict without 'type'" in message and "'payload'" in message, message
    assert not [key[:n] for n in range(6, len(key) + 1) if key[:n] in message], message


@pytest.mark.parametrize("before", [30, 45, 52])  # where the 60-character cut falls inside the key
def test_what_was_given_is_redacted_before_it_is_cut_so_no_key_head_is_shown(before):
    """The repr was cut to 60 characters first: the key's tail went, no detector knew its head, and 8 to 16 of its
    characters were shown in the error."""
    key = "ghp_" + "Ab3d" * 9
    text = f"{'a' * before} {key}"
    for given in (text, [SAVED[0], text]):
        with pytest.raises(NoetaEnvelopeError) as raised:
            noeta_rows(given)
        message = str(raised.value)
        assert not [key[:n] for n in range(6, len(key) + 1) if key[:n] in message], message
        assert "a" * min(before, 40) in message, message  # what came before the key is still shown
