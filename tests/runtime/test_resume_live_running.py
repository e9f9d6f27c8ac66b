"""``resume_run`` of an episode running in this process says it is running: it said "it continues by itself once its
draft is decided" of an episode that had no draft."""

from __future__ import annotations

import asyncio
import warnings
from pathlib import Path
from typing import Any

import noesis_nb
from noesis_nb.runtime.resume import NothingToResume

from .agents import make_writer


def _told(episode_id: str, runs_dir: Path) -> str:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", NothingToResume)
        assert noesis_nb.resume_run(episode_id, runs_dir=runs_dir) == episode_id
    [warning] = [w for w in caught if issubclass(w.category, NothingToResume)]
    return str(warning.message)


def test_a_running_episode_is_said_running_and_a_paused_one_waits_for_its_draft(runs_dir: Path, tmp_path: Path) -> None:
    async def cell() -> tuple[str, str]:
        release = asyncio.Event()

        async def waiting(task: str, ctx: Any) -> str:
            await release.wait()
            return "done"

        running = noesis_nb.start("wait", using=waiting, runs_dir=runs_dir)
        await asyncio.sleep(0.05)
        said_running = _told(running.episode_id, runs_dir)
        release.set()
        await running.wait()
        paused = noesis_nb.start("note", using=make_writer(tmp_path / "out.txt"), runs_dir=runs_dir)
        await paused
        said_paused = _told(paused.episode_id, runs_dir)
        paused.cancel()
        await paused
        return said_running, said_paused

    said_running, said_paused = asyncio.run(cell())
    assert "is running, nothing to resume" in said_running and "draft" not in said_running
    assert "continues by itself once its draft is decided" in said_paused
