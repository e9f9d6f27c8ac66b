"""The kernel's interrupt (■, SIGINT) while a cell runs or awaits an episode.

After each interrupt: the kernel runs the next episode to ``ok``; the interrupted run is sealed
``cancelled`` (or, paused for a human, stays paused and is decided later); its log has whole,
unique lines and passes the Noēsis checker; its lock is free for another process; a worker
thread left running gets a clear error instead of writing into the sealed run; the cell shows
one line, not a traceback through noesis_nb.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from noesis_nb.store import is_sealed, read_final, verify_manifest
from tests.compat.checker import check_run

pytestmark = pytest.mark.kernel

ROOT = Path(__file__).resolve().parents[2]

# The tool these tests interrupt: a process that is still running when the runtime handles ■. It ignores
# SIGINT because jupyter_client's interrupt reaches the kernel's whole process group, the tool's process
# with it; one that dies of it first is recorded ``tool.execution.failed`` and its episode still ends
# ``cancelled`` (tests/hardening/test_races_interrupted_tool.py), another case.
SLEEPS_THROUGH_SIGINT = "import signal, time; signal.signal(signal.SIGINT, signal.SIG_IGN); time.sleep(30)"

AGENTS = (
    f"SLEEPS_THROUGH_SIGINT = {SLEEPS_THROUGH_SIGINT!r}\n"
    + """
import threading, time
LATE = []  # what a worker thread left running was told when it wrote after the seal

async def sleepy(task, ctx):
    ctx.emit("reason", {"text": "sleeping"})
    await asyncio.sleep(60)
    return "woke"

def sync_sleepy(task, ctx):
    try:
        for i in range(300):
            ctx.emit("reason", {"text": f"tick {i}"})
            time.sleep(0.05)
    except Exception as exc:
        LATE.append(f"{type(exc).__name__}: {exc}")
        raise
    return "done"

async def tool_sleeper(task, ctx):
    ctx.emit("reason", {"text": "calling"})
    argv = [sys.executable, "-c", SLEEPS_THROUGH_SIGINT]
    return await ctx.tool_async("fs.append", {"argv": argv}, effect="write", risk="low")

async def quick(task, ctx):
    ctx.emit("reason", {"text": "quick"})
    return "fine"
"""
)


@pytest.fixture(scope="module", autouse=True)
def _setup(kernel: Any) -> None:
    kernel.setup(prelude=AGENTS)


def interrupt(kernel: Any, code: str, ready: Any = None, timeout: float = 30) -> dict[str, Any]:
    """Run ``code``; once ``ready()`` is true (else half a second into the cell) press ■; return the cell's
    error (name, value, traceback) and stdout."""
    msg_id = kernel.kc.execute(textwrap.dedent(code))
    kernel.wait(lambda: any(m["parent_header"].get("msg_id") == msg_id for m in kernel.messages), timeout, "the cell to start")
    if ready is None:
        kernel.pump(0.5)
    else:
        kernel.wait(ready, timeout, "the cell to get going")
    kernel.km.interrupt_kernel()
    try:
        return dict(kernel.collect(msg_id, timeout, f"the interrupted cell did not end in {timeout} s:\n{code}"))
    except TimeoutError as exc:
        raise AssertionError(str(exc)) from None


def lines(run_dir: Path) -> list[str]:
    return (run_dir / "events.jsonl").read_text(encoding="utf-8").splitlines()


def written(runs: Path, text: str) -> bool:
    """Whether the one run under ``runs`` has an event line containing ``text`` yet."""
    logs = list(runs.glob("*/events.jsonl"))
    return bool(logs) and text in logs[0].read_text(encoding="utf-8")


def written_in(run_dir: Path, text: str) -> bool:
    """Whether the run in ``run_dir`` has an event line containing ``text`` yet."""
    log = run_dir / "events.jsonl"
    return log.is_file() and text in log.read_text(encoding="utf-8")


def the_run(runs: Path) -> Path:
    found = [p for p in runs.iterdir() if p.is_dir()] if runs.is_dir() else []
    assert len(found) == 1, f"one run expected under {runs}, found {found}"
    return found[0]


RESUME = """
import json, sys, warnings
import noesis_nb
with warnings.catch_warnings(record=True) as seen:
    warnings.simplefilter("always")
    try:
        noesis_nb.resume_run(sys.argv[1], runs_dir=sys.argv[2])
        error = None
    except Exception as exc:
        error = f"{type(exc).__name__}: {exc}"
