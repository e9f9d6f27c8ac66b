"""What a view says once its kernel is gone fits the run as the view last drew it, and what it says to type works:
an ended run has nothing left to decide, a paused one is decided and resumed, a lost one (its writer killed, or
this kernel's own episode still running) is settled; a run written by another process goes on. The badge of a
run this kernel was running reads ``lost`` then, as ``%noesis list`` says of it.

It once said "decide it with ``%noesis approve …``" for every run, which for a lost run ended in "no draft is
pending approval … Pass a draft id." and for an ended one in "nothing to decide"."""

from __future__ import annotations

import asyncio
import signal
import sys
from pathlib import Path
from typing import Any

import ipywidgets as w
import pytest
from IPython.core.error import UsageError

import noesis_nb
from noesis_nb import ns
from noesis_nb.runtime.diskrun import DiskRun
from noesis_nb.store import is_sealed
from noesis_nb.widgets.view import EpisodeView
from tests.widgets.lostruns import lost_while_running, start_writer
from tests.widgets.staletext import commands, with_kernel, without_kernel


def _tool(task: str, ctx: Any) -> Any:
    return ctx.tool("fs.touch", {"argv": [sys.executable, "-c", "pass"]}, effect="write", risk="high")


def _notice(view: EpisodeView) -> str:
    """The view's notice for a lost kernel, wherever in the view it is."""
    found = [str(c.value) for c in view.children if isinstance(c, w.HTML) and 'class="nnb-stale"' in str(c.value)]
    assert len(found) == 1, found
    return found[0]


def _shown(run_dir: Path) -> tuple[str, str]:
    """(the notice, the header) of a view of the run from disk."""
    view = EpisodeView(DiskRun(run_dir))
    try:
        return _notice(view), str(view.header.value)
    finally:
        view.close()


def _badge(header_text: str) -> str:
    """The status badge's word: the header reads ``<id> <badge> <adapter> …``."""
    return header_text.split()[1]


def _type(ip: Any, line: str) -> None:
    """Type ``line`` in a cell, as the notice shows it."""
    try:
        if line.startswith("%noesis "):
            ip.run_line_magic("noesis", line.removeprefix("%noesis "))
        else:
            ip.run_cell("import noesis_nb\n" + line).raise_error()
    except UsageError as exc:
        pytest.fail(f"{line!r} failed: {exc}")


def test_an_ended_run_has_nothing_left_to_decide(ip: Any, runs_dir: Path, comm_log: list) -> None:
    ep = noesis_nb.solve("t", using=lambda task, ctx: "done", runs_dir=runs_dir)
    notice, _ = _shown(runs_dir / ep)
    said = without_kernel(notice)
    assert "ended ok" in said and "nothing is left to decide" in said, said
    assert not any(c.startswith("%noesis") for c in commands(notice)), notice
    [show] = commands(notice)
    _type(ip, show)


def test_a_paused_run_is_decided_and_resumed_as_the_notice_says(ip: Any, runs_dir: Path, comm_log: list) -> None:
    ep = noesis_nb.solve("t", using=_tool, runs_dir=runs_dir, approver="ask")
    notice, header = _shown(runs_dir / ep)
    said = without_kernel(notice)
    assert "paused on disk" in said and _badge(without_kernel(header)) == "paused", (said, header)
    approve = next(c for c in commands(notice) if c.startswith("%noesis approve"))
    assert next(c for c in commands(notice) if c.startswith("%noesis reject")).endswith("--resume")
    _type(ip, approve)
    assert is_sealed(runs_dir / ep) and DiskRun(runs_dir / ep).status == "ok"


def test_a_lost_run_is_settled_not_approved(ip: Any, runs_dir: Path, comm_log: list) -> None:
    lost_while_running(runs_dir, "ep_lost")
    notice, _ = _shown(runs_dir / "ep_lost")
    said = without_kernel(notice)
    assert "The run is lost" in said and "this kernel" not in said and "approve" not in said, said  # another process ran it
    [resume] = [c for c in commands(notice) if c.startswith("%noesis")]
    assert resume.startswith("%noesis resume ep_lost")
    _type(ip, resume)
    assert is_sealed(runs_dir / "ep_lost") and "process_lost" in (runs_dir / "ep_lost" / "summary.json").read_text()


