"""A run folder's name may hold a ``\\`` on POSIX (``ep_A\\run``): it is part of the name, not a separator.

Taken for one, ``ep_A\\run`` and ``ep_B\\run`` both read as episode ``run``, and every frame merged the two runs'
rows under that one id.
"""

from __future__ import annotations

import os

import pytest

import noesis_nb

pytestmark = pytest.mark.skipif(os.sep == "\\", reason="a backslash separates folders on Windows")


def _agent(task, ctx):
    ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=100, output_tokens=10)
    ctx.emit("reason", {"about": task})
    return "done"


def test_each_folder_keeps_its_whole_name_in_every_frame(tmp_path):
    root = tmp_path / "runs"
    root.mkdir()
    names = []
    for task in ("A", "B"):
        ep = noesis_nb.solve(task, using=_agent, runs_dir=tmp_path / "made")
        name = f"ep_{task}\\run"
        os.rename(tmp_path / "made" / ep, root / name)
        names.append(name)
    runs = noesis_nb.runs_df(root)
    assert sorted(runs["episode_id"]) == sorted(names)
    events = noesis_nb.events_df(root)
    assert sorted(events["episode_id"].unique()) == sorted(names)
    per_run = events.groupby("episode_id").size()
    assert per_run[names[0]] == per_run[names[1]] == len(events) // 2  # each run's own rows, not merged
    usage = noesis_nb.usage_df(root)
    assert sorted(usage["episode_id"]) == sorted(names)
    assert usage.set_index("episode_id")["input_tokens"].to_dict() == {n: 100 for n in names}
