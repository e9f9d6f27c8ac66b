"""``%noesis steer <id> "$t"`` confirms with one visible line: a text holding a terminal escape or a bidi override
(from a variable, or pasted) was printed raw, where Jupyter's output obeys ANSI escapes, and a long one whole."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from IPython.utils.capture import capture_output

import noesis_nb

KEY = "sk-proj-" + "A1b2C3d4" * 6
TEXT = f"use \x1b[8mhidden\x1b[0m \u202eevil\u202c\nthe next line {KEY} " + "q" * 5000


def test_the_steer_line_is_one_visible_line_and_the_agent_hears_it_whole(ip: Any, runs_dir: Path) -> None:
    heard: list[str] = []

    async def agent(task: str, ctx: Any) -> None:
        heard.append(str(await ctx.next_steer_async(timeout=30)))

    async def cell() -> str:
        handle = noesis_nb.start("listen", using=agent, runs_dir=runs_dir)
        await asyncio.sleep(0.05)
        ip.user_ns["t"] = TEXT
        with capture_output() as out:
            ip.run_line_magic("noesis", f'steer {handle.episode_id} "$t"')
        await handle.wait()
        return out.stdout

    printed = asyncio.run(cell())
    assert printed.startswith("sent to ep_") and "use" in printed and "the next line" in printed
    assert "\x1b" not in printed and "\u202e" not in printed and KEY not in printed
    assert printed.count("\n") == 1 and len(printed) < 400
    assert heard == [TEXT]  # what the agent is told is not cut
