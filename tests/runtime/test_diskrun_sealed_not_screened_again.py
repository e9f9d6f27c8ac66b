"""Reading back a run this process sealed does not screen its log again (its seal vouches for the bytes screened as
they were written): the scrub calls do not grow with its events. A run changed after its seal is screened: a secret
appended with its name (``password``) is hidden in every event read back."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import noesis_nb
from noesis_nb.runtime.diskrun import DiskRun
from noesis_nb.secrets import guard

SECRET = "Tq8vLw3nRz6pXk2mHs9d"


def sealed_run(runs_dir: Path, calls: int) -> Path:
    def agent(task: str, ctx: Any) -> str:
        for _ in range(calls):
            ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=100, output_tokens=10)
        return "ok"

    async def main() -> Path:
        handle = noesis_nb.start("a run of many calls", using=agent, runs_dir=runs_dir)
        await handle
        return Path(handle.run_dir)

    return asyncio.run(main())


def scrubs_reading(run_dir: Path) -> tuple[int, DiskRun]:
    """(scrub_text calls made, the run read) reading ``run_dir`` back."""
    calls = 0

    def watch(frame: Any, event: str, arg: Any) -> None:
        nonlocal calls
        if event == "call" and frame.f_code.co_name == "scrub_text":
            calls += 1

    sys.setprofile(watch)
    try:
        run = DiskRun(run_dir)
    finally:
        sys.setprofile(None)
    return calls, run


def test_a_sealed_run_is_read_back_without_screening_each_event_and_a_changed_one_is_screened(runs_dir: Path) -> None:
    guard.for_run("ep_x").learn(["sk-proj-Xy7Wq2Lm8Np4Rt6Vw1Yb3Cd5"])  # a process that has learned secret values
    small, large = sealed_run(runs_dir, 20), sealed_run(runs_dir, 400)
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
