"""A decision that lands while another process seals the run: the kernel's loop never waits for that seal.

A run paused on disk (here on a governance veto) is being sealed by another real process: it holds the run's
lock, has written ``final.json``, and writes the manifest (listing the files it found before the decision) a
moment later. ``approve_draft`` in a notebook runs on the kernel's event loop (a cell, a click): it must not
sleep there until the other process is done (it did, up to 5 s, freezing every background episode and view).
It answers at once that the decision came too late, and a task on the loop takes the file back once the manifest
is written without it. From plain code (no loop on the thread) it still waits, with the same outcome.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.errors import RunSealedError
from noesis_nb.store import verify_manifest

SEALER = """
import json, os, sys, time
from pathlib import Path
from noesis_nb.store.artifacts import write_manifest
from noesis_nb.store.ownership import acquire
run, aside, mode = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
held = acquire(run, note=False)
(run / "final.json").write_text(json.dumps({"schema_version": "final/2.0.0", "episode_id": run.name}))
write_manifest(run, run.name)  # the files as this seal finds them, before any decision
os.replace(run / "manifest.json", aside)  # written last, below: meanwhile the seal is under way
print("sealing", flush=True)
sys.stdin.readline() if mode == "on go" else time.sleep(0.5)
os.replace(aside, run / "manifest.json")
"""


def _paused_on_a_veto(runs_dir: Path) -> tuple[str, Path]:
    episode = noesis_nb.solve("wipe the tmp logs", using=lambda t: t, runs_dir=runs_dir, governance="enforce", pause_on_veto=True)
    return episode, runs_dir / episode


def _sealer(run: Path, tmp_path: Path, mode: str) -> subprocess.Popen[str]:
    args = [sys.executable, "-c", SEALER, str(run), str(tmp_path / "manifest-aside.json"), mode]
    sealer = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert sealer.stdout is not None and sealer.stdout.readline().strip() == "sealing"
    return sealer


def _decision_files(run: Path) -> list[Path]:
    return list((run / "checkpoints").glob("*/decision.json"))


def test_on_the_kernel_loop_the_decision_does_not_wait_for_the_seal(runs_dir, tmp_path):
    episode, run = _paused_on_a_veto(runs_dir)
    sealer = _sealer(run, tmp_path, "on go")
    ticks: list[bool] = []  # per tick of a task on the same loop: was the other process's seal still under way?

    async def main():
        async def ticker():
            while True:
                ticks.append(not (run / "manifest.json").exists())
                await asyncio.sleep(0.005)

        ticking = asyncio.create_task(ticker())
        await asyncio.sleep(0)
        with pytest.raises(RunSealedError, match="sealed while its veto was being decided"):
            noesis_nb.approve_draft(episode, runs_dir=runs_dir, approver_id="lead")  # a click, on the loop
        returned = len(ticks)
        while len(ticks) < returned + 3:  # the loop runs on while the other process still seals
            await asyncio.sleep(0.005)
        assert all(ticks[returned:]) and _decision_files(run)
        sealer.communicate("go\n")
        while _decision_files(run):  # the loop's follow-up takes the decision back once the manifest is written
            await asyncio.sleep(0.005)
        ticking.cancel()

    asyncio.run(main())
    assert sealer.returncode == 0
    assert verify_manifest(run).ok


def test_from_plain_code_the_decision_still_waits_for_the_seal(runs_dir, tmp_path):
    episode, run = _paused_on_a_veto(runs_dir)
    sealer = _sealer(run, tmp_path, "after a moment")
    outcome: list[BaseException] = []

    def decide() -> None:
        try:
            noesis_nb.approve_draft(episode, runs_dir=runs_dir, approver_id="lead")
        except BaseException as exc:
            outcome.append(exc)

    worker = threading.Thread(target=decide)
    worker.start()
    worker.join()
    sealer.communicate()
    assert len(outcome) == 1 and isinstance(outcome[0], RunSealedError)
    assert (run / "manifest.json").is_file() and not _decision_files(run)  # waited for the manifest, then took it back
    assert verify_manifest(run).ok
