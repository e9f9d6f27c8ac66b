"""Send with an empty box did nothing and said nothing (a click that seems broken): it now says what to do."""

from __future__ import annotations

import asyncio
from typing import Any


def test_send_with_an_empty_box_says_to_type_a_message_and_sends_nothing(listening: Any, comm_log: list) -> None:
    async def main() -> None:
        run = await listening()
        view = run.view
        for blank in ("", "   "):
            view.message.value = ""
            view.steering.text.value = blank
            view.steering.send_button.click()
            assert "type a message for the agent in the box first" in view.message.value, view.message.value
        view.steering.text.value = "use staging"
        view.steering.send_button.click()
        assert "type a message" not in view.message.value  # a message sent clears the hint
        assert await run.finish() == "use staging"  # the blank clicks sent nothing

    asyncio.run(main())
