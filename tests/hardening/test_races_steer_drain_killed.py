"""kill -9 between any two writes of an episode that is steered and then stopped gracefully (a drain):
every write of ``steer.sent``, ``steer.applied``, the tool, ``drain.started`` and ``drain.report`` is a
kill point. After each kill, recovery with the public API seals the run whole, valid, its tool run at
most once and no event written twice; a run whose drain had begun is sealed ``cancelled`` (the stop
asked for), the others ``error`` (process lost)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from noesis_nb.store import read_events, read_summary

from .recovery import check_recovered, recover
from .report import figures
from .test_crash_recovery import _killed_at_each_write


def test_kill_9_between_any_two_writes_of_a_steered_and_drained_episode(crash_server, tmp_path: Path) -> None:
    tally: Counter = Counter()
    for kill_at, root in _killed_at_each_write(crash_server, "live_steer_drain", tmp_path, at_least=40):
        tally["killed"] += 1
        runs = sorted((root / "runs").glob("ep_*")) if (root / "runs").is_dir() else []
        assert len(runs) <= 1
        if not runs:
            tally["killed before the run existed"] += 1
            continue
        log = read_events(runs[0] / "events.jsonl", strict=False)
        stopping = any(e["payload"].get("event_name") == "drain.started" for e in log)
        sealed = bool(log) and log[-1]["phase"] != "drain" and any(e["phase"] == "terminate" for e in log)
        recover(runs[0], "live_steer_drain", root / "marker.txt", tally)
        check_recovered(runs[0], root / "marker.txt", tally)
        status = read_summary(runs[0])["status"]
        if stopping:
            assert status == "cancelled", f"kill point {kill_at}: a run whose drain had begun was sealed {status}"
            tally["drain begun: sealed cancelled" + (" (terminate written)" if sealed else "")] += 1
        else:
            assert status == "error", f"kill point {kill_at}: sealed {status}"
    figures("crash recovery: steered and drained", {"write points": tally["killed"], **tally, "stuck": 0})
