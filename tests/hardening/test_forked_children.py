"""A child forked by a tool or adapter (``os.fork``, a ``multiprocessing`` 'fork' pool) never writes its parent's run.

The child inherits the open ``events.jsonl``, the recorder's counts and digest, the episode's context
(capture's scope) and the run's lock. Its explicit calls (``ctx.emit``, ``ctx.model_call``,
``ctx.tool``, ``handle.approve``) raise one error naming the episode, both pids and the fix; an SDK
call it makes is outside any episode (nothing recorded, the SDK's answer unchanged); it neither
frees the parent's lock nor keeps it once the parent died. Each parent run is then checked as
Noēsis would (``tests/compat/checker``), with its manifest re-hashed. Real forks throughout: the
child reports through a pipe and leaves with ``os._exit``.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import signal
import socket
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.errors import EpisodeStateError, ForkedChildError
from noesis_nb.runtime.api import RunRecovered
from noesis_nb.store import read_events, verify_manifest
from noesis_nb.store.ownership import RunBusyError, acquire, holder

from ..compat.checker import check_run

pytestmark = [
    pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork is POSIX only"),
    pytest.mark.timeout(120),
]

CHILD_MARK = "from-the-forked-child"


def _in_child(work: Any) -> dict[str, Any]:
    """Run ``work()`` in a forked child (killed after 20 s: a hang is a failure too); its JSON report, or why none came."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report, then leave without running anything of the parent's (os._exit)
        code = 0
        try:
            os.close(read)
            signal.alarm(20)
            report = work()
            os.write(write, json.dumps(report).encode())
        except BaseException as exc:
            code = 1
            os.write(write, json.dumps({"child_crashed": f"{type(exc).__name__}: {exc}"}).encode())
        finally:
            os._exit(code)
    os.close(write)
    chunks = []
    while chunk := os.read(read, 1 << 16):
        chunks.append(chunk)
    os.close(read)
    _, status = os.waitpid(pid, 0)
    data = b"".join(chunks)
    return {"pid": pid, "status": status, **(json.loads(data) if data else {"no_report": "the child was killed or hung"})}


def _attempt(call: Any) -> dict[str, Any]:
    """What one call in the child did: its result, or the error it raised (type and message)."""
    try:
        return {"returned": repr(call())}
    except Exception as exc:
        return {"raised": type(exc).__name__, "message": str(exc), "forked": isinstance(exc, ForkedChildError)}


def _refused_here(report: dict[str, Any], episode_id: str, child_pid: int) -> None:
    """The child's call raised the one clear error: episode, owning pid, this pid, and the fix."""
    assert report.get("forked") is True, report
    message = report["message"]
    assert episode_id in message and str(os.getpid()) in message and str(child_pid) in message, message
    assert "'spawn'" in message and "return the value to the parent" in message.lower(), message


def _check_parent_run(run_dir: Path, *, model_calls: int | None = None) -> list[dict[str, Any]]:
    """The run passes Noēsis' rules, its manifest matches every file, and no line of the child is in it."""
    assert (run_dir / "manifest.json").exists()
    assert check_run(run_dir) == []
    check = verify_manifest(run_dir)
    assert check.status == "ok", check
    events = read_events(run_dir / "events.jsonl")
    text = (run_dir / "events.jsonl").read_text()
    assert CHILD_MARK not in text
    summary = json.loads((run_dir / "summary.json").read_text())
    if model_calls is not None:
        assert sum(e["phase"] == "model" for e in events) == model_calls
        assert summary["x-noesis_nb"]["usage"]["model_calls"] == model_calls
    ids = [e["id"] for e in events]
    assert len(ids) == len(set(ids))
    return events


