"""Runs written through every public entry point of noesis_nb, each into its own runs directory.

``ENTRY_POINTS[name](root)`` writes one or more runs under ``root`` and returns their directories.
Decisions come from code, as a notebook user's clicks would (the handle's approve/reject, the
``approver`` policies, ``approve_draft``/``reject_draft`` in a second process).
"""

from __future__ import annotations

import asyncio
import os
import runpy
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import noesis_nb
from noesis_nb.errors import NoesisVeto
from tests.runtime.agents import append_line, make_writer

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "integrations"
Builder = Callable[[Path], list[Path]]


def plain_agent(task: str) -> str:
    """A plain adapter (importable, so ``resume_run(using="tests.compat.entrypoints:plain_agent")`` finds it)."""
    return f"done: {task}"


def failing_agent(task: str) -> str:
    raise RuntimeError("the agent broke")


async def python_tool_agent(task: str, ctx: Any) -> str:
    out = Path(ctx.run_dir).parent.parent / "python-tool.txt"
    return await ctx.tool_async(
        "notes.append", {"args": [str(out), task]}, protocol="python", fn=append_line, effect="write", risk="high"
    )


async def sleeper(task: str) -> str:
    await asyncio.sleep(30)
    return "woke"


def _runs(runs_dir: Path) -> list[Path]:
    return sorted(p for p in runs_dir.iterdir() if p.is_dir() and (p / "events.jsonl").is_file()) if runs_dir.is_dir() else []


