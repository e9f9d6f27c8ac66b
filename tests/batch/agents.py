"""Adapters of the batch tests (module-level, so workers and other processes import them by name)."""

from __future__ import annotations

import asyncio
import os
import sys
import time


async def echo(task, ctx):
    """Two model calls and an answer; a task starting with 'fail' raises."""
    ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=100, output_tokens=10)
    ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=120, output_tokens=12)
    if task.startswith("fail"):
        raise RuntimeError(f"cannot do {task}")
    return {"answer": task.upper(), "inputs": ctx.inputs, "pid": os.getpid()}


def shout(task, ctx):
    """A sync adapter (runs on a thread of its own)."""
    ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=50, output_tokens=5)
    if task.startswith("fail"):
        raise RuntimeError(f"cannot do {task}")
    return {"answer": task.upper() + "!"}


async def slow(task, ctx):
    await asyncio.sleep(float(ctx.inputs.get("sleep", 0.5)))
    return {"answer": task}


def sleeper(task, ctx):
    """I/O-bound like an LLM call: 50 ms by default."""
    time.sleep(float(ctx.inputs.get("sleep", 0.05)))
    return {"answer": task}


async def asks(task, ctx):
    """A task starting with 'approve' asks for a write that needs a human; the others just answer."""
    ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=100, output_tokens=10)
    if task.startswith("approve"):
        path = ctx.inputs["out"]
        code = "import sys; open(sys.argv[1], 'a').write(sys.argv[2] + '\\n')"
        out = await ctx.tool_async("fs.append", {"argv": [sys.executable, "-c", code, path, task]}, effect="write", risk="high")
        return {"answer": task, "returncode": out["returncode"]}
    return {"answer": task}


def exact(task, result):
    """A scorer: 1.0 when the answer is the task in capitals."""
    return 1.0 if result.get("answer") == task.upper() else 0.0


async def is_long(task, result):
    return len(task) > 6


async def mixed(task, ctx):
    """'approve…' asks for a write; 'slow…' takes 60 s unless $BATCH_TEST_FAST is set; the others answer at once."""
    if task.startswith("slow") and not os.environ.get("BATCH_TEST_FAST"):
        await asyncio.sleep(60)
    return await asks(task, ctx)


async def chatty(task, ctx):
    """Writes an event every 20 ms for ``inputs['sleep']`` seconds: its run changes between any two looks at it."""
    end = time.monotonic() + float(ctx.inputs.get("sleep", 1.0))
    while time.monotonic() < end:
        ctx.emit("note", {"text": "still working"})
        await asyncio.sleep(0.02)
    return {"answer": task}


async def gated(task, ctx):
    """Answers once the file ``inputs['gate']`` exists (looked for every 20 ms, for at most 60 s)."""
    gate = ctx.inputs["gate"]
    end = time.monotonic() + 60
    while not os.path.exists(gate) and time.monotonic() < end:
        await asyncio.sleep(0.02)
    return {"answer": task}


def kill_at_copy_manifest() -> None:
    """Make this process die (kill -9) as a local copy writes its manifest: every other file of the run is copied."""
    import signal

    import noesis_nb.batch.upload as upload

    write = upload.atomic_write_bytes  # how a local copy writes each of its files

    def atomic_write_bytes(path, data):
        if str(path).endswith("/manifest.json"):
            os.kill(os.getpid(), signal.SIGKILL)
        return write(path, data)

    upload.atomic_write_bytes = atomic_write_bytes
