"""Entry points that continue or rewrite a run after it was written: a process killed with SIGKILL mid-episode and
the run continued by ``resume_run`` from another process, the Noēsis lifecycle calls (``ns.interrupt``,
``checkpoint``, ``resume``), and a secret learned late and swept from earlier lines.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import noesis_nb
from tests.runtime.agents import make_writer

from .entrypoints import REPO, _runs, _second_process

# A value nothing marks as a secret where it first appears (prose); the adapter names it later.
LATE_SECRET = "staplecobaltwhisperquill"

_KILLED_AGENTS = """
import asyncio, sys
from pathlib import Path
import noesis_nb

runs, flag, scenario = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
hang = [sys.executable, "-c", "import sys, time; open(sys.argv[1], 'w').write('in tool'); time.sleep(60)", str(flag)]

async def working(task, ctx):
    ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=900, output_tokens=60)
    ctx.emit("reason", {"text": "thinking"})
    flag.write_text("working")
    await asyncio.sleep(60)

async def in_tool(task, ctx):
    ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=900, output_tokens=60)
    return await ctx.tool_async("fs.hang", {"argv": hang}, effect="write", risk="low")

async def waiting(task, ctx):
    return await ctx.tool_async("fs.list", {"argv": [sys.executable, "-c", "print(1)"]}, effect="write", risk="high")

async def asks_for_tool(task, ctx):
    return await ctx.tool_async("fs.hang", {"argv": hang}, effect="write", risk="high")

async def main():
    agent = {"working": working, "in_tool": in_tool, "waiting": waiting}[scenario]
    handle = noesis_nb.start(scenario, using=agent, runs_dir=runs, approver="ask")
    await handle
    flag.write_text(handle.status)
    await asyncio.sleep(60)

if scenario == "resuming":  # paused on disk, approved, and killed while resume_run runs the tool
    episode = noesis_nb.solve(scenario, using=asks_for_tool, runs_dir=runs, approver="ask")
    noesis_nb.approve_draft(episode, approver_id="ana", runs_dir=runs)
    noesis_nb.resume_run(episode, runs_dir=runs)
else:
    asyncio.run(main())
"""


def _killed(root: Path, scenario: str) -> Path:
    """Start an episode in a child process, SIGKILL it once it reached ``scenario``'s moment; the run it left."""
    runs, flag = root / "runs", root / "flag.txt"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    child = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(_KILLED_AGENTS), str(runs), str(flag), scenario],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,  # the tool's subprocess dies with it
    )
    try:
        deadline = time.monotonic() + 60
        while not flag.exists() and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert flag.exists(), f"the episode never reached {scenario!r}: {child.stderr.read() if child.stderr else ''}"
    finally:
        os.killpg(child.pid, signal.SIGKILL)
        child.wait(10)
        if child.stderr:
            child.stderr.close()
    (run,) = _runs(runs)
    return run


def killed_while_working(root: Path) -> list[Path]:
    """Killed while its adapter runs: another process seals it ``error`` (``process_lost``)."""
    run = _killed(root, "working")
    _second_process(f"noesis_nb.resume_run({str(run)!r})")
    return [run]


def killed_while_paused(root: Path) -> list[Path]:
    """Killed while paused live for an approval: another process decides and continues it."""
    run = _killed(root, "waiting")
    _second_process(f"noesis_nb.approve_draft({str(run)!r}, approver_id='ops')\nnoesis_nb.resume_run({str(run)!r})")
    return [run]


def killed_in_tool(root: Path) -> list[Path]:
    """Killed while a tool it called without a pause ran: another process seals it (the draft's outcome unknown)."""
    run = _killed(root, "in_tool")
    _second_process(f"noesis_nb.resume_run({str(run)!r})")
    return [run]


def killed_while_resuming(root: Path) -> list[Path]:
    """Killed while ``resume_run`` ran the approved tool: another process is told the outcome is unknown, and
    marks the draft failed."""
    run = _killed(root, "resuming")
    _second_process(
        "from noesis_nb.tools.errors import ToolOutcomeUnknownError\n"
        f"try:\n    noesis_nb.resume_run({str(run)!r})\nexcept ToolOutcomeUnknownError:\n"
        f"    noesis_nb.resume_run({str(run)!r}, unknown_outcome='fail')\n"
        f"else:\n    raise AssertionError('the unknown outcome was not reported')"
    )
    return [run]


