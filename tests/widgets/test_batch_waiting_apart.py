"""A batch that only waits for people is not working: its header's running time and throughput leave that wait out
and say it apart ('(+ … waiting for people)'), as an episode's header does. Throughput fell 485.9/min -> 313.2 ->
234.2 while ten paused writes waited for nobody deciding."""

from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path
from typing import Any

import noesis_nb
from noesis_nb.widgets.batchgrid import BatchFigures, header_line
from noesis_nb.widgets.state import format_seconds
from tests.widgets.test_batch_view import agent


def _said(line: str) -> tuple[str, str, str | None]:
    rate = re.search(r"throughput ([^ ]+) ·", line)
    took = re.search(r"running time ([0-9.]+ s)", line)
    waited = re.search(r"\(\+ ([^()]+) waiting for people\)", line)
    assert rate and took, line
    return rate.group(1), took.group(1), waited.group(1) if waited else None


def test_the_batch_header_counts_its_wait_for_people_apart(runs_dir: Path, tmp_path: Path) -> None:
    async def main() -> Any:
        b = noesis_nb.batch(["check a", "check b", "deploy d1"], using=agent(tmp_path), approver="ask", root=runs_dir)
        await b  # returns once all that is left waits for a person
        figures = BatchFigures()
        figures.update(b.entries)
        now = time.time()
        before, later = (_said(header_line(b, b.counts(), figures, now=now + d)) for d in (0.0, 30.0))
        assert b.counts() == {"ok": 2, "paused": 1}
        assert before[:2] == later[:2]  # waiting is no running time, and nothing more was done per minute
        assert later[2] == format_seconds(b.waiting_s(now + 30.0)) and b.waiting_s(now + 30.0) >= 30.0
        b.entries[2].handle.approve()
        await b.wait()
        assert b.counts() == {"ok": 3}
        done = _said(header_line(b, b.counts(), figures, now=time.time() + 30.0))
        assert b.waiting_since is None and b.waited_s < 30.0  # the wait closed at the decision
        assert done[2] == (format_seconds(b.waited_s) if b.waited_s >= 0.05 else None)
        assert float(done[1].split()[0]) <= b.ended_at - b.started_at - b.waited_s + 0.05

    asyncio.run(main())
