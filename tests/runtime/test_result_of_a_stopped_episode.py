"""``handle.result()`` of an episode that was stopped says so in one line naming it (an ``EpisodeCancelled``, still a
``CancelledError`` for code that catches that); IPython shows that line, not a traceback through asyncio."""

from __future__ import annotations

import asyncio

import pytest

import noesis_nb
from noesis_nb.errors import EpisodeCancelled


def test_result_of_a_stopped_episode_names_it_and_where_to_look(runs_dir):
    async def agent(task, ctx):
        await asyncio.Event().wait()

    async def main():
        handle = noesis_nb.start("stop me", using=agent, runs_dir=runs_dir)
        await asyncio.sleep(0.05)
        handle.cancel()
        await handle
        return handle

    handle = asyncio.run(main())
    assert handle.status == "cancelled"
    with pytest.raises(asyncio.CancelledError) as caught:  # code catching CancelledError still does
        handle.result()
    error = caught.value
    assert isinstance(error, EpisodeCancelled) and error.episode_id == handle.episode_id
    assert handle.episode_id in str(error) and "drain_report" in str(error)
    shown = error._render_traceback_()  # what IPython prints instead of a traceback
    assert shown[0] == f"EpisodeCancelled: {error}" and len(shown) <= 2
