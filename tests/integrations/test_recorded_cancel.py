"""A recorded run that ended cancelled is imported as a cancelled run: not an ``ok`` success, not an ``error``.

The live adapters seal an agent's own cancel ``cancelled`` (``AgentCancelled``); a recorded Noeta ``TaskCancelled``
was sealed ``error`` ("the recorded noeta run failed"), so ``runs_df`` counted a cancel as a failure.
"""

from __future__ import annotations

import json

import noesis_nb
from noesis_nb.integrations.noeta import import_noeta
from tests.compat.checker import check_run


def _log(*ending: dict) -> list[dict]:
    return [
        {"type": "TaskCreated", "task_id": "t1", "seq": 1, "payload": {"goal": "tidy the bucket"}},
        {"type": "TaskStarted", "task_id": "t1", "seq": 2, "payload": {}},
        *ending,
    ]


def test_a_recorded_cancel_is_a_cancelled_run(runs_dir):
    cancel = {"type": "TaskCancelled", "task_id": "t1", "seq": 3, "payload": {"reason": "user"}}
    ep = import_noeta(_log(cancel), runs_dir=runs_dir)
    final = json.loads((runs_dir / ep / "final.json").read_text())
    assert final["outcome"] == "cancelled"
    row = noesis_nb.runs_df(runs_dir).set_index("episode_id").loc[ep]
    assert row["status"] == "cancelled" and not row["success"]
    assert check_run(runs_dir / ep) == []


def test_an_error_after_a_cancel_is_still_an_error(runs_dir):
    log = _log(
        {"type": "TaskCancelled", "task_id": "t1", "seq": 3, "payload": {"reason": "user"}},
        {"type": "TaskFailed", "task_id": "t1", "seq": 4, "payload": {"error": "cleanup crashed"}},
    )
    ep = import_noeta(log, runs_dir=runs_dir)
    assert json.loads((runs_dir / ep / "final.json").read_text())["outcome"] == "error"
