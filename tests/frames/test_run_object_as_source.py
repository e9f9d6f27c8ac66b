"""A handle, a ``DiskRun`` or a batch entry given as a frame's source is named, with what to pass instead.

``show(handle)`` and ``replay(handle)`` take one, so a newcomer wrote ``runs_df(handle)`` next and got the
generic "is not a run source" listing every kind of source but the one at hand (``handle.run_dir``).
"""

from __future__ import annotations

import asyncio

import pytest

import noesis_nb
from noesis_nb.errors import InvalidOptionError


def _handle(runs_dir):
    async def main():
        handle = noesis_nb.start("t", using=lambda task: "done", runs_dir=runs_dir)
        await handle.wait()
        return handle

    return asyncio.run(main())


@pytest.mark.parametrize("frame", ["runs_df", "events_df", "tools_df", "usage_df"])
def test_a_handle_as_source_says_to_pass_its_run_dir(runs_dir, frame):
    handle = _handle(runs_dir)
    with pytest.raises(InvalidOptionError) as caught:
        getattr(noesis_nb, frame)(handle)
    assert str(caught.value) == (
        f"got an EpisodeHandle where source= goes; pass its .run_dir or its .episode_id ('{handle.episode_id}'); "
        "for several, a list of those"
    )
    getattr(noesis_nb, frame)(handle.run_dir)  # as the message says: it loads


def test_a_disk_run_in_a_source_list_is_named_too(runs_dir):
    handle = _handle(runs_dir)
    with pytest.raises(InvalidOptionError, match=r"^source list item: got a DiskRun where source= goes; pass its \.run_dir"):
        noesis_nb.runs_df([noesis_nb.DiskRun(handle.run_dir)])