# -- os.fork in a sync adapter: ctx.emit, ctx.model_call, ctx.tool ----------------------------------------
def test_a_child_forked_by_a_sync_adapter_gets_one_clear_error_for_each_write_and_the_run_stays_whole(runs_dir):
    seen: dict[str, Any] = {}

    def agent(task, ctx):
        ctx.emit("reason", {"text": "before the fork"})

        def child() -> dict[str, Any]:
            return {
                "emit": _attempt(lambda: ctx.emit("reason", {"text": CHILD_MARK})),
                "model_call": _attempt(lambda: ctx.model_call(CHILD_MARK, provider="openai", input_tokens=1, output_tokens=1)),
                "tool": _attempt(lambda: ctx.tool("local.echo", {"args": [CHILD_MARK]}, fn=lambda text: text)),
                "steers": _attempt(lambda: ctx.steers()),
            }

        seen.update(_in_child(child))
        ctx.emit("reason", {"text": "after the fork"})
        return ctx.tool("local.echo", {"args": ["parent"]}, fn=lambda text: text)

    episode_id = noesis_nb.solve("fork in a sync adapter", using=agent, runs_dir=runs_dir)
    assert "no_report" not in seen and "child_crashed" not in seen, seen
    for name in ("emit", "model_call", "tool", "steers"):
        _refused_here(seen[name], episode_id, seen["pid"])
    events = _check_parent_run(runs_dir / episode_id, model_calls=0)
    assert [e["payload"]["text"] for e in events if e["phase"] == "reason"] == ["before the fork", "after the fork"]


# -- a multiprocessing 'fork' pool started by an async adapter ----------------------------------------------
_POOL_CTX: Any = None  # the episode's context, inherited by the pool's forked workers


def _pool_worker(_: int) -> dict[str, Any]:
    ctx = _POOL_CTX
    return {
        "pid": os.getpid(),
        "emit": _attempt(lambda: ctx.emit("reason", {"text": CHILD_MARK})),
        "model_call": _attempt(lambda: ctx.model_call(CHILD_MARK, input_tokens=3, output_tokens=4)),
        "tool": _attempt(lambda: asyncio.run(ctx.tool_async("local.echo", {"args": [CHILD_MARK]}, fn=str))),
    }


def _pool_emit_uncaught(_: int) -> str:
    return _POOL_CTX.emit("reason", {"text": CHILD_MARK})  # the error travels back to the parent through the pool


def test_a_fork_pool_worker_is_refused_and_its_error_reaches_the_parent_as_the_same_error(runs_dir):
    global _POOL_CTX
    seen: dict[str, Any] = {}

    async def agent(task, ctx):
        global _POOL_CTX
        _POOL_CTX = ctx
        ctx.emit("reason", {"text": "before the pool"})
        with multiprocessing.get_context("fork").Pool(2) as pool:
            seen["reports"] = pool.map(_pool_worker, range(2))
            try:
                pool.apply(_pool_emit_uncaught, (0,))
            except Exception as exc:
                seen["uncaught"] = exc
        ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=10, output_tokens=2)
        return "done"

    try:
        episode_id = noesis_nb.solve("fork pool", using=agent, runs_dir=runs_dir)
    finally:
        _POOL_CTX = None
    for report in seen["reports"]:
        for name in ("emit", "model_call", "tool"):
            _refused_here(report[name], episode_id, report["pid"])
    uncaught = seen["uncaught"]
    assert isinstance(uncaught, ForkedChildError) and isinstance(uncaught, EpisodeStateError)
    assert uncaught.episode_id == episode_id and uncaught.owner_pid == os.getpid() and uncaught.pid != os.getpid()
    _check_parent_run(runs_dir / episode_id, model_calls=1)


# -- a captured SDK call in a child ------------------------------------------------------------------------
@pytest.fixture(scope="module")
def stub():
    pytest.importorskip("openai")
    from ..capture.provider_stub import ProviderStub

    server = ProviderStub()
    yield server
    server.close()


def _chat(url: str, marker: str, input_tokens: int = 321) -> dict[str, Any]:
    import openai

    client = openai.OpenAI(base_url=url, api_key="sk-test", max_retries=0)
    usage = {"input": input_tokens, "cached": 0, "output": 12, "reasoning": 0}
    reply = client.chat.completions.create(
        model="gpt-4o-mini", messages=[{"role": "user", "content": marker}], extra_body={"stub_usage": usage}
    )
    return {
        "type": type(reply).__qualname__,
        "model": reply.model,
        "usage": reply.usage.model_dump(),
        "text": reply.choices[0].message.content,
    }


