"""Who sends a steer (or a graceful stop) is one line of text of at most 200 characters: it is recorded as the event's
``agent_id`` (``human:<sender>``) and shown in views. An empty one was recorded as 'human', a newline or 10,000
characters as given."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.errors import InvalidOptionError
from noesis_nb.store import read_events
from tests.compat.checker import check_run

BAD: list[Any] = ["", " ", "ana\n", "a\x00b", "x" * 10_000, "ana\u202eb", "a\u2028b", "a\tb", 7]


async def _listens(task: str, ctx: Any) -> list[str]:
    heard = []
    while (steer := await ctx.next_steer_async(timeout=5)) is not None and steer.text != "done":
        heard.append(steer.sender)
    return heard


def _sent(run_dir: Path) -> list[dict[str, Any]]:
    return [e for e in read_events(run_dir / "events.jsonl") if e["phase"] in ("steer", "drain")]


def test_a_sender_that_is_no_short_line_is_refused_naming_it_and_nothing_is_recorded(runs_dir: Path) -> None:
    refused: list[str] = []

    async def main() -> Any:
        handle = noesis_nb.start("t", using=_listens, runs_dir=runs_dir)
        while handle.status != "running":
            await asyncio.sleep(0.01)
        for sender in BAD:
            with pytest.raises(InvalidOptionError, match=r"^sender=") as caught:
                handle.steer("use staging", sender=sender)
            refused.append(str(caught.value))
            with pytest.raises(InvalidOptionError, match=r"^sender="):
                handle.cancel(drain_s=1, sender=sender)
        assert _sent(handle.run_dir) == [] and handle.status == "running" and not handle.draining
        handle.steer("use staging", sender="user:ana")
        handle.steer("done", sender="Ana Lima (ops)")
        await handle
        return handle

    handle = asyncio.run(main())
    assert handle.status == "ok" and handle.result() == ["user:ana"]
    assert [e["agent_id"] for e in _sent(handle.run_dir) if e["payload"]["event_name"] == "steer.sent"] == [
        "human:user:ana",
        "human:Ana Lima (ops)",
    ]
    assert check_run(handle.run_dir) == []
    for message in refused:
        assert "\n" not in message and len(message) < 300, message
    assert "'\\n'" in refused[2] and "'\\x00'" in refused[3] and "10,000 characters" in refused[4], refused
