"""A cell run again while the episode it started waits for approval (what JupyterLab does on Shift+Enter twice),
and a view whose kernel restarted.

The front end replaces the cell's outputs, so the first episode's view is gone while the episode waits on
in the kernel: the new view must name it and give a command that reaches it. A view that lost its kernel
says what to type in the new one: that must work there too.
"""

from __future__ import annotations

import html
import re
import shlex
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.kernel

NOTE = "This cell ran again"


def run_in_cell(kernel: Any, code: str, cell_id: str | None) -> dict[str, Any]:
    """Execute ``code`` as a notebook front end does: the request's metadata names the cell."""
    content = {"code": code, "silent": False, "store_history": True, "user_expressions": {}, "allow_stdin": False}
    msg = kernel.kc.session.msg("execute_request", content, metadata={"cellId": cell_id} if cell_id else {})
    kernel.kc.shell_channel.send(msg)
    out: dict[str, Any] = kernel.collect(msg["header"]["msg_id"], 60, f"cell did not finish:\n{code}")
    assert out["error"] is None, out["error"]
    return out


def notes(kernel: Any) -> list[str]:
    return [str(s.get("value")) for s in kernel.widgets("HTMLModel").values() if NOTE in str(s.get("value") or "")]


def start_in(kernel: Any, cell_id: str | None, name: str, runs: Path | None = None) -> str:
    code = f'h = %noesis run tool_agent "write {name}" --runs-dir {shlex.quote(str(runs or kernel.runs))}\nprint(h.episode_id)'
    episode_id: str = run_in_cell(kernel, code, cell_id)["stdout"].strip().splitlines()[-1]
    kernel.button("Approve", episode_id)  # its card is shown: the draft waits on disk
    return episode_id


def test_the_view_of_a_cell_run_again_names_the_episode_still_waiting_and_how_to_reach_it(kernel: Any, disk: Any) -> None:
    kernel.setup()
    first = start_in(kernel, "cell-start", "first")
    start_in(kernel, None, "elsewhere")  # a request naming no cell, and another cell: no note
    start_in(kernel, "cell-other", "other")
    assert notes(kernel) == []

    second = start_in(kernel, "cell-start", "second")  # the same cell again: the first view is replaced
    note = kernel.wait(lambda: notes(kernel), what="the note in the new view")
    assert len(note) == 1 and first in note[0] and second not in note[0], note
    assert "still waits for a decision" in note[0] and f"%noesis stop {first}" in note[0]

    # the command the note gives reaches the first episode: its view again, and Approve there continues it
    show = html.unescape(re.search(r"decide it in <code>(.*?)</code>", note[0]).group(1))  # type: ignore[union-attr]
    run_in_cell(kernel, show, "cell-show")
    kernel.click(kernel.button("Approve", first))
    kernel.wait(lambda: (kernel.mark / "first").exists(), what="the first episode's tool to run")
    assert [d["status"] for d in disk.decisions(kernel.runs / first)] == ["approved"]
    kernel.wait(lambda: not notes(kernel), what="the note to go once the first episode ended")
    assert not (kernel.mark / "second").exists()  # the second one still waits for its own decision


def test_the_commands_a_view_gives_once_its_kernel_is_gone_work_in_the_restarted_kernel(kernel: Any, disk: Any) -> None:
    kernel.setup()
    runs = kernel.tmp / "kept elsewhere"  # not a root a fresh kernel searches (the kernel's ./runs is one)
    episode_id = start_in(kernel, "cell-restart", "after-restart", runs)

    def paused_notice() -> str | None:  # once the view drew the run paused: what it says then
        said = [str(s.get("value")) for s in kernel.widgets("HTMLModel").values() if 'class="nnb-stale"' in str(s.get("value"))]
        return next((v for v in said if episode_id in v and "paused on disk" in v), None)

    notice = kernel.wait(paused_notice, what="the notice for the paused run")
    load, load_import, show, approve, _reject = (html.unescape(code) for code in re.findall(r"<code>(.*?)</code>", notice))
    kernel.restart()  # the view's buttons are dead; what it says to type must work in the new kernel
    kernel.run(load)  # what it says a new kernel needs first
    kernel.run(load_import)
    kernel.run(show)
    kernel.run(approve)
    [decision] = disk.decisions(runs / episode_id)
    assert decision["status"] == "approved"


def test_the_inbox_with_no_runs_dir_lists_a_live_episode_kept_under_another_and_decides_it(kernel: Any, disk: Any) -> None:
    kernel.setup()
    runs = kernel.tmp / "inbox elsewhere"  # %noesis run … --runs-dir: not the configured runs dir the inbox reads
    # the cell's output cleared (or the view scrolled away): %noesis inbox is the way back to the draft
    episode_id = start_in(kernel, "cell-inbox", "from-inbox", runs)
    out = run_in_cell(kernel, "ib = %noesis inbox\nib", "cell-inbox-2")
    plain = " ".join(str(o["data"].get("text/plain")) for o in out["outputs"])
    assert "nothing waiting" not in plain and episode_id in " ".join(str(o["data"].get("text/html")) for o in out["outputs"])
    kernel.click(kernel.button("Approve", episode_id))  # the newest: the inbox row's (the view's output may be cleared)
    kernel.wait(lambda: disk.decisions(runs / episode_id), what="the decision made in the inbox")
    kernel.wait(lambda: (kernel.mark / "from-inbox").exists(), what="the episode to continue")
