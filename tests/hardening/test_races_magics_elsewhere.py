"""``%noesis stop`` / ``%noesis steer`` for an episode that another process (a second kernel) runs: the
one line names that process, instead of only saying that nothing runs here."""

from __future__ import annotations

import os
import subprocess
import sys
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
