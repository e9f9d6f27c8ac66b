"""A lost run's view (``show()`` of a run whose writer was killed) offers "Settle lost run", which does what
``noesis_nb.resume_run('<id>')`` does: clicked in a real kernel, it runs as a task on the kernel's loop (the
click returns at once), the button is disabled while it runs, and the view follows the run to where it was left:
sealed ``error`` (``process_lost``) for a run killed while its adapter ran; for a run killed while its decided
draft's tool ran, the refusal (the draft's outcome is unknown) is one red line in the view, never a traceback."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.kernel.conftest import Kernel
from tests.widgets.lostruns import lost_while_its_tool_ran, lost_while_running


@pytest.fixture(scope="module")
def kernel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kernel]:
    k = Kernel(tmp_path_factory.mktemp("settle"))
    k.setup()
    try:
        yield k
    finally:
        k.stop()


def _updates(kernel: Kernel, comm_id: str) -> list[dict[str, Any]]:
    return [
        m["content"]["data"].get("state") or {}
        for m in kernel.messages
        if m["msg_type"] == "comm_msg"
        and m["content"].get("comm_id") == comm_id
        and m["content"]["data"].get("method") == "update"
    ]


def _view_html(kernel: Kernel, cls: str) -> str:
    """The newest value of the view's HTML widget holding ``cls`` (its header, its message line)."""
    values = [str(s.get("value") or "") for s in kernel.widgets("HTMLModel").values()]
    found = [v for v in values if cls in v]
    return found[-1] if found else ""


def _tracebacks(kernel: Kernel, since: int) -> list[str]:
    return [
        str(m["content"])
        for m in kernel.messages[since:]
        if m["msg_type"] == "error" or (m["msg_type"] == "stream" and "Traceback" in m["content"].get("text", ""))
    ]


def _click_settle(kernel: Kernel, episode_id: str) -> tuple[str, int]:
    kernel.run(f"view = noesis_nb.show({episode_id!r}, runs_dir=RUNS)")
    assert kernel.value("view.source.status") == "lost"
    button = kernel.button("Settle lost run", contains=f"noesis_nb.resume_run('{episode_id}')")
    assert kernel.widgets()[button].get("layout")  # shown (the view hides it for any run not lost)
    since = len(kernel.messages)
    kernel.click(button)
    return button, since


def test_settle_seals_a_run_lost_while_its_adapter_ran(kernel: Kernel) -> None:
    lost_while_running(kernel.runs, "ep_settle_ran")
    button, since = _click_settle(kernel, "ep_settle_ran")
    run_dir = kernel.runs / "ep_settle_ran"
    kernel.wait(lambda: (run_dir / "manifest.json").exists(), 30, "the run sealed by the click")
    kernel.wait(lambda: 'nnb-c-red">error</span>' in _view_html(kernel, "nnb-h"), 30, "the header's error badge")
    kernel.wait(lambda: "sealed as error" in _view_html(kernel, "nnb-msg"), 30, "the line saying what was done")
    assert kernel.value("view.settling.task is not None and view.settling.task.done()")  # a task on the kernel's loop
    states = _updates(kernel, button)
    assert any(s.get("disabled") is True for s in states), states  # disabled while it ran
    kernel.wait(lambda: _updates(kernel, button)[-1:] and kernel.widgets()[button].get("disabled") is False, 10, "re-enabled")
    assert kernel.value("view.settle_button.layout.display") == "none"  # nothing left to settle
    assert kernel.value("view.source.status") == "error"
    assert "process_lost" in (run_dir / "summary.json").read_text()  # as resume_run seals it
    assert not _tracebacks(kernel, since)


def test_a_refusal_is_one_line_in_the_view(kernel: Kernel) -> None:
    lost_while_its_tool_ran(kernel.runs, "ep_settle_tool", kernel.tmp / "tool_started")
    button, since = _click_settle(kernel, "ep_settle_tool")
    kernel.wait(lambda: "could not settle" in _view_html(kernel, "could not settle"), 30, "the refusal's line")
    line = _view_html(kernel, "could not settle")
    said = line.split('<div class="nnb-msg nnb-c-red">', 1)[1].split("</div>", 1)[0]
    assert "ToolOutcomeUnknownError" in said and "unknown_outcome=" in said and "\n" not in said
    assert not _tracebacks(kernel, since)
    kernel.wait(lambda: kernel.widgets()[button].get("disabled") is False, 10, "the button usable again")
    assert not (kernel.runs / "ep_settle_tool" / "manifest.json").exists()  # nothing sealed behind the person's back


def test_settle_from_code_is_awaitable_and_runs_once(tmp_path: Path) -> None:
    import asyncio

    from noesis_nb.runtime.diskrun import DiskRun
    from noesis_nb.widgets.view import EpisodeView

    runs = tmp_path / "runs"
    runs.mkdir()
    lost_while_running(runs, "ep_settle_code")

    async def main() -> tuple[Any, Any, str, str]:
        source = DiskRun("ep_settle_code", runs_dir=runs)
        view = EpisodeView(source)
        view.flush()
        task = view.settle()
        again = view.settle()  # a second click while the first runs settles nothing
        assert task is not None and view.settle_button.disabled
        await task
        view.flush()
        return again, view.settle(), source.status, str(view.message.value)

    again, after, status, said = asyncio.run(main())
    assert again is None and after is None and status == "error" and "sealed as error" in said
    assert (runs / "ep_settle_code" / "manifest.json").exists()
