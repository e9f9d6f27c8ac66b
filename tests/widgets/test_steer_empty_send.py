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


def test_the_hint_goes_with_the_box_when_the_run_ends(listening: Any, comm_log: list) -> None:
    """The hint outlived the row it spoke of: Send on an empty box, then Stop; the ended view still read "type a
    message for the agent in the box first…" under "the run ended cancelled", with no box or Send left."""

    async def main() -> None:
        run = await listening()
        view = run.view
        view.steering.text.value = ""
        view.steering.send_button.click()
        assert "type a message" in view.message.value
        view.drain_button.click()
        await run.handle.wait()
        view.flush()
        assert view.steering.box.layout.display == "none"
        assert "type a message" not in view.message.value, view.message.value

    asyncio.run(main())


def test_a_later_message_is_not_cleared_with_the_hint(listening: Any, comm_log: list) -> None:
    """Only the row's own words go: a line the view wrote after the hint stays."""

    async def main() -> None:
        run = await listening()
        view = run.view
        view.steering.send_button.click()
        view.message.value = "<b>something else</b>"
        await run.finish()
        view.flush()
        assert view.message.value == "<b>something else</b>"

    asyncio.run(main())
