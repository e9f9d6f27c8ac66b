"""A paused run's view counts its wait for people on with no event arriving: its header is redrawn alone once a
second while the run is paused (its running time stays at the pause); it froze at the figure of the last event."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import noesis_nb
from noesis_nb.widgets.view import EpisodeView

WAITED = re.compile(r"running time ([^(<]+?) \(\+ ([\d.]+) s waiting for people\)")


def _times(view: EpisodeView) -> tuple[str, float]:
    found = WAITED.search(view.header.value)
    assert found, view.header.value
    return found.group(1), float(found.group(2))


async def _next_figure(view: EpisodeView, after: float, timeout: float = 3.0) -> tuple[str, float]:
    """Poll the header (as a browser shows it) until its wait reads more than ``after``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        running, waited = _times(view) if "waiting for people" in view.header.value else ("", 0.0)
        if waited > after or loop.time() > deadline:
            return running, waited
        await asyncio.sleep(0.05)


async def _counts_on(view: EpisodeView) -> None:
    seen = view.events_seen
    running, first = await _next_figure(view, 0.0)
    assert first > 0, view.header.value
    running_later, later = await _next_figure(view, first + 1.0)
    assert later >= first + 1.0, f"the wait stayed at {first} s: {view.header.value}"  # froze before
    assert running_later == running  # the running time stopped at the pause
    assert view.events_seen == seen  # no event came: the timer redrew it
    view.close()


def test_a_live_episode_s_view_counts_the_wait_on(runs_dir: Path, tmp_path: Path, nnb: Any, comm_log: list) -> None:
    marker = tmp_path / "x.txt"

    async def main() -> None:
        handle = noesis_nb.start("append", using=nnb.make_tool_adapter(nnb.side_effect_argv(marker)), runs_dir=runs_dir)
        await handle  # returns once the run waits for a person
        assert handle.status == "paused"
        await _counts_on(EpisodeView(handle))
        handle.approve()
        await handle.wait()

    asyncio.run(main())


def test_a_run_paused_on_disk_counts_the_wait_on(runs_dir: Path, tmp_path: Path, nnb: Any, comm_log: list) -> None:
    """Paused by a process now gone (``solve`` returned at the pause); shown from disk in a running loop."""
    marker = tmp_path / "x.txt"
    episode = noesis_nb.solve("append", using=nnb.make_tool_adapter(nnb.side_effect_argv(marker)), runs_dir=runs_dir)

    async def main() -> None:
        view = noesis_nb.show(runs_dir / episode)
        assert view.source.summary_kind != "EpisodeHandle" and view.source.status == "paused"
        await _counts_on(view)

    asyncio.run(main())
