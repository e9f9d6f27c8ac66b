"""A graceful stop whose first write fails (refused by the disk) still stops the episode.

``cancel(drain_s)`` writes ``drain.started`` (right after ``start()``, the run's ``start`` first); when the file
system refuses it, the caller gets the write's error, and the episode is stopped at once (ends ``cancelled``, sealed
once the disk takes writes again) instead of running on to its end as if no stop had been asked.
"""

from __future__ import annotations

import asyncio
import resource
import signal

import pytest

import noesis_nb
from noesis_nb.errors import RunWriteError

from ..compat.checker import check_run


async def _agent(task, ctx):
    await asyncio.sleep(0.3)
    return "done"


@pytest.mark.parametrize("when", ["before its first step (start refused)", "while it runs (drain.started refused)"])
def test_a_drain_whose_first_write_is_refused_still_stops_the_episode(runs_dir, when):
    async def main():
        handle = noesis_nb.start("the task", using=_agent, runs_dir=runs_dir)
        if when.startswith("while"):
            await asyncio.sleep(0.05)  # the agent is asleep: the run's start is written
        log = handle.run_dir / "events.jsonl"
        soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
        old = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        # a real write limit: the next byte past the log's present size is refused (EFBIG) by the kernel
        resource.setrlimit(resource.RLIMIT_FSIZE, (log.stat().st_size, hard))
        try:
            with pytest.raises(RunWriteError) as refused:
                handle.cancel(drain_s=2.0)
        finally:
            resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
            signal.signal(signal.SIGXFSZ, old)
        await handle
        return handle, refused.value

    handle, error = asyncio.run(main())
    assert "events.jsonl" in str(error) and "stopped at once" in " ".join(getattr(error, "__notes__", []))
    assert handle.stop_requested and handle.status == "cancelled"
    row = noesis_nb.runs_df(runs_dir).set_index("episode_id").loc[handle.episode_id]
    assert row["status"] == "cancelled"
    assert (handle.run_dir / "manifest.json").is_file()
    assert check_run(handle.run_dir) == []
