"""A writer process for the readers-vs-writers race: short episodes of every shape into one runs root.

Run as a script: ``python livewriter.py <root> <seconds>``. Until ``seconds`` have passed it runs,
round after round: model calls, a python tool and a subprocess tool approved by policy, a run paused
for a human then approved and continued with ``resume_run`` from disk, a failing adapter, a run copied in
line by line as a writer that appends each line in two parts would write it, and (every third
round) a ``batch``. Adapters pause a few milliseconds between events, so a reader in another
process finds runs in every state: just created, appending, paused, being resumed, being sealed.
It prints one line per finished episode (``<episode id> <how it ended>``) and ``done`` at the end.
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

import noesis_nb  # noqa: E402

PAUSE = 0.002


def add_one(x: int) -> int:
    return x + 1


def chatty(task: str, ctx: Any) -> str:
    for i in range(6):
        ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=100 + i, output_tokens=10 + i, cached_input_tokens=50)
        ctx.emit("reason", {"text": f"step {i}"})
        time.sleep(PAUSE)
    return "answered"


def python_tool(task: str, ctx: Any) -> Any:
    ctx.model_call("gpt-4o", provider="openai", input_tokens=300, output_tokens=20)
    time.sleep(PAUSE)
    out = ctx.tool("calc.add", {"kwargs": {"x": 1}}, protocol="python", fn=add_one, effect="write", risk="high")
    ctx.emit("note", {"text": f"got {out}"})
    return out


def command_tool(task: str, ctx: Any) -> Any:
    ctx.model_call("claude-sonnet-4-5", provider="anthropic", input_tokens=500, output_tokens=40)
    out = ctx.tool("sh.echo", {"argv": [sys.executable, "-c", "print(1)"]}, effect="write", risk="high")
    time.sleep(PAUSE)
    return out["returncode"]


def asks_a_human(task: str, ctx: Any) -> Any:
    ctx.model_call("gpt-4o", provider="openai", input_tokens=200, output_tokens=5)
    return ctx.tool("fs.write", {"kwargs": {"x": 2}}, protocol="python", fn=add_one, effect="write", risk="high")


def failing(task: str, ctx: Any) -> str:
    ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=30, output_tokens=3)
    time.sleep(PAUSE)
    raise RuntimeError("the adapter failed on purpose")


async def batch_agent(task: str, ctx: Any) -> str:
    for i in range(3):
        ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=70 + i, output_tokens=7)
        await asyncio.sleep(PAUSE)
    out = await ctx.tool_async("calc.add", {"kwargs": {"x": 3}}, protocol="python", fn=add_one, effect="write", risk="high")
    return str(out)


async def run_batch(root: Path, n: int) -> list[tuple[str, str | None]]:
    handle = noesis_nb.batch(
        [f"batch task {n}.{i}" for i in range(4)],
        using=batch_agent,
        batch_id=f"b{n}",
        runs_dir=root,
        approver="auto",
        concurrency=2,
    )
    await handle
    return [(e.status, e.episode_id) for e in handle.entries]


def copy_slowly(run: Path, root: Path) -> str:
    """Write ``run`` again under ``root`` the way another Noēsis writer could: each event line in two
    ``write`` calls a moment apart (a buffered file flushing a long line), then its documents, each
    renamed into place, the manifest last. Readers meet its last line cut in half while it is live."""
    target = root / run.name
    target.mkdir()
    with open(target / "events.jsonl", "ab", buffering=0) as log:
        for line in (run / "events.jsonl").read_bytes().splitlines(keepends=True):
            log.write(line[: len(line) // 2])
            time.sleep(0.0005)
            log.write(line[len(line) // 2 :])
    for source in sorted(run.rglob("*")):
        name = source.relative_to(run).as_posix()
        if source.is_dir() or name in ("events.jsonl", "summary.json", "final.json", "manifest.json"):
            continue
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        temp = (target / name).with_name(f".{source.name}.tmp")  # renamed into place, as the docstring says: a
        temp.write_bytes(source.read_bytes())  # state.json written in place was read empty now and then
        temp.rename(target / name)
    for name in ("summary.json", "final.json", "manifest.json"):
        (target / f".{name}.tmp").write_bytes((run / name).read_bytes())
        (target / f".{name}.tmp").rename(target / name)
    return run.name


def one_round(root: Path, n: int) -> None:
    for name, adapter, approver in (
        ("chatty", chatty, "auto"),
        ("python", python_tool, "auto"),
        ("command", command_tool, "auto"),
        ("failing", failing, "auto"),
    ):
        episode = noesis_nb.solve(f"{name} {n}", using=adapter, runs_dir=root, approver=approver)
        print(episode, name, flush=True)
    scratch = root.parent / "scratch"
    print(copy_slowly(scratch / noesis_nb.solve(f"copied {n}", using=chatty, runs_dir=scratch), root), "copied", flush=True)
    paused = noesis_nb.solve(f"paused {n}", using=asks_a_human, runs_dir=root, approver="ask")
    time.sleep(0.05)  # readers see it waiting
    noesis_nb.approve_draft(paused, approver_id="ops", reason=f"round {n}", runs_dir=root)
    noesis_nb.resume_run(paused, runs_dir=root)
    print(paused, "resumed", flush=True)
    if n % 3 == 0:
        for status, episode in asyncio.run(run_batch(root, n)):
            print(episode, f"batch {status}", flush=True)


def main(root: Path, seconds: float) -> None:
    end = time.monotonic() + seconds
    n = 0
    while n == 0 or time.monotonic() < end:
        one_round(root, n)
        n += 1
    print("done", flush=True)


if __name__ == "__main__":
    main(Path(sys.argv[1]), float(sys.argv[2]))
