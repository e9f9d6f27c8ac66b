"""A person's Reject ends the run ``vetoed`` on disk (Noēsis' word, kept), but the view said so too: badge "vetoed",
"⊘ 4 veto events", end step "vetoed", while the README keeps vetoes (governance) apart from rejections (people). The
view now says "rejected" there; the card marks the rejection ⊘ as the step does (✖ is for errors). A governance veto
still reads as a veto."""

from __future__ import annotations

import asyncio
import json
import re
import sys
from html import unescape
from pathlib import Path
from typing import Any

import noesis_nb
from noesis_nb.widgets.view import EpisodeView


async def _writes(task: str, ctx: Any) -> Any:
    return await ctx.tool_async("fs.write", {"argv": [sys.executable, "-c", "pass"]}, effect="write", risk="high")


def _text(html: str) -> str:
    return unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", re.sub(r"<style.*?</style>", "", html, flags=re.S))))


def _view(run: Any) -> tuple[EpisodeView, str]:
    view = EpisodeView(run)
    view.flush()
    return view, _text(view.mimebundle(widget=False)["text/html"])


def test_a_rejected_tool_call_reads_as_a_rejection_not_a_veto(runs_dir: Path) -> None:
    async def main() -> Any:
        handle = noesis_nb.start("write it", using=_writes, runs_dir=runs_dir)
        while handle.status != "paused":
            await asyncio.sleep(0.02)
        handle.reject(reason="not now")
        await handle
        return handle

    handle = asyncio.run(main())
    assert json.loads((handle.run_dir / "summary.json").read_text())["status"] == "vetoed"  # on disk: Noēsis' word
    for run in (handle, noesis_nb.show(handle.episode_id, runs_dir=runs_dir).source):
        view, snapshot = _view(run)
        header, counts = _text(view.header.value), _text(view.counts.value)
        assert " rejected " in header and "vetoed" not in header, header
        assert "rejection event" in counts and "veto event" not in counts, counts
        assert re.search(r"⊘ end rejected · tool call 'fs.write' was rejected", snapshot), snapshot[-600:]
        assert "⊘ rejected by" in snapshot and "✖" not in snapshot


def test_a_governance_veto_still_reads_as_a_veto(runs_dir: Path) -> None:
    episode = noesis_nb.solve("destroy the staging copy", using=lambda task: "done", runs_dir=runs_dir, governance="enforce")
    view, snapshot = _view(noesis_nb.show(episode, runs_dir=runs_dir).source)
    assert " vetoed " in _text(view.header.value)
    assert "veto event" in view.counts.value and "rejection" not in view.counts.value