def _second_process(code: str, env: dict[str, str] | None = None) -> None:
    """Run ``code`` in a fresh interpreter importing this checkout (the kernel that paused the run is gone),
    with ``env`` added to this process' environment."""
    env = dict(os.environ, **(env or {}), PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run(
        [sys.executable, "-c", f"import noesis_nb\n{code}"], capture_output=True, text=True, timeout=120, env=env
    )
    assert proc.returncode == 0, proc.stderr


# -- solve and start ----------------------------------------------------------------------------
def solve_plain(root: Path) -> list[Path]:
    noesis_nb.solve("Summarise the release notes", using=plain_agent, runs_dir=root / "runs")
    return _runs(root / "runs")


def solve_error(root: Path) -> list[Path]:
    noesis_nb.solve("Break on purpose", using=failing_agent, runs_dir=root / "runs")
    return _runs(root / "runs")


def solve_tool_auto(root: Path) -> list[Path]:
    noesis_nb.solve("Write a note", using=make_writer(root / "out.txt"), runs_dir=root / "runs", approver="auto")
    return _runs(root / "runs")


def solve_python_tool(root: Path) -> list[Path]:
    noesis_nb.solve("Append a line", using=python_tool_agent, runs_dir=root / "runs", approver="auto")
    return _runs(root / "runs")


def approver_deny(root: Path) -> list[Path]:
    noesis_nb.solve(
        "Write a note", using=make_writer(root / "out.txt", handle_rejection=True), runs_dir=root / "runs", approver="deny"
    )
    return _runs(root / "runs")


def _live(root: Path, decide: str, **opts: Any) -> list[Path]:
    async def main() -> None:
        handle = noesis_nb.start(opts.pop("task", "Write a note"), runs_dir=root / "runs", approver="ask", **opts)
        await handle  # returns at the pause
        assert handle.status == "paused", handle.status
        if decide == "approve":
            handle.approve(approver_id="ana", reason="fine")
        else:
            handle.reject(reason="not now", approver_id="ana")
        await handle.wait()

    asyncio.run(main())
    return _runs(root / "runs")


def start_approve(root: Path) -> list[Path]:
    return _live(root, "approve", using=make_writer(root / "out.txt"))


def start_reject(root: Path) -> list[Path]:
    return _live(root, "reject", using=make_writer(root / "out.txt", handle_rejection=True))


def veto_enforce(root: Path) -> list[Path]:
    try:
        noesis_nb.solve("Wipe the staging database", using=plain_agent, runs_dir=root / "runs", governance="enforce")
    except NoesisVeto:
        pass
    return _runs(root / "runs")


def veto_audit(root: Path) -> list[Path]:
    noesis_nb.solve("Wipe the staging database", using=plain_agent, runs_dir=root / "runs", governance="audit")
    return _runs(root / "runs")


def pause_on_veto_override(root: Path) -> list[Path]:
    return _live(root, "approve", task="Wipe the staging database", using=plain_agent, governance="enforce", pause_on_veto=True)


def pause_on_veto_uphold(root: Path) -> list[Path]:
    return _live(root, "reject", task="Wipe the staging database", using=plain_agent, governance="enforce", pause_on_veto=True)


def idle_timeout(root: Path) -> list[Path]:
    noesis_nb.solve("Wait forever", using=sleeper, runs_dir=root / "runs", idle_timeout_s=0.3)
    return _runs(root / "runs")


def cancel(root: Path) -> list[Path]:
    async def main() -> None:
        handle = noesis_nb.start("Wait forever", using=sleeper, runs_dir=root / "runs")
        await asyncio.sleep(0.2)
        handle.cancel()
        await handle.wait()

    asyncio.run(main())
    return _runs(root / "runs")


async def steered_worker(task: str, ctx: Any) -> str:
    """Takes one steer, then works (one tool call) until stopped."""
    heard = await ctx.next_steer_async(timeout=10)
    ctx.emit("reason", {"text": f"heard: {heard}"})
    await ctx.tool_async("fs.list", {"argv": [sys.executable, "-c", "print('a')"]})
    await asyncio.sleep(30)
    return "never"


def steer_then_drain(root: Path) -> list[Path]:
    async def main() -> None:
        handle = noesis_nb.start("Listen, then stop", using=steered_worker, runs_dir=root / "runs")
        await asyncio.sleep(0.05)
        handle.steer("use staging")
        await asyncio.sleep(0.3)
        await handle.stop(drain_s=1)

    asyncio.run(main())
    return _runs(root / "runs")


# -- paused on disk, decided and resumed elsewhere ------------------------------------------------
def paused_on_disk(root: Path) -> list[Path]:
    noesis_nb.solve("Write a note", using=make_writer(root / "out.txt"), runs_dir=root / "runs", approver="ask")
    return _runs(root / "runs")


def _resumed_elsewhere(root: Path, decision: str, agent: Any, *, resume_using: str | None = None, **opts: Any) -> list[Path]:
    runs = root / "runs"
    ep = noesis_nb.solve(opts.pop("task", "Write a note"), using=agent, runs_dir=runs, approver="ask", **opts)
    decide = (
        f"noesis_nb.approve_draft({ep!r}, approver_id='ops', runs_dir={str(runs)!r})"
        if decision == "approve"
        else f"noesis_nb.reject_draft({ep!r}, reason='no', approver_id='ops', runs_dir={str(runs)!r})"
    )
    _second_process(f"{decide}\nnoesis_nb.resume_run({ep!r}, runs_dir={str(runs)!r}, using={resume_using!r})")
    return _runs(runs)


def second_process_approve(root: Path) -> list[Path]:
    return _resumed_elsewhere(root, "approve", make_writer(root / "out.txt"))


def second_process_reject(root: Path) -> list[Path]:
    return _resumed_elsewhere(root, "reject", make_writer(root / "out.txt", handle_rejection=True))


def second_process_python_tool(root: Path) -> list[Path]:
    return _resumed_elsewhere(root, "approve", python_tool_agent, task="Append a line")


def second_process_veto_override(root: Path) -> list[Path]:
    agent = "tests.compat.entrypoints:plain_agent"  # the same label when the run starts and when it resumes
    return _resumed_elsewhere(
        root, "approve", agent, task="Wipe the staging database", governance="enforce", pause_on_veto=True, resume_using=agent
    )


# -- the Noēsis facade, the demo, the integrations --------------------------------------------------
def ns_facade(root: Path) -> list[Path]:
    noesis_nb.ns.set(runs_dir=str(root / "runs"))
    noesis_nb.ns.solve("Summarise the release notes", using=plain_agent)
    noesis_nb.ns.run("Tidy the backlog")
    return _runs(root / "runs")


def demo(root: Path) -> list[Path]:
    from noesis_nb.demo import main

    main(["--runs-dir", str(root / "runs")])
    return _runs(root / "runs")


def example(script: str, *modules: str) -> Builder:
    """Run ``examples/integrations/<script>`` as its README says (it writes into ./runs)."""

    def build(root: Path) -> list[Path]:
        import pytest

        for module in modules:
            pytest.importorskip(module)
        cwd = Path.cwd()
        os.chdir(root)
        try:
            runpy.run_path(str(EXAMPLES / script), run_name="__main__")
        finally:
            os.chdir(cwd)
        return _runs(root / "runs")

    return build


def notebook(name: str) -> Builder:
    """Execute ``notebooks/<name>`` top to bottom (approvals by the ``auto`` policy, as the tests run the tours),
    with ``RUNS_DIR`` set the way papermill sets a parameter: a cell right after the ``parameters`` cell."""

    def build(root: Path) -> list[Path]:
        import nbformat
        from nbclient import NotebookClient

        path = REPO / "notebooks" / name
        nb = nbformat.read(path, as_version=4)
        at = next(i for i, c in enumerate(nb.cells) if "parameters" in c.get("metadata", {}).get("tags", []))
        nb.cells.insert(at + 1, nbformat.v4.new_code_cell(f"RUNS_DIR = {str(root / 'runs')!r}"))
        env = dict(
            os.environ,
            NOESIS_NB_APPROVER="auto",
            NOESIS_NB_PRINCIPAL="user:notebook",
            PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
        )
        client = NotebookClient(
            nb, timeout=240, kernel_name="python3", resources={"metadata": {"path": str(root)}}, store_widget_state=False
        )
        client.execute(env=env)
        return _runs(root / "runs")

    return build


def batch_scored(root: Path) -> list[Path]:
    """A batch of two adapters, scored, its paused drafts approved and rejected through the API."""

    async def main() -> None:
        writer = make_writer(root / "out.txt", handle_rejection=True)
        handle = noesis_nb.batch(
            ["note a", "note b"], using={"writer": writer, "plain": plain_agent}, root=root / "runs", score=lambda t, r: 0.5
        )
        await handle
        (first, _), (second, _) = handle.pending()
        noesis_nb.approve_draft(first.run_dir, approver_id="ana")
        noesis_nb.reject_draft(second.run_dir, reason="not now")
        await handle.wait()
        assert handle.counts() == {"ok": 4} and {e.score for e in handle.entries} == {0.5}, handle.counts()

    asyncio.run(main())
    return _runs(root / "runs")


ENTRY_POINTS: dict[str, Builder] = {
    "solve": solve_plain,
    "solve-adapter-error": solve_error,
    "solve-tool-approver-auto": solve_tool_auto,
    "solve-python-tool": solve_python_tool,
    "approver-deny": approver_deny,
    "start-approve": start_approve,
    "start-reject": start_reject,
    "veto-enforce": veto_enforce,
    "veto-audit": veto_audit,
    "pause-on-veto-override": pause_on_veto_override,
    "pause-on-veto-uphold": pause_on_veto_uphold,
    "paused-on-disk": paused_on_disk,
    "second-process-approve": second_process_approve,
    "second-process-reject": second_process_reject,
    "second-process-python-tool": second_process_python_tool,
    "second-process-veto-override": second_process_veto_override,
    "idle-timeout": idle_timeout,
    "cancel": cancel,
    "steer-then-drain": steer_then_drain,
    "batch-scored": batch_scored,
    "ns-facade": ns_facade,
    "demo": demo,
    "agui-in-process": example("agui_inprocess.py", "ag_ui"),
    "agui-http": example("agui_http.py", "ag_ui", "httpx"),
    "noeta": example("noeta_fake_provider.py", "noeta"),
    "langgraph": example("langgraph_interrupt.py", "langgraph"),
    "crewai": example("crewai_scripted.py", "crewai"),
    "recorded-noetic-and-taisce": example("recorded_traces.py"),
    "notebook-quickstart": notebook("quickstart.ipynb"),
    "notebook-analysis": notebook("analysis.ipynb"),
    "notebook-governance-and-resume": notebook("governance-and-resume.ipynb"),
    "notebook-integrations": notebook("integrations.ipynb"),
    "notebook-steer-and-replay": notebook("steer-and-replay.ipynb"),
    "notebook-real-models": notebook("real-models.ipynb"),
    "notebook-batches": notebook("batches.ipynb"),
}
