"""A runs dir so long that a run's files would pass the system's path limit is refused before the run starts.

A 4,000-byte ``runs_dir`` was taken: the run was made, then its first tool draft failed with a bare ``OSError
[Errno 36] File name too long`` and the episode ended in error. Now ``solve`` refuses it, naming the length that
fits; a runs dir of that length runs a tool draft through to its end.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.errors import InvalidOptionError


def _deep(base: Path, size: int) -> Path:
    """A folder path of exactly ``size`` bytes under ``base`` (parts of 200 bytes: each within NAME_MAX)."""
    parts, left = [], size - len(os.fsencode(base)) - 1
    while left > 0:
        part = min(200, left)
        if left - part == 1:  # a last part of 0 bytes is impossible: split what is left evenly
            part -= 1
        parts.append("d" * part)
        left -= part + 1
    path = base.joinpath(*parts)
    assert len(os.fsencode(path)) == size
    return path


def agent(task, ctx):
    return ctx.tool("fs.echo", {"argv": ["echo", "ran"]}, effect="write", risk="high", idempotency_key="k" * 200)


def test_a_runs_dir_past_the_path_limit_is_refused_before_the_run_starts(tmp_path: Path) -> None:
    runs = _deep(tmp_path, 4000)
    with pytest.raises(InvalidOptionError) as caught:
        noesis_nb.solve("t", using=agent, runs_dir=runs, approver="auto")
    message = str(caught.value)
    assert "runs_dir=" in message and "path limit" in message and "at most" in message, message
    assert not runs.exists()  # nothing was written
    fits = int(message.split("at most ", 1)[1].split(" bytes", 1)[0])

    ok = _deep(tmp_path / "ok", fits)  # the length the message names: a run with a tool draft goes through
    episode = noesis_nb.solve("t", using=agent, runs_dir=ok, approver="auto")
    assert noesis_nb.runs_df(ok).set_index("episode_id").loc[episode, "status"] == "ok"
