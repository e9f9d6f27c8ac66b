"""The disk fills up at any write of an episode, in a process that lives on; room is made; the same process recovers.

Unlike ``kill -9``, a full disk leaves the program running: the write that finds no room raises
(or takes only part of a line), the adapter sees that error and may go on, and the person at the
kernel sees one message, makes room and recovers from the same kernel. The disk here is real: a
private tmpfs (``unshare -Urm``) that a ballast file fills just before the chosen write point
(every event line, document, rename, link, unlink, folder and tool subprocess of the scenario).

At the moment the disk is full: the caller got no error or one ``RunWriteError`` (one line, the
file, and how to go on) — or ``RunsDirError`` when not even the run could be made; every event
log reads strictly (no part-line anywhere: the next event would glue onto it); no temp file is
left. After room is made and the same process recovers (``resume_run``, deciding what waits,
the batch called again): every run is sealed, verifies, passes Noēsis' validators, holds each
once-per-run event once, and its tool ran at most once.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest

from .forkserver import ForkServer
from .privatefs import private_tmpfs
from .recovery import check_recovered
from .report import figures

HERE = Path(__file__).resolve().parent
SCENARIOS = ("live_auto", "solve_then_resume", "batch")


@pytest.fixture(scope="module")
def disk(tmp_path_factory: pytest.TempPathFactory):
    mount = tmp_path_factory.mktemp("tmpfs")
    server = ForkServer(HERE / "diskfull.py", prefix=[*private_tmpfs("1m", "can fill up"), str(mount)])
    yield server, mount
    server.close()


def _runs(out: Path) -> list[Path]:
    return sorted((out / "root" / "runs").glob("ep_*"))


def _check_at_the_moment_of_the_fill(reply: dict, point: int, tally: Counter) -> None:
    where = f"disk filled at write point {point}"
    assert not reply["killed"], f"{where}: the process died ({reply})"
    assert reply["torn"] == [], f"{where}: an event log holds a part-line: {reply['torn']}"
    assert reply["leftovers"] == [], f"{where}: temp files left: {reply['leftovers']}"
    error = reply["error"]
    if error is None and reply["outcome"].startswith("batch ended "):  # each entry that failed says why
        for status, why in json.loads(reply["outcome"].removeprefix("batch ended ")):
            if status == "error":
                assert why and ("No space left on device" in why or "has no room" in why), f"{where}: entry error {why!r}"
                tally["batch entries that say the disk refused"] += 1
        return
    if error is None:
        tally["finished despite the full disk"] += 1
        return
    kind, message = error
    if kind == "RunsDirError":
        assert "has no room for a new run" in message, f"{where}: {message}"
        tally["refused before the run existed"] += 1
        return
    assert kind == "RunWriteError", f"{where}: the caller got {kind}: {message}"
    assert message.startswith("could not write ") and "No space left on device" in message, message
    tally["one RunWriteError"] += 1
    if "is left unsealed" in message:
        assert "resume_run(" in message, message
        tally["said: left unsealed, resume_run seals it"] += 1


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_the_disk_fills_at_any_write_and_the_same_process_recovers(disk, scenario: str, tmp_path: Path) -> None:
    server, mount = disk
    full = server.run(scenario=scenario, mount=str(mount), out=str(tmp_path / "full"), fill_at=None)
    assert full["outcome"] == "ok" and full["error"] is None, full
    points = full["points"]
    assert points >= 60, f"{scenario} has only {points} write points; the harness is not hooked in"
    tally: Counter = Counter()
    for point in range(1, points + 1):
        out = tmp_path / f"p{point}"
        reply = server.run(scenario=scenario, mount=str(mount), out=str(out), fill_at=point)
        if reply["filled"]:
            _check_at_the_moment_of_the_fill(reply, point, tally)
        else:  # a batch's two episodes interleave differently from one call to the next: this one wrote less
            assert scenario == "batch" and reply["points"] < point and reply["outcome"] == "ok", (
                f"write point {point} of {points} was never reached: {reply}"
            )
            tally["ended before that point"] += 1
        assert reply["recovery_error"] is None, f"disk filled at write point {point}: recovery failed: {reply['recovery_error']}"
        tally.update(reply["tally"])
        if scenario == "batch":
            record = json.loads((out / "root" / "runs" / "batches" / "b_kill.json").read_text())
            runs = [out / "root" / "runs" / e for row in record["entries"] for e in [*row.get("previous", []), row["episode_id"]]]
            assert {r.name for r in runs} == {r.name for r in _runs(out)}, "a run the batch's record does not know"
            for run in runs:
                check_recovered(run, out / "marks" / f"marker-{run.name}.txt", tally)
        else:
            for run in _runs(out):
                check_recovered(run, out / "marks" / "marker.txt", tally)
        shutil.rmtree(out)
    figures(f"disk full: {scenario}", {"write points": points, **tally, "part-lines": 0, "temp files left": 0})
