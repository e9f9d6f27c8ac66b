"""A recorded trace that never shows its run ending is imported as an ``error`` run naming what is missing.

A Noeta task left suspended for a human's approval, a Noeta log cut before ``TaskCompleted``, a Noetic turn with no
``turn_completed`` and a Taisce transcript ending on the user's message were all sealed ``ok`` / ``success``, read
by every frame as finished work. Each importer now ends such a run ``error`` with a ``run_unfinished`` event and a
terminate message saying what was missing; the run still passes the Noēsis checks.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from noesis_nb.frames import runs_df
from noesis_nb.integrations.noeta import import_noeta
from noesis_nb.integrations.noetic import import_noetic, noetic_replay
from noesis_nb.integrations.replay import RecordedRunUnfinished, TraceAlreadyImported
from noesis_nb.integrations.taisce import MEMORY_PREFIX, import_taisce, taisce_replay
from noesis_nb.store import read_events, read_json
from tests.compat.checker import check_run

from .helpers import run


def env(seq: int, kind: str, payload: dict[str, Any] | None = None, task: str = "T") -> dict[str, Any]:
    return {"id": f"{task}{seq}", "task_id": task, "seq": seq, "type": kind, "occurred_at": 1.7e9 + seq, "payload": payload or {}}


def frame(kind: str, agent: str = "a", **data: Any) -> dict[str, Any]:
    return {"source": "framework", "type": f"{agent}:{kind}", "data": data}


SAY = {"source": "sdk", "type": "response.output_text.delta", "outputIndex": 0, "data": {"delta": "done"}}
APPROVAL = {"call_id": "d1", "tool_name": "delete_bucket", "arguments": {"name": "prod"}}
SUSPENDED = [
    env(0, "TaskCreated", {"goal": "delete the old bucket"}),
    env(1, "TaskStarted"),
    env(2, "ToolCallApprovalRequested", APPROVAL),
    env(3, "TaskSuspended", {"reason": "waiting_human", "wake_on": {"handle": "approval-d1"}}),
]
NOETA_ENDS = "TaskCompleted, TaskFailed or TaskCancelled"


def ended(runs_dir: Path, episode: str) -> tuple[str, str, str]:
    """``(summary status, final outcome, terminate message)`` of an imported run, after checking it as Noēsis does."""
    run_dir = runs_dir / episode
    assert check_run(run_dir) == [], check_run(run_dir)
    summary, final = read_json(run_dir / "summary.json"), read_json(run_dir / "final.json")
    events = read_events(run_dir / "events.jsonl")
    [terminate] = [e for e in events if e["phase"] == "terminate"]
    unfinished = [e for e in events if e["payload"].get("kind") == "run_unfinished"]
    if "did not finish" in terminate["payload"]["message"]:
        assert len(unfinished) == 1 and unfinished[0]["payload"]["error"] in terminate["payload"]["message"]
    else:  # it ended: as recorded (a failure, a cancel) or well
        assert not unfinished
    row = runs_df(runs_dir, cache=False).set_index("episode_id").loc[episode]
    assert (row["status"], row["outcome"]) == (summary["status"], final["outcome"])
    return summary["status"], final["outcome"], terminate["payload"]["message"]


@pytest.mark.parametrize(
    ("envelopes", "said"),
    [
        (
            SUSPENDED,
            [
                "suspended ('noeta.TaskSuspended', reason 'waiting_human') and never resumed",
                "the approval of 'delete_bucket' (call 'd1') was never decided",
                f"no {NOETA_ENDS} follows",
            ],
        ),
        (SUSPENDED[:2] + [env(2, "LLMRequestStarted", {"call_id": "c", "model": "m"})], ["'noeta.TaskStarted' is not followed"]),
        ([env(0, "LLMRequestFinished", {"call_id": "c", "usage": {"output": 1}})], [f"it holds no {NOETA_ENDS}"]),
        (SUSPENDED + [env(4, "TaskWoken")], ["'noeta.TaskWoken' is not followed by a TaskCompleted"]),
    ],
    ids=["suspended-for-approval", "cut-before-its-end", "no-lifecycle-at-all", "woken-then-cut"],
)
def test_a_noeta_task_that_did_not_end_is_an_error_run_naming_what_is_missing(runs_dir, envelopes, said):
    status, outcome, message = ended(runs_dir, import_noeta(envelopes, runs_dir=runs_dir))
    assert (status, outcome) == ("error", "error")
    assert message.startswith("the recorded noeta run did not finish: "), message
    assert all(part in message for part in said), message


def test_a_cancelled_noeta_task_is_no_success(runs_dir):
    status, outcome, message = ended(runs_dir, import_noeta([*SUSPENDED[:2], env(2, "TaskCancelled")], runs_dir=runs_dir))
    assert (status, outcome) == ("cancelled", "cancelled") and "cancelled (noeta.TaskCancelled)" in message, message


def test_a_noeta_task_decided_woken_and_completed_is_a_success(runs_dir):
    decided = {**APPROVAL, "approved": True, "resolver": "ops"}
    envelopes = [
        *SUSPENDED,
        env(4, "TaskWoken"),
        env(5, "ToolCallApprovalResolved", decided),
        env(6, "TaskCompleted", {"answer": "deleted"}),
    ]
    assert ended(runs_dir, import_noeta(envelopes, runs_dir=runs_dir)) == ("ok", "success", "deleted")


def test_one_task_of_two_left_suspended_makes_the_log_unfinished(runs_dir):
    other = [env(0, "TaskCreated", {"goal": "g"}, "S"), env(1, "TaskCompleted", {"answer": "a"}, "S")]
    envelopes = [SUSPENDED[0], other[0], *SUSPENDED[1:], other[1]]  # the sub-task ends last
    status, _, message = ended(runs_dir, import_noeta(envelopes, runs_dir=runs_dir))
    assert status == "error" and "waiting_human" in message, message


@pytest.mark.parametrize(
    ("log", "said"),
    [
        ([frame("turn_started", turnId="t1"), frame("tool_call_started", name="rm")], "'noetic.turn_started' is not followed"),
        ([frame("turn_started"), SAY, frame("turn_completed"), frame("turn_started"), SAY], "'noetic.turn_started'"),
        ([frame("turn_started"), frame("turn_started", "sub"), frame("turn_completed", "sub")], "'noetic.turn_started'"),
    ],
    ids=["one-turn-cut", "second-turn-cut", "a-sub-agent-ended-its-parent-did-not"],
)
def test_a_noetic_turn_that_did_not_end_is_an_error_run(runs_dir, log, said):
    status, outcome, message = ended(runs_dir, import_noetic(log, runs_dir=runs_dir))
    assert (status, outcome) == ("error", "error")
    assert said in message and "turn_completed or turn_aborted" in message, message


def test_a_noetic_log_cut_short_and_replayed_live_ends_error_too(runs_dir, tmp_path):
    path = tmp_path / "stream.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in [frame("turn_started"), SAY]))
    handle, _ = run("replay", noetic_replay(str(path)), runs_dir)
    assert handle.status == "error"
    with pytest.raises(RecordedRunUnfinished, match="did not finish: 'noetic.turn_started' is not followed"):
        handle.result()


def test_a_noetic_log_whose_turns_all_ended_is_a_success(runs_dir):
    log = [frame("turn_started"), SAY, frame("turn_completed"), frame("turn_started"), SAY, frame("turn_completed")]
    assert ended(runs_dir, import_noetic(log, runs_dir=runs_dir))[:2] == ("ok", "success")
    nested = [frame("turn_started"), frame("turn_started", "sub"), frame("turn_completed", "sub"), SAY, frame("turn_completed")]
    assert ended(runs_dir, import_noetic(nested, runs_dir=runs_dir))[:2] == ("ok", "success")


MEMORY = MEMORY_PREFIX + "\n" + json.dumps({"watermark": {"stored": 1}, "facts": []})


@pytest.mark.parametrize(
    ("transcript", "said"),
    [
        ([{"role": "assistant", "content": "Hi"}, {"role": "user", "content": "and then?"}], "the user's, with no answer"),
        ([{"role": "user", "content": "q"}, {"role": "user", "content": MEMORY}], "ends with a memory injection"),
        ([{"role": "assistant", "content": "let me look"}, {"role": "tool", "content": "42"}], "the tool's, with no answer"),
    ],
    ids=["user-last", "memory-last", "tool-result-last"],
)
def test_a_taisce_transcript_ending_before_the_answer_is_an_error_run(runs_dir, transcript, said):
    status, outcome, message = ended(runs_dir, import_taisce(transcript, runs_dir=runs_dir))
    assert (status, outcome) == ("error", "error") and said in message, message
    handle, _ = run("replay", taisce_replay(transcript), runs_dir)
    assert handle.status == "error"


def test_a_taisce_transcript_ending_on_the_answer_is_a_success(runs_dir):
    transcript = [{"role": "user", "content": MEMORY}, {"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}]
    assert ended(runs_dir, import_taisce(transcript, runs_dir=runs_dir)) == ("ok", "success", "a")


def test_an_unfinished_trace_imported_again_returns_its_error_run(runs_dir):
    first = import_noeta(SUSPENDED, runs_dir=runs_dir)
    with pytest.warns(TraceAlreadyImported):
        again = import_noeta(SUSPENDED, runs_dir=runs_dir)
    assert again == first and ended(runs_dir, first)[0] == "error"


def test_hand_made_rows_whose_kind_is_no_text_are_judged_without_failing(runs_dir):
    """``import_rows`` takes rows from anywhere: a kind that is a list or an object is no lifecycle row, never a crash."""
    from noesis_nb.integrations.replay import import_rows

    rows = [
        ("integration", {"kind": ["run_started"], "source": "log"}),
        ("integration", {"kind": {"k": 1}, "role": ["user"], "source": "log"}),
        ("integration", {"kind": "run_finished", "answer": "fine", "source": "log"}),
    ]
    assert ended(runs_dir, import_rows(rows, task="t", source="log", runs_dir=runs_dir)) == ("ok", "success", "fine")