def _chat_fails(url: str) -> dict[str, Any]:
    import openai

    client = openai.OpenAI(base_url=url, api_key="sk-test", max_retries=0)
    try:
        client.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "x"}])
    except Exception as exc:
        return {"raised": type(exc).__qualname__, "status": getattr(exc, "status_code", None)}
    return {"raised": None}


def _stub_pool_worker(url: str) -> dict[str, Any]:
    return _chat(url, CHILD_MARK)


def _own_episode_worker(url: str, runs_dir: str) -> str:
    """A forked worker may run an episode of its own: that run is the child's, and its calls are captured there."""
    return noesis_nb.solve("the child's own episode", using=lambda task, ctx: _chat(url, "own", 777), runs_dir=runs_dir)


@pytest.fixture
def nowhere() -> Iterator[str]:
    """A loopback URL nothing answers on for the whole test: its port bound and never listening (a connection is
    refused), so no other process can start a server on it meanwhile, as it could on a port only picked and let go."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/v1"


def test_captured_sdk_calls_in_forked_children_record_nothing_and_return_what_the_sdk_returns(stub, runs_dir, nowhere):
    outside = {"ok": _chat(stub.openai_url, CHILD_MARK), "fails": _chat_fails(nowhere)}  # outside any episode
    assert outside["fails"]["raised"] == "APIConnectionError"
    seen: dict[str, Any] = {}

    def agent(task, ctx):
        _chat(stub.openai_url, "the parent's call", input_tokens=555)  # captured: the run's one model call
        seen["fork"] = _in_child(lambda: {"ok": _chat(stub.openai_url, CHILD_MARK), "fails": _chat_fails(nowhere)})
        with multiprocessing.get_context("fork").Pool(1) as pool:
            seen["pool"] = pool.apply(_stub_pool_worker, (stub.openai_url,))
            seen["own"] = pool.apply(_own_episode_worker, (stub.openai_url, str(runs_dir)))
        return "done"

    episode_id = noesis_nb.solve("capture in children", using=agent, runs_dir=runs_dir)
    assert seen["fork"]["ok"] == outside["ok"] and seen["fork"]["fails"] == outside["fails"], seen
    assert seen["pool"] == outside["ok"]
    events = _check_parent_run(runs_dir / episode_id, model_calls=1)
    (call,) = [e["payload"] for e in events if e["phase"] == "model"]
    assert call["input_tokens"] == 555  # the parent's call, not one of the children's (321)
    own = _check_parent_run(runs_dir / seen["own"], model_calls=1)  # the child's own run: whole, its call captured
    assert [e["payload"]["input_tokens"] for e in own if e["phase"] == "model"] == [777]


# -- a child that goes on as if it were the episode --------------------------------------------------------
def test_a_child_that_returns_from_the_adapter_neither_seals_the_run_nor_frees_its_lock(runs_dir):
    parent = os.getpid()
    read, write = os.pipe()
    seen: dict[str, Any] = {}

    async def agent(task, ctx):
        ctx.emit("reason", {"text": "before the fork"})
        pid = os.fork()
        if pid == 0:  # the child forgets os._exit: it returns into the episode's code, which it does not own
            signal.alarm(20)
            return CHILD_MARK
        os.close(write)
        _, seen["status"] = os.waitpid(pid, 0)
        chunks = []
        while chunk := os.read(read, 1 << 16):
            chunks.append(chunk)
        os.close(read)
        seen["child"] = json.loads(b"".join(chunks) or b"{}")
        seen["child_pid"] = pid
        try:  # the parent still holds its run
            acquire(ctx.run_dir, note=False).release()
            seen["lock"] = "taken by another"
        except RunBusyError:
            seen["lock"] = "held"
        seen["sealed_meanwhile"] = [n for n in ("final.json", "manifest.json", "summary.json") if (ctx.run_dir / n).exists()]
        ctx.emit("reason", {"text": "after the child ended"})
        return "the parent's answer"

    try:
        outcome: dict[str, Any] = {"returned": noesis_nb.solve("a child that returns", using=agent, runs_dir=runs_dir)}
    except BaseException as exc:
        outcome = {"raised": type(exc).__name__, "message": str(exc)}
    if os.getpid() != parent:
        os.write(write, json.dumps(outcome).encode())
        os._exit(0)
    assert "raised" not in outcome, outcome
    episode_id = outcome["returned"]
    assert seen["lock"] == "held" and seen["sealed_meanwhile"] == [], seen
    assert seen["child"].get("raised") == "ForkedChildError", seen
    assert str(seen["child_pid"]) in seen["child"]["message"] and str(parent) in seen["child"]["message"]
    events = _check_parent_run(runs_dir / episode_id)
    assert [e["payload"]["text"] for e in events if e["phase"] == "reason"] == ["before the fork", "after the child ended"]
    summary = json.loads((runs_dir / episode_id / "summary.json").read_text())
    assert summary["status"] == "ok" and "the parent's answer" in json.dumps(summary)


# -- deciding a draft from a forked child ----------------------------------------------------------------------
def test_handle_approve_in_a_forked_child_is_refused_and_the_parent_decides(runs_dir):
    async def agent(task, ctx):
        return await ctx.tool_async("local.echo", {"args": ["approved"]}, fn=str, effect="write", risk="high")

    async def main() -> tuple[str, dict[str, Any]]:
        handle = noesis_nb.start("approve from a child", using=agent, runs_dir=runs_dir)
        await handle  # returns at the pause
        assert handle.status == "paused" and len(handle.pending) == 1
        child = _in_child(
            lambda: {
                "approve": _attempt(lambda: handle.approve(approver_id="child")),
                "cancel": _attempt(lambda: handle.cancel()),
            }
        )
        assert len(handle.pending) == 1  # still waiting for the parent's decision
        handle.approve(approver_id="parent")
        await handle
        return handle.episode_id, child

    episode_id, child = asyncio.run(main())
    _refused_here(child["approve"], episode_id, child["pid"])
    _refused_here(child["cancel"], episode_id, child["pid"])
    run_dir = runs_dir / episode_id
    _check_parent_run(run_dir)
    records = [p.read_text() for p in (run_dir / "tool_invocations").rglob("*.json")]
    assert any('"parent"' in r for r in records) and not any('"child"' in r for r in records)


# -- a child outliving the run's owner ----------------------------------------------------------------------
_OWNER_DIES = """
import os, signal, sys, time
import noesis_nb

