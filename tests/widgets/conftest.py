from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import comm
import pytest
from comm.base_comm import BaseComm


class RecordingComm(BaseComm):
    log: list[tuple[str, str, int, Any]] = []  # (msg_type, comm_id, bytes, data)

    def publish_msg(self, msg_type: str, data: Any = None, metadata: Any = None, buffers: Any = None, **keys: Any) -> None:
        size = len(json.dumps({"data": data, "metadata": metadata or {}, **keys}, default=str))
        RecordingComm.log.append((msg_type, self.comm_id, size, data))


def install(monkeypatch: Any) -> list[tuple[str, str, int, Any]]:
    RecordingComm.log = []
    monkeypatch.setattr(comm, "create_comm", lambda *a, **k: RecordingComm(*a, **k))
    return RecordingComm.log


def value_updates(log: list[tuple[str, str, int, Any]], comm_ids: set[str] | None = None) -> int:
    """How many ``comm_msg`` updates carried an HTML ``value`` (optionally only for some widgets)."""
    return sum(
        1
        for t, cid, _, data in log
        if t == "comm_msg"
        and isinstance(data, dict)
        and "value" in (data.get("state") or {})
        and (comm_ids is None or cid in comm_ids)
    )


@pytest.fixture
def comm_log(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every comm message ipywidgets sends from now on: (msg_type, comm_id, bytes, data)."""
    return install(monkeypatch)


def side_effect_argv(path: Path) -> list[str]:
    """A subprocess tool whose every execution appends one 'x' to ``path``."""
    return [sys.executable, "-c", f"open({str(path)!r}, 'a').write('x')"]


def make_tool_adapter(argv: list[str], *, catch: bool = False):
    async def tool_agent(task: str, ctx: Any) -> Any:
        ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=120, output_tokens=30)
        try:
            return await ctx.tool_async("fs.append", {"argv": argv}, effect="write", risk="high")
        except Exception as exc:  # ToolRejected
            if catch:
                return f"rejected: {exc}"
            raise

    return tool_agent


async def until(predicate: Any, timeout: float = 10.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(0.01)


@pytest.fixture
def nnb() -> Any:
    """Helpers for tests: side_effect_argv, make_tool_adapter, until, value_updates."""
    from types import SimpleNamespace

    return SimpleNamespace(
        side_effect_argv=side_effect_argv, make_tool_adapter=make_tool_adapter, until=until, value_updates=value_updates
    )


@dataclass
class Listening:
    """A running episode whose agent says one ``reason`` step, then waits for ``release`` and returns the steers it
    heard (joined by `` / ``), and its live view (approver ``ana``) drawn once that step is in."""

    handle: Any
    view: Any
    release: asyncio.Event

    async def finish(self) -> str:
        """Let the agent return; its result once the episode has ended."""
        self.release.set()
        await self.handle.wait()
        result: str = self.handle.result()
        return result


@pytest.fixture
def listening(runs_dir: Path) -> Callable[[], Awaitable[Listening]]:
    """``await listening()`` inside the test's loop: a ``Listening`` episode started under ``runs_dir``."""

    async def start() -> Listening:
        import noesis_nb
        from noesis_nb.widgets import EpisodeView

        release = asyncio.Event()

        async def agent(task: str, ctx: Any) -> str:
            ctx.emit("reason", {"text": "listening"})
            await release.wait()
            return " / ".join(s.text for s in ctx.steers())

        handle = noesis_nb.start("listen", using=agent, runs_dir=runs_dir)
        view = EpisodeView(handle, approver_id="ana")
        await until(lambda: any(e["phase"] == "reason" for e in handle.events))
        view.flush()
        return Listening(handle, view, release)

    return start
