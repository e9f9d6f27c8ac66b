"""Reading back a run this process sealed does not screen its log again (its seal vouches for the bytes screened as
they were written): the scrub calls do not grow with its events. A run changed after its seal is screened: a secret
appended with its name (``password``) is hidden in every event read back."""

from __future__ import annotations

import json
from pathlib import Path

from noesis_nb.runtime.diskrun import DiskRun
from noesis_nb.secrets import guard
from tests.callcount import counting_calls
from tests.frames.runkit import model_calls_run

SECRET = "Tq8vLw3nRz6pXk2mHs9d"


def scrubs_reading(run_dir: Path) -> tuple[int, DiskRun]:
    """(scrub_text calls made, the run read) reading ``run_dir`` back."""
    with counting_calls("scrub_text") as calls:
        run = DiskRun(run_dir)
    return calls[0], run


def test_a_sealed_run_is_read_back_without_screening_each_event_and_a_changed_one_is_screened(runs_dir: Path) -> None:
    guard.for_run("ep_x").learn(["sk-proj-Xy7Wq2Lm8Np4Rt6Vw1Yb3Cd5"])  # a process that has learned secret values
    small, large = model_calls_run(runs_dir, 20), model_calls_run(runs_dir, 400)
    few, _ = scrubs_reading(small)
    many, run = scrubs_reading(large)
    assert len(run.events) > 400
    assert many <= few + 50, (few, many)  # not ~40 a event: the log is not screened again

    with (large / "events.jsonl").open("a", encoding="utf-8") as log:  # changed after its seal
        line = dict(run.events[-1], id="added", payload={"event_name": "note", "password": SECRET})
        log.write(json.dumps(line) + "\n")
        line = dict(run.events[-1], id="added2", payload={"event_name": "note", "text": f"deployed with {SECRET}"})
        log.write(json.dumps(line) + "\n")
    screened, changed = scrubs_reading(large)
    assert screened > many  # screened again, the seal no longer vouching for it
    assert SECRET not in json.dumps(changed.events, default=str)
