"""After Stop or Resume is pressed in a view, the keyboard focus goes to the view's line saying what the press did
(again in the output re-rendered at the run's end, only soon after the press), or back to the button if it failed."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.runtime.diskrun import DiskRun
from noesis_nb.widgets import BatchView, EpisodeView, InboxView, focus
from tests.widgets.conftest import until
from tests.widgets.test_focus_keeper import _focus_sent, _page_shows_it_again
from tests.widgets.test_inbox import paused_on_disk
from tests.widgets.test_widgets_view import FakeSource


async def _waits_for_stop(task: str, ctx: Any) -> Any:
    await asyncio.sleep(3600)  # a long step: only Stop ends it


@pytest.mark.parametrize("later", [False, True], ids=["soon", "after-the-window"])
def test_stop_pressed_puts_the_focus_on_the_line_saying_so_and_again_after_the_re_render_only_soon(
    runs_dir: Path, comm_log: list[Any], monkeypatch: pytest.MonkeyPatch, later: bool
) -> None:
    # soon: a window no load can outlast between the press and the re-render; later: one the test outlasts
    monkeypatch.setattr(focus, "RESTORE_WITHIN_S", 0.2 if later else 60.0)

    async def main() -> None:
        handle = noesis_nb.start("wait", using=_waits_for_stop, runs_dir=runs_dir)
        view = EpisodeView(handle)
        await until(lambda: handle.status == "running" and view.stop_button.layout.display is None, 30)
        view.stop_button.click()
        line = view.pressed.line
        assert _focus_sent(comm_log, line) == 1 and _focus_sent(comm_log, view.stop_button) == 0
        assert line.layout.display is None and "stop asked" in line.value
        await handle.wait()
        view.flush()
        assert handle.status == "cancelled" and line.value == "the run ended cancelled"
        if later:
            time.sleep(0.4)  # the person may be typing in another cell by now
        _page_shows_it_again(line)  # the run's end re-rendered the view's output
        assert _focus_sent(comm_log, line) == (1 if later else 2)
        _page_shows_it_again(line)  # once only
        assert _focus_sent(comm_log, line) == (1 if later else 2)
        view.close()

    asyncio.run(main())


def test_a_stop_that_fails_gives_the_focus_back_to_stop_enabled(comm_log: list[Any]) -> None:
    async def main() -> None:
        source = FakeSource(asyncio.get_running_loop())
        source.can_cancel = True
        view = EpisodeView(source)

        def refuse() -> None:
            raise RuntimeError("nope")

        source.cancel = refuse
        view.stop_button.click()
        assert _focus_sent(comm_log, view.stop_button) == 1 and _focus_sent(comm_log, view.pressed.line) == 0
        assert not view.stop_button.disabled and "could not stop: nope" in view.message.value
        view.close()

    asyncio.run(main())


@pytest.mark.parametrize("fails", [False, True], ids=["resumed", "refused"])
def test_resume_pressed_puts_the_focus_on_the_line_or_back_on_resume_if_it_failed(
    runs_dir: Path, tmp_path: Path, comm_log: list[Any], fails: bool
) -> None:
    [ep] = paused_on_disk(runs_dir, tmp_path / "effect.txt", 1)

    async def main() -> None:
        view = EpisodeView(DiskRun(runs_dir / ep))
        view.approvals.card().approve_button.click()
        await until(lambda: view.resume_button.layout.display is None, 30)
        if fails:
            (runs_dir / ep / "final.json").mkdir()  # where the seal is written: a folder, so the resume fails
        view.resume_button.click()
        line = view.pressed.line
        assert _focus_sent(comm_log, line) == 1 and "resuming" in line.value
        resumes = [t for t in asyncio.all_tasks() if t.get_name().startswith("noesis_nb:resume:")]
        await asyncio.gather(*resumes, return_exceptions=True)
        if fails:
            await until(lambda: _focus_sent(comm_log, view.resume_button) == 1, 30)
            assert not view.resume_button.disabled and view.source.last_error
            assert "failed" in line.value
        else:
            await until(lambda: view.settled == "ok", 30)
            assert _focus_sent(comm_log, view.resume_button) == 0 and line.value == "the run ended ok"
            _page_shows_it_again(line)
            assert _focus_sent(comm_log, line) == 2
        view.close()

    asyncio.run(main())


def test_cancel_batch_pressed_puts_the_focus_on_the_line_saying_so(runs_dir: Path, comm_log: list[Any]) -> None:
    """The batch's Cancel is disabled by the press and hidden once the batch ends: the focus goes to its line."""

    async def main() -> None:
        b = noesis_nb.batch([f"t{i}" for i in range(3)], using=_waits_for_stop, concurrency=2, root=runs_dir)
        view = BatchView(b)
        await until(lambda: b.counts().get("running") == 2, 30)
        view.stop_button.click()
        line = view.pressed.line
        assert _focus_sent(comm_log, line) == 1 and _focus_sent(comm_log, view.stop_button) == 0
        assert "cancel asked" in line.value
        await asyncio.wait_for(b.wait(), 30)
        await until(lambda: view.stop_button.layout.display == "none", 30)
        assert line.value == f"the batch ended {b.status}"
        view.close()

    asyncio.run(main())


@pytest.mark.parametrize("fails", [False, True], ids=["resumed", "refused"])
def test_an_inbox_rows_resume_pressed_puts_the_focus_on_the_line_saying_how_it_went(
    runs_dir: Path, tmp_path: Path, comm_log: list[Any], fails: bool
) -> None:
    """The row's Resume leaves the list with the press (its run resumes): the focus goes to the inbox's line."""
    [ep] = paused_on_disk(runs_dir, tmp_path / "effect.txt", 1)

    async def main() -> None:
        inbox = InboxView(runs_dir, approver_id="ana")
        [row] = inbox.rows.values()
        row.approve_button.click()
        await until(lambda: len(inbox.resume_box.children) == 1, 30)
        if fails:
            (runs_dir / ep / "final.json").mkdir()  # where the seal is written: a folder, so the resume fails
        [resume] = inbox._resume_rows.values()
        resume.button.click()
        line = inbox.pressed.line
        assert _focus_sent(comm_log, line) == 1 and f"resuming run {ep}" in line.value
        word = "could not resume" if fails else "resumed run"
        await until(lambda: word in inbox.message.value, 30)
        assert line.value == (
            f"could not resume run {ep}: the line below says why" if fails else f"resume of run {ep} ended: it is ok now"
        )
        assert _focus_sent(comm_log, line) == 1 and _focus_sent(comm_log, resume.button) == 0
        inbox.close()

    asyncio.run(main())
