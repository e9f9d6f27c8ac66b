"""A draft its run ended without deciding (cancelled while paused on it) reads as tools_df says it: ``undecided``,
never run, no pause mark. Its step read "‖ … waiting for approval" in the sealed run's view while tools_df said
``undecided``, runs_df 0 pending approvals and the inbox listed nothing to decide."""

from __future__ import annotations

import asyncio
import contextlib
import html
import re
from pathlib import Path
from typing import Any

import noesis_nb
from noesis_nb.scripted import note_writer
from noesis_nb.widgets import EpisodeView


def _tool_lines(page: str) -> list[str]:
    page = re.sub(r"<style.*?</style>", " ", page, flags=re.S)
    lines = re.findall(r'class="nnb-sum">(.*?)</summary>', page, flags=re.S)
    return [t for t in (html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", m))) for m in lines) if " tool " in t]


def test_a_draft_its_cancelled_run_never_decided_reads_undecided(runs_dir: Path, tmp_path: Path, comm_log: list) -> None:
    async def main() -> tuple[Any, str]:
        handle = noesis_nb.start("note, then cancelled", using=note_writer(tmp_path / "notes"), runs_dir=runs_dir)
        view = EpisodeView(handle)
        await handle  # paused on its draft
        assert handle.pending
        handle.cancel()
        with contextlib.suppress(BaseException):
            await handle.wait()
        view.flush()
        live = view.snapshot_html()
        view.close()
        return handle, live

    handle, live = asyncio.run(main())
    tools = noesis_nb.tools_df(runs_dir)
    assert tools.status.tolist() == ["undecided"], tools.status
    assert noesis_nb.runs_df(runs_dir).pending_approvals.tolist() == [0]
    for page in (live, noesis_nb.show(handle.run_dir).snapshot_html()):
        (line,) = _tool_lines(page)
        assert "undecided" in line and "never ran" in line, line
        assert "waiting for approval" not in line and "‖" not in line, line