def test_a_run_another_process_writes_goes_on(runs_dir: Path, comm_log: list) -> None:
    writer = start_writer(runs_dir, "ep_elsewhere")
    try:
        notice, header = _shown(runs_dir / "ep_elsewhere")
    finally:
        writer.send_signal(signal.SIGKILL)
        writer.wait()
    said = without_kernel(notice)
    assert "goes on in the process that writes it" in said and "approve" not in said, said
    assert _badge(without_kernel(header)) == "running", header


def test_this_kernels_running_episode_reads_lost_once_the_kernel_is_gone(runs_dir: Path, comm_log: list) -> None:
    async def main() -> tuple[str, str, str]:
        release = asyncio.Event()

        async def waits(task: str, ctx: Any) -> str:
            await release.wait()
            return "done"

        handle = noesis_nb.start("t", using=waits, runs_dir=runs_dir)
        view = EpisodeView(handle)
        while handle.status != "running" or "running" not in str(view.header.value):
            await asyncio.sleep(0.02)
            view.flush()
        running = (_notice(view), str(view.header.value), handle.episode_id)
        release.set()
        await handle.wait()
        view.flush()
        ended = without_kernel(_notice(view))
        assert "ended ok" in ended and _badge(without_kernel(str(view.header.value))) == "ok", ended
        view.close()
        return running

    notice, header, ep = asyncio.run(main())
    said = without_kernel(notice)
    assert "lost" in said and "approve" not in said, said
    assert any(c.startswith(f"%noesis resume {ep}") for c in commands(notice)), notice
    assert _badge(with_kernel(header)) == "running" and _badge(without_kernel(header)) == "lost", header


def _done(task: str) -> str:
    return "done"


def test_a_run_paused_on_a_veto_is_decided_in_a_view_given_its_adapter(ip: Any, runs_dir: Path, comm_log: list) -> None:
    """Resuming after a veto runs the adapter, which a new kernel has only if given it: ``%noesis resume`` alone
    could not do it."""
    ns.set(governance_pause_on_veto=True)
    ep = noesis_nb.solve("destroy the staging copy", using=_done, runs_dir=runs_dir, governance="enforce")
    notice, _ = _shown(runs_dir / ep)
    said = without_kernel(notice)
    assert "vetoed by governance" in said and "%noesis" not in said, said
    [show] = commands(notice)
    assert show.endswith(", using=<its adapter>)"), show
    ip.user_ns["_done"] = _done
    view = ip.run_cell("import noesis_nb\n" + show.replace("<its adapter>", "_done")).result
    try:
        noesis_nb.approve_draft(ep, runs_dir=runs_dir, approver_id="ana")  # what its Override button writes
        view.resume()  # its Resume button: outside a running loop, resume_run with the view's adapter
    finally:
        view.close()
    assert DiskRun(runs_dir / ep).status == "ok"


def test_a_replay_at_a_moment_the_run_was_paused_gives_no_command_to_decide_it(ip: Any, runs_dir: Path, comm_log: list) -> None:
    """A replay shows a moment of the run: at one where the run waited for a decision, the run itself has long
    been decided; its notice sends to the run, never to approve or resume it."""
    ep = noesis_nb.solve("t", using=_tool, runs_dir=runs_dir, approver="ask")
    noesis_nb.approve_draft(ep, runs_dir=runs_dir, approver_id="ana")
    noesis_nb.resume_run(ep, runs_dir=runs_dir)
    replay = noesis_nb.replay(runs_dir / ep)
    try:
        paused = next(k for k in range(1, replay.total + 1) if replay.seek(k).view.source.status == "paused")
        replay.seek(paused).view.flush()
        notice = _notice(replay.view)
    finally:
        replay.view.close()
    said = without_kernel(notice)
    assert "replay" in said and "%noesis" not in said, said
    [show] = commands(notice)
    _type(ip, show)
