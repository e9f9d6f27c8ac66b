"""Real episodes of varied shapes, written by noesis_nb's engine, for the hardening tests.

Each ``make_*`` runs one episode under ``root`` with ``noesis_nb.solve`` and scripted adapters
(the LLM is the only thing scripted) and returns its episode id. ``n`` varies names, so a new
episode can bring new categories (models, providers, phases, tools, tags) into a frame.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import noesis_nb


def add_one(x: int) -> int:
    return x + 1


def _llm(models: list[tuple[str, str]]) -> Callable[[str, Any], str]:
    def llm(task: str, ctx: Any) -> str:
        for i, (provider, model) in enumerate(models):
            ctx.model_call(
                model,
                provider=provider,
                input_tokens=1000 * (i + 1),
                output_tokens=50 + i,
                cached_input_tokens=100 * i,
                cache_write_input_tokens=None if i % 2 else 10,
                latency_ms=12.5,
            )
        return "answered"

    return llm


def make_llm(root: Path, n: int) -> str:
    """Model calls, one of a model and provider never seen before."""
    models = [("openai", "gpt-4o"), (f"vendor{n}", f"model-{n}"), ("anthropic", "claude-sonnet-4-5")]
    return noesis_nb.solve(f"ask {n}", using=_llm(models[: 1 + n % 3]), runs_dir=root)


def make_tagged(root: Path, n: int) -> str:
    """New tag keys (new ``tags_*`` columns in runs_df) and a value of another type."""
    return noesis_nb.solve(
        f"tagged {n}",
        using=_llm([("openai", "gpt-4o-mini")]),
        runs_dir=root,
        tags={f"key{n}": n, "team": f"team-{n % 2}", "flag": bool(n % 2)},
    )


def make_phases(root: Path, n: int) -> str:
    """Events of phases, statuses, tools and models the frames have not seen yet."""

    def adapter(task: str, ctx: Any) -> str:
        ctx.emit("reason", {"text": f"thinking {n}", "status": f"state-{n}"})
        ctx.emit(f"x-phase-{n}", {"tool": f"probe.{n}", "model": f"oracle-{n}", "draft_id": f"d{n}"})
        return "done"

    return noesis_nb.solve(f"phases {n}", using=adapter, runs_dir=root)


def make_tool(root: Path, n: int) -> str:
    """A python tool approved automatically and executed."""

    def adapter(task: str, ctx: Any) -> Any:
        return ctx.tool(f"calc.add{n % 3}", {"kwargs": {"x": n}}, protocol="python", fn=add_one, effect="write", risk="high")

    return noesis_nb.solve(f"tool {n}", using=adapter, runs_dir=root, approver="auto")


def make_command(root: Path, n: int) -> str:
    """A subprocess tool (Noēsis' own protocol), approved automatically and run."""

    def adapter(task: str, ctx: Any) -> Any:
        return ctx.tool(f"sh.echo{n % 2}", {"argv": [sys.executable, "-c", f"print({n})"]}, effect="write", risk="high")

    return noesis_nb.solve(f"command {n}", using=adapter, runs_dir=root, approver="auto")


def make_paused(root: Path, n: int) -> str:
    """A run waiting for a human: a pending draft, no summary."""

    def adapter(task: str, ctx: Any) -> Any:
        ctx.model_call("gpt-4o", provider="openai", input_tokens=10, output_tokens=1)
        return ctx.tool("fs.write@1", {"kwargs": {"x": n}}, protocol="python", fn=add_one, effect="write", risk="high")

    return noesis_nb.solve(f"paused {n}", using=adapter, runs_dir=root, approver="ask")


def make_integration(root: Path, n: int) -> str:
    """A run tagged as an integration's, with an event whose payload names another system."""
    systems = ["agui", "langgraph", "noeta", "crewai"]

    def adapter(task: str, ctx: Any) -> str:
        ctx.emit(
            "model",
            {
                "event_name": "model.call",
                "model": f"int-model-{n}",
                "provider": "acme",
                "input_tokens": 5,
                "output_tokens": 1,
                "source": systems[(n + 1) % 4],
            },
        )
        return "ok"

    return noesis_nb.solve(f"integration {n}", using=adapter, runs_dir=root, tags={"source": systems[n % 4]})


def make_failing(root: Path, n: int) -> str:
    def adapter(task: str, ctx: Any) -> str:
        ctx.model_call(f"broken-{n}", provider="nowhere", input_tokens=3, output_tokens=None)
        raise RuntimeError(f"adapter {n} failed")

    return noesis_nb.solve(f"fail {n}", using=adapter, runs_dir=root)


def tool_records(run: Path, kind: str) -> list[Path]:
    """A run's tool records of one kind (``prepared`` drafts may also sit in an extension folder, e.g. for python tools)."""
    return sorted(run.glob(f"tool_invocations/{kind}/*.json")) + sorted(run.glob(f"tool_invocations/*/{kind}/*.json"))


def resume_paused(root: Path, n: int, *, approve: bool = True) -> str | None:
    """Decide and resume the oldest paused run under ``root`` (events appended to an existing run); None if there is none."""
    from noesis_nb.frames import runs_df

    runs = runs_df(root, cache=False)
    paused = runs[runs["status"] == "paused"]
    if paused.empty:
        return None
    episode = str(paused["episode_id"].iloc[0])
    if approve:
        noesis_nb.approve_draft(episode, approver_id="ops", reason=f"ok {n}", runs_dir=root)
    else:
        noesis_nb.reject_draft(episode, approver_id="ops", reason=f"no {n}", runs_dir=root)
    noesis_nb.resume_run(episode, runs_dir=root)
    return episode


SHAPES: dict[str, Callable[[Path, int], Any]] = {
    "llm": make_llm,
    "tagged": make_tagged,
    "phases": make_phases,
    "tool": make_tool,
    "command": make_command,
    "paused": make_paused,
    "integration": make_integration,
    "failing": make_failing,
    "resume": resume_paused,
    "reject": lambda root, n: resume_paused(root, n, approve=False),
}
