"""A Noetic log that ends a turn twice, or starts a turnId again, is imported whole and said to be so.

Such a log (appended to twice, two runs' logs joined) imported as a clean ``ok`` run, with nothing saying that one
turn was counted twice. Now every event is kept as written; a ``NoeticTurnRepeated`` warning and a
``noetic.trace_problem`` event in the run name the turn and the line.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

from noesis_nb.integrations.noetic import NoeticTurnRepeated, import_noetic


def _event(name: str, **data: object) -> str:
    return json.dumps({"source": "framework", "type": f"helper:{name}", "data": data})


def _run_events(run_dir: Path) -> list[dict]:
    return [json.loads(line)["payload"] for line in (run_dir / "events.jsonl").read_text().splitlines()]


def test_a_duplicate_turn_completed_and_a_reused_turn_id_are_named_with_their_lines(tmp_path: Path) -> None:
    lines = [
        _event("turn_started", turnId="t-1", messageIds=["m1"]),
        _event("turn_completed", turnId="t-1", durationMs=12),
        _event("turn_completed", turnId="t-1", durationMs=12),  # line 3: the same end again
        _event("turn_started", turnId="t-1", messageIds=["m2"]),  # line 4: the turnId reused
        _event("turn_completed", turnId="t-1", durationMs=30),  # line 5: a third end of it
        _event("turn_started", turnId="t-2", messageIds=["m3"]),
        _event("turn_completed", turnId="t-2", durationMs=5),
    ]
    log = tmp_path / "stream.jsonl"
    log.write_text("\n".join(lines) + "\n")
    runs = tmp_path / "runs"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        episode = import_noetic(log, runs_dir=runs)
    said = sorted({str(w.message) for w in caught if issubclass(w.category, NoeticTurnRepeated)})
    assert len(said) == 3, said
    assert any("turn 't-1' of agent 'helper' ends again at line 3" in s and "ended at line 2" in s for s in said), said
    assert any("starts again at line 4 (first at line 1)" in s for s in said), said
    assert any("ends again at line 5" in s for s in said), said
    assert not any("t-2" in s for s in said), said

    payloads = _run_events(runs / episode)
    names = [p.get("event_name") for p in payloads]
    assert names.count("noetic.turn_completed") == 4 and names.count("noetic.turn_started") == 3  # all kept
    problems = [p for p in payloads if p.get("event_name") == "noetic.trace_problem"]
    assert [(p["turn_id"], p["line"]) for p in problems] == [("t-1", 3), ("t-1", 4), ("t-1", 5)], problems
    assert all("t-1" in p["problem"] for p in problems)


def test_a_log_of_distinct_turns_says_nothing(tmp_path: Path) -> None:
    log = [
        json.loads(_event("turn_started", turnId="a")),
        json.loads(_event("turn_completed", turnId="a", durationMs=1)),
        json.loads(_event("turn_started", turnId="b")),
        json.loads(_event("turn_aborted", turnId="b", reason="stopped")),
    ]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        episode = import_noetic(log, runs_dir=tmp_path)
    assert not [w for w in caught if issubclass(w.category, NoeticTurnRepeated)]
    assert not [p for p in _run_events(tmp_path / episode) if p.get("event_name") == "noetic.trace_problem"]
