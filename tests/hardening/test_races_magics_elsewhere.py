"""``%noesis stop`` / ``%noesis steer`` for an episode that another process (a second kernel) runs: the
one line names that process, instead of only saying that nothing runs here."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path

import pytest
from IPython.core.error import UsageError

import noesis_nb
from noesis_nb.runtime.api import RunRecovered
from tests.ipshell import run_magic

from ..conftest import REPO

HOLDS = """
import asyncio, sys
import noesis_nb
from noesis_nb.runtime.api import RunRecovered

async def waits(task, ctx):
    await asyncio.sleep(60)

async def main():
    handle = noesis_nb.start("wait", using=waits, runs_dir=sys.argv[1])
    print(handle.episode_id, flush=True)
    await handle

asyncio.run(main())
"""


@pytest.mark.parametrize("line", ["stop {id}", 'steer {id} "shorter"'])
def test_stop_or_steer_of_an_episode_another_process_runs_names_that_process(
    runs_dir: Path, monkeypatch: pytest.MonkeyPatch, line: str
) -> None:
    monkeypatch.setenv("NOESIS_RUNS_DIR", str(runs_dir))
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen([sys.executable, "-c", HOLDS, str(runs_dir)], env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        episode_id = proc.stdout.readline().strip()
        with pytest.raises(UsageError) as told:
            run_magic(line.format(id=episode_id))
        said = str(told.value)
        assert f"no episode {episode_id!r} is running in this kernel" in said
        assert f"being written by pid {proc.pid} on " in said and line.split()[0] + " it there" in said
    finally:
        proc.kill()
        proc.wait()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RunRecovered)
        noesis_nb.resume_run(runs_dir / episode_id)  # the killed process's run is sealed (process lost)
    with pytest.raises(UsageError, match=rf"Its run {episode_id} has ended \(sealed\)$"):
        run_magic(line.format(id=episode_id))


def test_stop_of_an_episode_this_kernel_writes_outside_a_handle_does_not_send_the_user_to_another_process(
    runs_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``solve()`` in a thread (what ``in_thread`` advises) holds the run's lock in this very process."""
    monkeypatch.setenv("NOESIS_RUNS_DIR", str(runs_dir))
    release = threading.Event()

    def waits(task: str, ctx: object) -> str:
        release.wait(30)
        return "done"

    thread = threading.Thread(target=noesis_nb.solve, args=("wait", waits), kwargs={"runs_dir": runs_dir})
    thread.start()
    try:
        deadline = time.monotonic() + 30
        while not list(runs_dir.glob("ep_*/events.jsonl")) and time.monotonic() < deadline:
            time.sleep(0.02)
        [run] = [p.parent for p in runs_dir.glob("ep_*/events.jsonl")]
        with pytest.raises(UsageError) as told:
            run_magic(f"stop {run.name}")
        said = str(told.value)
        assert f"pid {os.getpid()}" not in said and "it there" not in said, said
        assert "This kernel writes its run" in said
    finally:
        release.set()
        thread.join(30)
