"""``%noesis steer <id> "$t"`` confirms with one visible line: a text holding a terminal escape or a bidi override
(from a variable, or pasted) was printed raw, where Jupyter's output obeys ANSI escapes, and a long one whole. Such a
text is refused now, in one line naming the character; a long one with line ends and a pasted key is one line."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from IPython.core.error import UsageError
from IPython.utils.capture import capture_output

import noesis_nb

KEY = "sk-proj-" + "A1b2C3d4" * 6
HOSTILE = f"use \x1b[8mhidden\x1b[0m \u202eevil\u202c\nthe next line {KEY} "
TEXT = f"use it\nthe next line {KEY} " + "q" * 5000


def test_the_steer_line_is_one_visible_line_and_the_agent_hears_it_whole(ip: Any, runs_dir: Path) -> None:
    heard: list[str] = []

    async def agent(task: str, ctx: Any) -> None:
        heard.append(str(await ctx.next_steer_async(timeout=30)))

    async def cell() -> tuple[str, str]:
        handle = noesis_nb.start("listen", using=agent, runs_dir=runs_dir)
        await asyncio.sleep(0.05)
        ip.user_ns["t"] = HOSTILE  # a terminal escape or a bidi override no person types: refused in one line
        with pytest.raises(UsageError) as refused:
            ip.run_line_magic("noesis", f'steer {handle.episode_id} "$t"')
        ip.user_ns["t"] = TEXT
        with capture_output() as out:
            ip.run_line_magic("noesis", f'steer {handle.episode_id} "$t"')
        await handle.wait()
        return str(refused.value), out.stdout

    said, printed = asyncio.run(cell())
    assert said.startswith("%noesis steer: steer text holds") and "\n" not in said and len(said) < 400, said
    assert "\x1b" not in said and "\u202e" not in said and KEY not in said
    assert printed.startswith("sent to ep_") and "use" in printed and "the next line" in printed
    assert KEY not in printed
    assert printed.count("\n") == 1 and len(printed) < 400
    assert heard == [TEXT]  # what the agent is told is not cut, and the refused text never reached it
