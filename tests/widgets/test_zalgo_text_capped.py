"""Text with piles of combining marks ("Zalgo": one letter carrying hundreds of accents) is shown with a few marks
per letter at most, in every view: the live view's widgets, the static snapshot, the text timeline of
``%noesis show --text``, a figure. Otherwise one name would draw over the rows above and below it."""

from __future__ import annotations

import asyncio
import json
import re
import unicodedata
from pathlib import Path
from typing import Any

import noesis_nb
from noesis_nb.plots import episode_timeline
from noesis_nb.widgets import EpisodeView
from noesis_nb.widgets.snapshot import timeline_text
from tests.ipshell import run_magic

ABOVE = "".join(chr(c) for c in range(0x300, 0x370))  # every combining diacritical mark
OTHER = "\u0489\u20dd\u20e3\u1dc0\u1ab0\ufe20\u0e31\u0951"  # enclosing, supplement, half, Thai and Devanagari marks


def zalgo(word: str) -> str:
    return "".join(ch + (ABOVE * 3 + OTHER * 5) for ch in word)


def _longest_pile(text: str) -> int:
    longest = run = 0
    for ch in text:
        run = run + 1 if unicodedata.category(ch) in ("Mn", "Me") else 0
        longest = max(longest, run)
    return longest


def _agent(task: str, ctx: Any) -> Any:
    ctx.emit(zalgo("phase"), {"event_name": zalgo("name"), "text": zalgo("payload"), zalgo("key"): zalgo("value")})
    ctx.emit("reason", {"message": zalgo("message"), "reason": zalgo("why")})
    ctx.model_call(zalgo("model"), provider=zalgo("provider"), input_tokens=10, output_tokens=5)
    ctx.tool("python.eval", {"expression": zalgo("argument")}, fn=lambda expression: zalgo("result"), effect="read")
    raise RuntimeError(zalgo("failure"))


def test_every_view_caps_combining_marks(runs_dir: Path, comm_log: list, nnb: Any) -> None:
    async def main() -> str:
        handle = noesis_nb.start(zalgo("task"), using=_agent, runs_dir=runs_dir)
        view = EpisodeView(handle)
        try:
            await handle
        except Exception:
            pass
        await nnb.until(lambda: view.settled is not None, timeout=20)
        view.mode.value = "events"  # the raw rows too
        view.flush()
        view.mode.value = "steps"
        view.flush()
        return handle.episode_id

    episode_id = asyncio.run(main())
    sent = [json.dumps(data, ensure_ascii=False) for _t, _c, _n, data in comm_log]
    html_sent = "".join(sent)
    assert "payload" in re.sub(r"[\u0300-\u036f]", "", html_sent), "the planted text never reached the view"
    assert 0 < _longest_pile(html_sent) <= 4, _longest_pile(html_sent)

    from noesis_nb.runtime.diskrun import DiskRun

    disk = DiskRun(episode_id, runs_dir=runs_dir)
    shown = noesis_nb.show(episode_id, runs_dir=runs_dir)
    snapshot = shown.snapshot_html()
    assert "phase" in re.sub(r"[\u0300-\u036f]", "", snapshot) and 0 < _longest_pile(snapshot) <= 4

    text = timeline_text(disk.events)
    assert "task=task" in re.sub(r"[\u0300-\u036f]", "", text) and 0 < _longest_pile(text) <= 4
    _value, printed = run_magic(f"show {episode_id} --text --runs-dir {runs_dir}")
    assert "payload" in re.sub(r"[\u0300-\u036f]", "", printed) and 0 < _longest_pile(printed) <= 4

    frame = noesis_nb.events_df(runs_dir)
    figure = json.dumps(episode_timeline(frame, episode_id).to_plotly_json(), default=str, ensure_ascii=False)
    assert "name" in re.sub(r"[\u0300-\u036f]", "", figure) and 0 < _longest_pile(figure) <= 4
