"""A real IPython kernel driven with jupyter_client: run cells, read widget comms, click like a frontend."""

from __future__ import annotations

import json
import os
import queue
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]

SETUP = """
import asyncio, sys
from pathlib import Path
RUNS = Path({runs!r})
MARK = Path({mark!r})

def effect_argv(name):
    return [sys.executable, "-c", f"open({{str(MARK / name)!r}}, 'a').write('x')"]

async def tool_agent(task, ctx):
    ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=100, output_tokens=20)
    return await ctx.tool_async("fs.append", {{"argv": effect_argv(task.split()[-1])}}, effect="write", risk="high")

async def slow_agent(task, ctx):
    ctx.emit("reason", {{"text": "thinking"}})
    await asyncio.sleep(60)
    return "never"
"""


class Kernel:
    """One kernel; every iopub message is kept, so widgets opened by background tasks are found."""

    def __init__(self, tmp: Path):
        from jupyter_client.manager import start_new_kernel

        self.tmp = tmp
        self.runs = tmp / "runs"
        self.mark = tmp / "marks"
        self.mark.mkdir(parents=True, exist_ok=True)
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep))
        env.pop("NOESIS_RUNS_DIR", None)
        self.km, self.kc = start_new_kernel(kernel_name="python3", startup_timeout=60, cwd=str(tmp), env=env)
        self.messages: list[dict[str, Any]] = []

    # -- cells -----------------------------------------------------------------------------------
    def setup(self, prelude: str = "") -> None:
        self.run(prelude + SETUP.format(runs=str(self.runs), mark=str(self.mark)) + "\n%load_ext noesis_nb\nimport noesis_nb\n")

    def run(self, code: str, timeout: float = 60) -> dict[str, Any]:
        """Execute a cell; return its stdout, display outputs and error (raises on error unless asked not to)."""
        msg_id = self.kc.execute(textwrap.dedent(code))
        out = self.collect(msg_id, timeout, f"cell did not finish in {timeout} s:\n{code}")
        if out["error"]:
            raise AssertionError(f"cell failed: {out['error']}\n{code}")
        return out

    def collect(self, msg_id: str, timeout: float, late: str) -> dict[str, Any]:
        """What cell ``msg_id`` printed, displayed and raised, once it is idle and replied (``TimeoutError(late)`` if not).

        ``error`` is ``"Name: value"``; ``raised`` is ``(name, value)`` and ``traceback`` the lines the front end shows.
        """
        out: dict[str, Any] = {"stdout": "", "outputs": [], "error": None, "raised": None, "traceback": []}
        deadline = time.monotonic() + timeout
        while True:
            msg = self._next(deadline)
            if msg is None:
                raise TimeoutError(late)
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            kind, content = msg["msg_type"], msg["content"]
            if kind == "stream":
                out["stdout"] += content["text"]
            elif kind in ("display_data", "execute_result", "update_display_data"):
                out["outputs"].append(content)
            elif kind == "error":
                out["error"] = f"{content['ename']}: {content['evalue']}"
                out["raised"], out["traceback"] = (content["ename"], content["evalue"]), content["traceback"]
            elif kind == "status" and content["execution_state"] == "idle":
                break
        reply = self.kc.get_shell_msg(timeout=timeout)
        while reply["parent_header"].get("msg_id") != msg_id:
            reply = self.kc.get_shell_msg(timeout=timeout)
        return out

    def value(self, expression: str) -> Any:
        return json.loads(self.run(f"import json as _j; print(_j.dumps({expression}))")["stdout"].strip().splitlines()[-1])

    # -- iopub -------------------------------------------------------------------------------------
    def _next(self, deadline: float) -> dict[str, Any] | None:
        while True:
            try:
                msg = self.kc.get_iopub_msg(timeout=max(0.01, min(0.2, deadline - time.monotonic())))
            except queue.Empty:
                if time.monotonic() > deadline:
                    return None
                continue
            self.messages.append(msg)
            return msg

    def pump(self, seconds: float = 0.1) -> None:
        deadline = time.monotonic() + seconds
        while self._next(deadline) is not None:
            pass

    def wait(self, predicate: Callable[[], Any], timeout: float = 30, what: str = "condition") -> Any:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = predicate()
            if value:
                return value
            self.pump(0.1)
        raise AssertionError(f"timed out after {timeout} s waiting for {what}")

    def widgets(self, model: str = "ButtonModel") -> dict[str, dict[str, Any]]:
        """comm_id -> latest state of every widget of that model opened so far."""
        states: dict[str, dict[str, Any]] = {}
        for msg in self.messages:
            content = msg["content"]
            if msg["msg_type"] == "comm_open" and content.get("target_name") == "jupyter.widget":
                state = content["data"]["state"]
                if state.get("_model_name") == model:
                    states[content["comm_id"]] = dict(state)
            elif msg["msg_type"] == "comm_msg" and content.get("comm_id") in states:
                data = content["data"]
                if data.get("method") == "update":
                    states[content["comm_id"]].update(data.get("state") or {})
        return states

    def button(self, description: str, contains: str = "", timeout: float = 30) -> str:
        """The comm id of the newest button with that description (and ``contains`` in its tooltip)."""

        def find() -> str | None:
            ids = [
                cid
                for cid, s in self.widgets().items()
                if s.get("description") == description and contains in (s.get("tooltip") or "")
            ]
            return ids[-1] if ids else None

        return self.wait(find, timeout, f"a {description!r} button {contains!r}")

    def click(self, comm_id: str) -> None:
        """Exactly what a frontend sends when a Button is clicked."""
        msg = self.kc.session.msg("comm_msg", {"comm_id": comm_id, "data": {"method": "custom", "content": {"event": "click"}}})
        self.kc.shell_channel.send(msg)

    def restart(self) -> None:
        self.km.restart_kernel(now=True)
        self.messages.clear()  # widgets of the old process are gone
        self.kc.wait_for_ready(timeout=60)
        self.pump(0.5)

    def stop(self) -> None:
        self.kc.stop_channels()
        self.km.shutdown_kernel(now=True)


@pytest.fixture(scope="module")
def kernel(tmp_path_factory: pytest.TempPathFactory) -> Any:
    k = Kernel(tmp_path_factory.mktemp("kernel"))
    try:
        yield k
    finally:
        k.stop()


def run_names(run_dir: Path) -> list[str]:
    sys.path.insert(0, str(ROOT))
    from noesis_nb.store import read_events

    return [
        str((e.get("payload") or {}).get("event_name") or e.get("phase"))
        for e in read_events(run_dir / "events.jsonl", strict=False)
    ]


def decisions(run_dir: Path) -> list[dict[str, Any]]:
    folder = run_dir / "tool_invocations" / "approvals"
    return [json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))] if folder.is_dir() else []


@pytest.fixture
def disk() -> Any:
    from types import SimpleNamespace

    return SimpleNamespace(names=run_names, decisions=decisions)


@pytest.fixture(scope="module")
def kernel_class() -> type[Kernel]:
    """``Kernel`` itself, for tests that start more than one."""
    return Kernel
