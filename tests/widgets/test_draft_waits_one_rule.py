"""One rule for how long a draft waited for a person (``waits.draft_wait``): ``tools_df.wait_s`` and the view's tool
step ``(waited …)`` say the run's pause that held the draft, so a run's waits add up to its ``waiting_s``, and a
draft an approver policy decided waited for nobody. Two drafts asked for at once pause one at a time: the held one
read ``wait_s`` 2.04 (its ask to its decision) in tools_df and ``(waited 1.0 s)`` (the pause before its own) in its
step; a policy's draft had ``wait_s`` 0.02 and was drawn by ``plots.approval_waits``."""

from __future__ import annotations

import asyncio
import html
import re
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import noesis_nb
from noesis_nb.widgets.state import format_seconds

FIRST_S, SECOND_S = 0.3, 0.7  # how long a person takes over each of the two drafts, one after the other


def by_policy(pending: Any) -> Any:
    return (True, "policy ok") if "auto" in str(pending.tool) else None


async def two_at_once(task: str, ctx: Any) -> str:
    def write(name: str) -> Any:
        return ctx.tool_async(name, {"argv": [sys.executable, "-c", "pass"]}, effect="write", risk="high")

    await write("fs.auto_one")
    await asyncio.gather(write("fs.write_a"), write("fs.write_b"))
    return "ok"


def _tool_lines(page: str) -> dict[str, str]:
    page = re.sub(r"<style.*?</style>", " ", page, flags=re.S)
    lines = [
        html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", m)))
        for m in re.findall(r'class="nnb-sum">(.*?)</summary>', page, flags=re.S)
    ]
    return {name: next(t for t in lines if f" tool {name} " in t) for name in ("fs.auto_one", "fs.write_a", "fs.write_b")}


def test_each_draft_waits_its_own_pause_and_a_policys_draft_none(runs_dir: Path, comm_log: list) -> None:
    async def main() -> Any:
        handle = noesis_nb.start("two at once", using=two_at_once, runs_dir=runs_dir, approver=by_policy)
        for took in (FIRST_S, SECOND_S):
            await handle  # paused on a draft
            await asyncio.sleep(took)  # the person's time being measured, not a synchronisation
            handle.approve(handle.pending[0].draft_id, approver_id="ana")
        await handle.wait()
        return handle

    handle = asyncio.run(main())
    tools = noesis_nb.tools_df(runs_dir).set_index("tool")
    waiting_s = float(noesis_nb.runs_df(runs_dir).waiting_s.iloc[0])
    assert tools.status.tolist() == ["succeeded"] * 3
    assert tools.approver_id.tolist() == ["policy:by_policy", "ana", "ana"]
    assert pd.isna(tools.loc["fs.auto_one", "wait_s"])  # a policy decided it: nobody waited
    people = tools.loc[["fs.write_a", "fs.write_b"], "wait_s"].astype(float)
    assert people.sum() == pytest.approx(waiting_s, abs=1e-3), (people, waiting_s)
    assert sorted(people)[0] >= FIRST_S - 0.05 and sorted(people)[1] >= SECOND_S - 0.1  # each at least its person's time
    lines = _tool_lines(noesis_nb.show(handle.run_dir).snapshot_html())
    assert "waited" not in lines["fs.auto_one"], lines
    for tool, wait in people.items():
        assert f"(waited {format_seconds(wait)})" in lines[str(tool)], (tool, wait, lines)
    from noesis_nb.plots import approval_waits

    drawn = sum(len(trace.y) for trace in approval_waits(tools.reset_index()).data)
    assert drawn == 2  # the person's two drafts, not the policy's