print(json.dumps({"warnings": [f"{w.category.__name__}: {w.message}" for w in seen], "error": error}))
"""


def resume_elsewhere(run_dir: Path) -> dict[str, Any]:
    """``resume_run`` from another process: what it said."""
    return python_elsewhere(RESUME, run_dir.name, str(run_dir.parent))


def python_elsewhere(code: str, *args: str) -> dict[str, Any]:
    """``code`` run by another Python process with ``args``: the JSON object its last line prints."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep))
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=60, env=env, check=True)
    said: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return said


def assert_one_line(out: dict[str, Any], *words: str) -> None:
    """The cell ended on ``EpisodeInterrupted``, shown as one line (and the cell's own line), no noesis_nb frames."""
    assert out["raised"] is not None, "the interrupted cell raised nothing"
    name, value = out["raised"]
    shown = "\n".join(out["traceback"])
    assert name == "EpisodeInterrupted", shown
    assert "noesis_nb/" not in shown and "site-packages" not in shown, shown
    assert len(out["traceback"]) <= 2, shown
    for word in words:
        assert word in value, value


def assert_sealed_and_whole(run_dir: Path, status: str = "cancelled") -> None:
    """Sealed ``status`` already (a resume_run from another process finds it free and changes nothing);
    every line whole and written once; the checker and the manifest agree."""
    assert is_sealed(run_dir)
    said = resume_elsewhere(run_dir)
    assert said["error"] is None and any("already sealed" in w for w in said["warnings"]), said
    final = read_final(run_dir) or {}
    assert final.get("outcome") == status, final
    raw = lines(run_dir)
    events = [json.loads(line) for line in raw]  # no torn line
    ids = [e["id"] for e in events]
    assert len(ids) == len(set(ids)), "an event written twice"
    assert check_run(run_dir) == []
    assert verify_manifest(run_dir).status == "ok"
    assert not (run_dir / ".owner.lock").exists()


def next_episode_ok(kernel: Any, runs: Path) -> None:
    out = kernel.run(f"ep = await noesis_nb.solve_async('after', using=quick, runs_dir={str(runs)!r})\nprint(ep)")
    episode = out["stdout"].strip().splitlines()[-1]
    assert (read_final(runs / episode) or {}).get("outcome") == "success"


