"""``%noesis stop <id>`` given twice said "cancelling" twice: the second now says the episode is already
cancelling, and a stop during a drain that it stops at once (a stop after the end was already refused as ended)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from IPython.core.error import UsageError

import noesis_nb


async def _waits(task: str, ctx: Any) -> str:
    await asyncio.sleep(30)
    return "never"


def _said(ip: Any, capsys: pytest.CaptureFixture[str], line: str) -> str:
    ip.run_line_magic("noesis", line)
    return capsys.readouterr().out.strip()


def test_a_second_stop_says_already_cancelling(
    ip: Any, runs_dir: Path, comm_log: list, capsys: pytest.CaptureFixture[str]
) -> None:
    async def main() -> tuple[list[str], Any]:
        handle = noesis_nb.start("wait", using=_waits, runs_dir=runs_dir)
        await asyncio.sleep(0.02)
        said = [_said(ip, capsys, f"stop {handle.episode_id}"), _said(ip, capsys, f"stop {handle.episode_id}")]
        await handle.wait()
        with pytest.raises(UsageError, match=r"has ended \(sealed\)"):  # ended: no longer live here
            ip.run_line_magic("noesis", f"stop {handle.episode_id}")
        return said, handle

    (first, second), handle = asyncio.run(main())
    ep = handle.episode_id
    assert handle.status == "cancelled"
    assert first == f"cancelling {ep}"
    assert second == f"{ep} is already cancelling; it is ending 'cancelled'"


def test_a_second_stop_during_a_drain_says_it_stops_at_once(
    ip: Any, runs_dir: Path, comm_log: list, capsys: pytest.CaptureFixture[str]
) -> None:
    async def main() -> tuple[list[str], Any]:
        handle = noesis_nb.start("wait", using=_waits, runs_dir=runs_dir)
        await asyncio.sleep(0.02)
        said = [_said(ip, capsys, f"stop {handle.episode_id} --drain 20")]
        said.append(_said(ip, capsys, f"stop {handle.episode_id}"))
        await asyncio.wait_for(handle.wait(), 10)  # stopped at once, not after the 20 s drain
        return said, handle

    (first, second), handle = asyncio.run(main())
    assert first == f"cancelling {handle.episode_id} once its running calls finish (≤ 20 s)"
    assert second == f"stopping {handle.episode_id} at once: its drain is cut short"
    assert handle.status == "cancelled"


def test_a_stop_that_does_nothing_says_why_in_one_place(
    ip: Any, runs_dir: Path, comm_log: list, capsys: pytest.CaptureFixture[str]
) -> None:
    """An episode whose event loop was closed under it is not running, yet it has not ended: the stop said it had
    "already ended (running)" (the second of two "already ended" branches); now one line says which it is."""
    loop = asyncio.new_event_loop()

    async def begin() -> Any:
        handle = noesis_nb.start("wait", using=_waits, runs_dir=runs_dir)
        await asyncio.sleep(0.05)
        return handle

    handle = loop.run_until_complete(begin())
    loop.close()  # the loop is gone with the episode's task still pending on it
    ep = handle.episode_id
    try:
        said = _said(ip, capsys, f"stop {ep}")
        assert not handle.done()
        assert "already ended" not in said
        assert said.startswith(f"{ep} cannot be stopped: the event loop it ran on is closed")
        assert f"noesis_nb.resume_run('{ep}')" in said
    finally:
        from noesis_nb.runtime.registry import forget

        handle._task.get_coro().close()  # its task can never run again on the closed loop: seal its run now
        forget(ep)  # and leave no live handle for later tests
