"""A draft its run ended without deciding waited all the same: a run cancelled while paused on it counts that pause
in ``runs_df.waiting_s`` and its view's header, so ``tools_df.wait_s`` gives the draft that pause (a run's wait_s add
up to its waiting_s, the README says) and its step says ``(waited …)``; it was <NA>, the pause nobody's."""

from __future__ import annotations

import asyncio
import html
import re
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.widgets.state import format_seconds
from tests.frames.runkit import writer_adapter


async def _cancelled_after_a_wait(runs: Path) -> Any:
    handle = noesis_nb.start("write a file", using=writer_adapter, runs_dir=runs, approver="ask")
    await asyncio.wait_for(handle, 30)  # paused: the draft waits for a person
    await asyncio.sleep(0.2)  # nobody decides for a while (the wait itself, nothing waited on)
    handle.cancel()
    await asyncio.wait_for(handle.wait(), 30)
    return handle


def test_an_undecided_draft_waited_through_the_pause_its_runs_end_closed(runs_dir: Path) -> None:
    handle = asyncio.run(_cancelled_after_a_wait(runs_dir))
    row = noesis_nb.runs_df(runs_dir).iloc[0]
    tools = noesis_nb.tools_df(runs_dir)
    assert row["status"] == "cancelled" and tools["status"].tolist() == ["undecided"]
    assert row["waiting_s"] >= 0.2
    assert tools["wait_s"].tolist() == pytest.approx([row["waiting_s"]], abs=1e-6)

    view = noesis_nb.show(handle.run_dir)
    # the whole bundle: _repr_mimebundle_ gives only its text/plain line to a cell that displayed it already (a
    # shell an earlier test left running counts as one)
    bundle = view.mimebundle() if hasattr(view, "mimebundle") else view._repr_mimebundle_()
    text = html.unescape(re.sub(r"<[^>]+>", " ", (bundle[0] if isinstance(bundle, tuple) else bundle)["text/html"]))
    said = format_seconds(row["waiting_s"])
    assert f"(+ {said} waiting for people)" in text  # the header
    assert re.search(rf"undecided: its run ended before anyone decided it\s+\(waited {re.escape(said)}\)", text), text
