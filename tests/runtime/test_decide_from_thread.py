"""A decision made on another thread (a widget callback on a subshell thread, a worker thread) is seen by the next
``await handle``: it waits for what the episode does next instead of returning 'paused' with nothing pending."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import noesis_nb

from .agents import make_writer


def _decide_on_a_thread(decide) -> None:
    thread = threading.Thread(target=decide)
    thread.start()
    thread.join()


def test_await_after_an_approval_from_another_thread_waits_for_the_end(runs_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.txt"

    async def main() -> tuple[str, list[object], str]:
        handle = noesis_nb.start("note", using=make_writer(out), runs_dir=runs_dir, approver="ask")
        await handle
        assert handle.status == "paused"
        _decide_on_a_thread(lambda: handle.approve(approver_id="ana"))
        await handle
        return handle.status, handle.pending, out.read_text() if out.exists() else ""

    status, pending, written = asyncio.run(main())
    assert (status, pending, written) == ("ok", [], "note\n")


def test_await_after_a_rejection_from_another_thread_waits_for_the_end(runs_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.txt"

    async def main() -> tuple[str, object]:
        handle = noesis_nb.start("note", using=make_writer(out, handle_rejection=True), runs_dir=runs_dir, approver="ask")
        await handle
        _decide_on_a_thread(lambda: handle.reject(reason="not now", approver_id="bo"))
        await handle
        return handle.status, handle.result() if handle.done() else None

    status, result = asyncio.run(main())
    assert status == "ok"
    assert "not now" in result["rejected"]
    assert not out.exists()


def test_await_after_cancelling_a_paused_episode_returns_it_cancelled(runs_dir: Path, tmp_path: Path) -> None:
    """``h.cancel(); await h`` on an episode waiting for a human returned it 'paused' with its draft pending."""
    out = tmp_path / "out.txt"

    async def main() -> list[tuple[str, int, bool]]:
        seen = []
        for drain in (None, 3.0):
            handle = noesis_nb.start("note", using=make_writer(out), runs_dir=runs_dir, approver="ask")
            await handle
            assert handle.status == "paused"
            assert handle.cancel(drain_s=drain)
            await handle
            seen.append((handle.status, len(handle.pending), handle.done()))
        return seen

    assert asyncio.run(main()) == [("cancelled", 0, True), ("cancelled", 0, True)]
    assert not out.exists()