def agent(task, ctx):
    ctx.emit("reason", {"text": "before the fork"})
    pid = os.fork()
    if pid == 0:  # a worker that lives on (a pool's, a daemon's): it holds nothing of the run
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1), os.dup2(null, 2)  # the test reads the parent's output to its end
        time.sleep(60)
        os._exit(0)
    print(pid, ctx.episode_id, flush=True)
    os.kill(os.getpid(), signal.SIGKILL)  # the run's owner dies mid-episode

noesis_nb.solve("the owner dies", using=agent, runs_dir=sys.argv[1])
"""


def test_a_forked_child_that_outlives_the_runs_owner_does_not_keep_the_run_locked(runs_dir):
    import subprocess

    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(p for p in (str(Path(noesis_nb.__file__).parents[1]), os.environ.get("PYTHONPATH")) if p),
    }
    done = subprocess.run([sys.executable, "-c", _OWNER_DIES, str(runs_dir)], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == -signal.SIGKILL, done.stderr
    child, episode_id = done.stdout.split()
    try:
        os.kill(int(child), 0)  # the child still lives
        run_dir = runs_dir / episode_id
        assert holder(run_dir) is None  # its owner died: nobody holds the run, whatever the child inherited
        acquire(run_dir, note=False).release()  # so it can be recovered now, not when the child ends
        with pytest.warns(RunRecovered, match="lost its process"):  # recovered as any run whose process died
            assert noesis_nb.resume_run(episode_id, runs_dir=runs_dir) == episode_id
        _check_parent_run(run_dir)
    finally:
        os.kill(int(child), signal.SIGKILL)