def lifecycle_calls(root: Path) -> list[Path]:
    """The Noēsis lifecycle calls from other processes: on a run whose process was killed while it worked (then
    sealed by ``resume_run`` as a lost process), and on a run paused for approval (a second checkpoint refused, its
    own resumed, decided, continued: the approved tool runs and the run ends a success)."""
    lost = _killed(root / "lost", "working")
    ns = f"from noesis_nb import ns\nns.set(runs_dir={str(lost.parent)!r})\n"
    _second_process(
        f"{ns}ns.interrupt({lost.name!r}, reason='operator check')\n"
        f"ns.resume({lost.name!r}, checkpoint_id=ns.checkpoint({lost.name!r})['checkpoint_id'])"
    )
    _second_process(f"noesis_nb.resume_run({str(lost)!r})")
    assert json.loads((lost / "final.json").read_bytes())["outcome"] == "error"  # nothing could continue it
    runs, out = root / "paused" / "runs", root / "out.txt"
    paused = runs / noesis_nb.solve("Write a note", using=make_writer(out), runs_dir=runs, approver="ask")
    ns = f"from noesis_nb import ns\nns.set(runs_dir={str(runs)!r})\n"
    _second_process(
        f"{ns}from noesis_nb.errors import RunLifecycleTransitionError\n"
        f"try:\n    ns.checkpoint({paused.name!r})\nexcept RunLifecycleTransitionError:\n    pass\n"
        "else:\n    raise SystemExit('a paused run was checkpointed again')\n"
        f"chk = [e for e in ns.events.read({paused.name!r}) if e.get('event_type') == 'run.checkpoint'][-1]\n"
        f"ns.resume({paused.name!r}, checkpoint_id=chk['payload']['checkpoint_id'])"
    )
    _second_process(f"noesis_nb.approve_draft({str(paused)!r}, approver_id='ops')\nnoesis_nb.resume_run({str(paused)!r})")
    assert json.loads((paused / "final.json").read_bytes())["outcome"] == "success"
    assert out.read_text() == "Write a note\n"  # the approved tool ran, once
    return [lost, paused]


# -- secrets learned late ---------------------------------------------------------------------------
def _late_sealed(task: str, ctx: Any) -> dict[str, str]:
    ctx.emit("reason", {"text": f"remember {LATE_SECRET} for later"})
    return {"password": LATE_SECRET}


def _late_paused(task: str, ctx: Any) -> Any:
    ctx.emit("reason", {"text": f"will use {LATE_SECRET}"})
    argv = [sys.executable, "-c", "print('ok')"]
    return ctx.tool("shell.echo", {"argv": argv, "env": {"APP_PASSWORD": LATE_SECRET}}, effect="write", risk="high")


def _assert_swept(run: Path) -> None:
    """The sweep ran: the value is in no file of the run, and the earlier line holds ``[REDACTED]`` instead."""
    holding = [p.name for p in run.rglob("*") if p.is_file() and LATE_SECRET[:8].encode() in p.read_bytes()]
    assert not holding, f"{run.name}: the late secret is still in {holding}"
    assert b"[REDACTED]" in (run / "events.jsonl").read_bytes()


def secret_swept(root: Path) -> list[Path]:
    """One run swept at its seal, one swept at its pause (judged as paused, and after another process resumed it)."""
    runs = root / "runs"
    sealed = runs / noesis_nb.solve("late", using=_late_sealed, runs_dir=runs)
    paused = runs / noesis_nb.solve("late pause", using=_late_paused, runs_dir=runs)
    assert not (paused / "final.json").exists(), "the run did not pause"
    _assert_swept(paused)
    as_paused = root / "as-paused" / paused.name  # judged as the pause left it, too
    shutil.copytree(paused, as_paused)
    _second_process(
        f"noesis_nb.approve_draft({str(paused)!r}, approver_id='bob')\nnoesis_nb.resume_run({str(paused)!r})",
        env={"APP_PASSWORD": LATE_SECRET},
    )
    for run in (sealed, paused):
        _assert_swept(run)
    return [*_runs(runs), as_paused]


ENTRY_POINTS = {
    "killed-while-working": killed_while_working,
    "killed-while-paused": killed_while_paused,
    "killed-in-tool": killed_in_tool,
    "killed-while-resuming": killed_while_resuming,
    "lifecycle-calls": lifecycle_calls,
    "secret-swept": secret_swept,
}