def test_solve_async_with_an_async_agent(kernel: Any, tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    out = interrupt(
        kernel,
        f"await noesis_nb.solve_async('sleep', using=sleepy, runs_dir={str(runs)!r})",
        lambda: written(runs, "sleeping"),
    )
    run_dir = the_run(runs)
    assert_one_line(out, run_dir.name, "cancelled")
    assert_sealed_and_whole(run_dir)
    next_episode_ok(kernel, tmp_path / "after")


@pytest.mark.parametrize("call", ["await noesis_nb.solve_async", "noesis_nb.solve"])
def test_a_sync_agent_in_its_thread(kernel: Any, tmp_path: Path, call: str) -> None:
    """Awaited or blocking: the cell ends at once, the run sealed; the worker thread is told, and writes nothing more."""
    runs = tmp_path / "runs"
    out = interrupt(
        kernel,
        f"{call}('tick', using=sync_sleepy, runs_dir={str(runs)!r})",
        lambda: written(runs, "tick 3"),
    )
    run_dir = the_run(runs)
    assert_one_line(out, run_dir.name, "cancelled")
    assert is_sealed(run_dir)
    before = lines(run_dir)
    late = kernel.wait(lambda: kernel.value("LATE"), 10, "the worker thread to be told")
    assert late[-1].startswith("EpisodeStateError") and run_dir.name in late[-1], late
    time.sleep(0.3)
    assert lines(run_dir) == before  # the thread wrote nothing after the seal
    assert_sealed_and_whole(run_dir)
    kernel.run("LATE.clear()")
    next_episode_ok(kernel, tmp_path / "after")


def test_await_handle_of_a_running_episode(kernel: Any, tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    kernel.run(f"h = noesis_nb.start('sleep', using=sleepy, runs_dir={str(runs)!r})")
    out = interrupt(kernel, "await h", lambda: written(runs, "sleeping"))
    run_dir = the_run(runs)
    assert_one_line(out, run_dir.name, "cancelled")
    assert kernel.value("h.status") == "cancelled"
    assert_sealed_and_whole(run_dir)
    next_episode_ok(kernel, tmp_path / "after")


def test_wait_on_an_episode_paused_for_approval(kernel: Any, tmp_path: Path, disk: Any) -> None:
    runs = tmp_path / "runs"
    kernel.run(f"h = noesis_nb.start('paused p1', using=tool_agent, approver='ask', runs_dir={str(runs)!r})")
    run_dir = the_run(runs)
    kernel.wait(lambda: "tool.approval.pending" in disk.names(run_dir), what="the pause on disk")
    out = interrupt(kernel, "await h.wait()")
    assert_one_line(out, run_dir.name, "paused")
    assert kernel.value("h.status") == "paused"  # nothing ran to stop: the pause stays, on disk and live
    said = resume_elsewhere(run_dir)  # the live episode still owns its run, and says it picks a decision up
    assert any("being written by" in w for w in said["warnings"]) and not is_sealed(run_dir), said
    kernel.run("h.approve(approver_id='ana')\nawait h.wait()")
    assert kernel.value("h.status") == "ok"
    assert (kernel.mark / "p1").read_text() == "x"
    assert_sealed_and_whole(run_dir, "success")
    next_episode_ok(kernel, tmp_path / "after")


def test_interrupt_while_a_tool_runs(kernel: Any, tmp_path: Path, disk: Any) -> None:
    runs = tmp_path / "runs"
    out = interrupt(
        kernel,
        f"await noesis_nb.solve_async('tool', using=tool_sleeper, runs_dir={str(runs)!r})",
        lambda: written(runs, "tool.execution.started"),
    )
    run_dir = the_run(runs)
    assert_one_line(out, run_dir.name, "cancelled")
    names = disk.names(run_dir)
    # the tool was cut off: its effects are unknown, and the run says so before it ends
    assert names[names.index("tool.execution.started") + 1] == "tool.execution.outcome_unknown"
    time.sleep(0.5)  # the tool's thread, if any, has nothing to add to the sealed run
    assert_sealed_and_whole(run_dir)
    next_episode_ok(kernel, tmp_path / "after")


async def _asks_slow(task: str, ctx: Any) -> Any:
    argv = [sys.executable, "-c", SLEEPS_THROUGH_SIGINT]
    return await ctx.tool_async("fs.append", {"argv": argv}, effect="write", risk="high")


def _decided_slow_draft(runs: Path) -> Path:
    """A run paused on disk on an approved draft whose tool takes 30 s (made here, resumed in the kernel)."""
    import noesis_nb
    from noesis_nb.runtime.resume import paused_on

    episode = noesis_nb.solve("slow", using=_asks_slow, runs_dir=runs)
    waiting = paused_on(runs / episode)
    assert waiting is not None
    noesis_nb.approve_draft(episode, waiting[1], approver_id="ana", runs_dir=runs)
    return runs / episode


@pytest.mark.parametrize(
    "cell",
    ["%noesis resume {episode} --runs-dir {runs}", "await noesis_nb.resume_run_async({episode!r}, runs_dir={runs!r})"],
    ids=["magic", "awaited"],
)
def test_resume_interrupted_while_its_tool_runs(kernel: Any, tmp_path: Path, cell: str) -> None:
    runs = tmp_path / "runs"
    run_dir = _decided_slow_draft(runs)
    out = interrupt(
        kernel,
        cell.format(episode=run_dir.name, runs=str(runs)),
        lambda: "tool.execution.started" in (run_dir / "events.jsonl").read_text(encoding="utf-8"),
    )
    assert_one_line(out, run_dir.name, "stopped by the interrupt", "sealed cancelled", "outcome is unknown")
    assert_sealed_and_whole(run_dir)  # as solve's run is: sealed at once, the cut-off tool never run again
    names = [json.loads(line)["payload"].get("event_name") for line in lines(run_dir)]
    assert names.count("tool.execution.started") == 1 and names.count("tool.execution.outcome_unknown") == 1, names
    next_episode_ok(kernel, tmp_path / "after")
