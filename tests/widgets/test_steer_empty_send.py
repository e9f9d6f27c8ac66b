"""Send with an empty box did nothing and said nothing (a click that seems broken): it now says what to do."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import noesis_nb
from noesis_nb.widgets import EpisodeView


def test_send_with_an_empty_box_says_to_type_a_message_and_sends_nothing(runs_dir: Path, nnb: Any, comm_log: list) -> None:
    release = asyncio.Event()

    async def agent(task: str, ctx: Any) -> str:
        ctx.emit("reason", {"text": "listening"})
        await release.wait()
        return " / ".join(s.text for s in ctx.steers())

    async def main() -> None:
        handle = noesis_nb.start("listen", using=agent, runs_dir=runs_dir)
        view = EpisodeView(handle, approver_id="ana")
        await nnb.until(lambda: any(e["phase"] == "reason" for e in handle.events))
        view.flush()
        for blank in ("", "   "):
            view.message.value = ""
            view.steering.text.value = blank
            view.steering.send_button.click()
            assert "type a message for the agent in the box first" in view.message.value, view.message.value
        view.steering.text.value = "use staging"
        view.steering.send_button.click()
        assert "type a message" not in view.message.value  # a message sent clears the hint
        release.set()
        await handle.wait()
        assert handle.result() == "use staging"  # the blank clicks sent nothing

    asyncio.run(main())
