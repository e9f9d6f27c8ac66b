"""The kernel's interrupt (■) in the less common moments: twice in a row, the same cell run again at once,
during ``await`` on a batch, during ``resume_run`` while another process tries to decide or resume the run.

Each time: the cell ends on one line; every run it touched is sealed (or cleanly paused), whole, passes the
Noēsis checker, has no event written twice and no tool run twice, and is free for another process.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest

from tests.kernel import test_kernel_interrupt as base

pytestmark = pytest.mark.kernel

MORE = """
SLEPT = []

async def slow_cleanup(task, ctx):
    ctx.emit("reason", {"text": "working"})
    try:
        await asyncio.sleep(60)
    except asyncio.CancelledError:
        await asyncio.sleep(1.5)  # a cleanup that takes its time, during which a second ■ lands
        raise
    return "never"

async def stubborn(task, ctx):
    ctx.emit("reason", {"text": "stubborn"})
    while True:
        try:
            await asyncio.sleep(0.05)
        except asyncio.CancelledError:
            pass  # swallowed: it goes on

async def sleepy_first(task, ctx):
    SLEPT.append(task)
    ctx.emit("reason", {"text": f"run {len(SLEPT)}"})
    if len(SLEPT) == 1:
        await asyncio.sleep(60)
    return "fine"
"""


@pytest.fixture(scope="module", autouse=True)
def _setup(kernel: Any) -> None:
    kernel.setup(prelude=base.AGENTS + MORE)


def runs_in(runs: Path) -> list[Path]:
    return sorted(p for p in runs.iterdir() if p.is_dir() and p.name.startswith("ep_")) if runs.is_dir() else []


def test_a_second_interrupt_while_the_first_one_winds_up(kernel: Any, tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    msg_id = kernel.kc.execute(f"await noesis_nb.solve_async('cleanup', using=slow_cleanup, runs_dir={str(runs)!r})")
    kernel.wait(lambda: base.written(runs, "working"), 30, "the adapter to start")
    kernel.km.interrupt_kernel()
    kernel.pump(0.4)
    kernel.km.interrupt_kernel()  # while the adapter's cleanup (1.5 s) runs
    out = kernel.collect(msg_id, 30, "the twice-interrupted cell did not end")
    run_dir = base.the_run(runs)
    base.assert_one_line(out, run_dir.name, "stopped by the interrupt")
    base.assert_sealed_and_whole(run_dir)
    base.next_episode_ok(kernel, tmp_path / "after")


@pytest.mark.parametrize("wait", ["await noesis_nb.solve_async({task!r}, using=stubborn, runs_dir={runs!r})", "await h"])
def test_an_adapter_that_swallows_the_interrupt_is_stopped_and_its_run_sealed(kernel: Any, tmp_path: Path, wait: str) -> None:
    runs = tmp_path / "runs"
    if wait == "await h":
        kernel.run(f"h = noesis_nb.start('stubborn', using=stubborn, runs_dir={str(runs)!r})")
    out = base.interrupt(kernel, wait.format(task="stubborn", runs=str(runs)), lambda: base.written(runs, "stubborn"))
    run_dir = base.the_run(runs)
    base.assert_one_line(out, run_dir.name, "sealed cancelled")  # before: the cell never ended, or the run stayed open
    base.assert_sealed_and_whole(run_dir)
    base.next_episode_ok(kernel, tmp_path / "after")


def test_the_same_cell_run_again_at_once_after_an_interrupt(kernel: Any, tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    cell = f"await noesis_nb.solve_async('again', using=sleepy_first, runs_dir={str(runs)!r})"
    kernel.run("SLEPT.clear()")
    out = base.interrupt(kernel, cell, lambda: base.written(runs, "run 1"))
    first = base.the_run(runs)
    base.assert_one_line(out, first.name, "sealed cancelled")
    kernel.run(cell)  # at once: the first run's cleanup is over, nothing of it is in the way
    second = next(p for p in runs_in(runs) if p != first)
    base.assert_sealed_and_whole(first)
    base.assert_sealed_and_whole(second, "success")


def test_await_batch_interrupted_mid_flight(kernel: Any, tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    cell = f"""
        b = noesis_nb.batch(['t1', 't2', 't3', 't4'], using=sleepy, runs_dir={str(runs)!r}, concurrency=2, batch_id='mid')
        await b
    """
    out = base.interrupt(kernel, cell, lambda: sum(base.written_in(p, "sleeping") for p in runs_in(runs)) >= 2)
    assert out["raised"] is not None and out["raised"][0] == "BatchInterrupted", out
    assert len(out["traceback"]) <= 2 and "noesis_nb/" not in "\n".join(out["traceback"]), out["traceback"]
    assert "2 cancelled" in out["raised"][1] and "2 never started" in out["raised"][1], out["raised"]
    started = runs_in(runs)
    assert len(started) == 2, started
    for run_dir in started:
        base.assert_sealed_and_whole(run_dir)


def test_resume_run_interrupted_while_another_process_decides_and_resumes(kernel: Any, tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    run_dir = base._decided_slow_draft(runs)
    msg_id = kernel.kc.execute(f"await noesis_nb.resume_run_async({run_dir.name!r}, runs_dir={str(runs)!r})")
    kernel.wait(lambda: "tool.execution.started" in (run_dir / "events.jsonl").read_text(encoding="utf-8"), 30, "the tool")
    other = elsewhere(run_dir, "reject_draft")  # another process decides the other way, and resumes, meanwhile
    assert other["error"] is None and any("DecisionStands" in w for w in other["warnings"]), other
    busy = elsewhere(run_dir, "resume_run")
    assert busy["error"] is None and any("NothingToResume" in w for w in busy["warnings"]), busy
    kernel.km.interrupt_kernel()
    out = kernel.collect(msg_id, 30, "the interrupted resume did not end")
    base.assert_one_line(out, run_dir.name, "sealed cancelled")
    base.assert_sealed_and_whole(run_dir)
    names = [json.loads(line)["payload"].get("event_name") for line in base.lines(run_dir)]
    assert names.count("tool.execution.started") == 1, names


ELSEWHERE = """
import json, sys, warnings
import noesis_nb
with warnings.catch_warnings(record=True) as seen:
    warnings.simplefilter("always")
    try:
        if sys.argv[1] == "reject_draft":
            noesis_nb.reject_draft(sys.argv[2], runs_dir=sys.argv[3], approver_id="bo", reason="no")
        else:
            noesis_nb.resume_run(sys.argv[2], runs_dir=sys.argv[3])
        error = None
    except Exception as exc:
        error = f"{type(exc).__name__}: {exc}"
print(json.dumps({"warnings": [f"{w.category.__name__}: {w.message}" for w in seen], "error": error}))
"""


def elsewhere(run_dir: Path, call: str) -> dict[str, Any]:
    return base.python_elsewhere(textwrap.dedent(ELSEWHERE), call, run_dir.name, str(run_dir.parent))
