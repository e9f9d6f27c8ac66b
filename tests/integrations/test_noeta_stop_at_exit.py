"""A Noeta task stopped by the end of a script is stopped whole: the interpreter's exit waits for its client's shutdown.

An episode cancelled (``asyncio.run`` cancels what is left when its coroutine returns) stopped its Noeta task on a
daemon thread: the interrupt, and the client's shutdown (its background shells killed, its trace sink flushed) on
another. The exit killed them midway: the Noeta trace spans the client held never reached its collector. A real
``noeta.sdk.Client`` with ``FakeLLMProvider``, a real background shell and a real collector on 127.0.0.1.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import noesis_nb

from ..otlp_collector import Collector

pytest.importorskip("noeta.sdk")

_SCRIPT = """
import asyncio, sys
from pathlib import Path
import noesis_nb
from noeta.sdk import Client, HostConfig, LLMResponse, Options, OtlpTraceConfig, ToolResult, ToolUseBlock, Usage, tool
from noeta.sdk.testing import FakeLLMProvider
from noesis_nb.integrations.noeta import NoetaAdapter

marker, runs_dir, workspace, traces = sys.argv[1:5]

@tool(name="delete_file", version="1", risk_level="high",
      input_schema={"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]})
def delete_file(arguments, ctx):
    return ToolResult(success=True, output="deleted")

# a background job that takes a while to end once asked (SIGTERM): the client's shutdown waits for it
job = (f"exec -a {marker} python3 -c 'import signal, sys, time; "
       "signal.signal(signal.SIGTERM, lambda *a: (time.sleep(1.5), sys.exit(0))); time.sleep(120)'")
provider = FakeLLMProvider(responses=[
    LLMResponse(stop_reason="tool_use", usage=Usage(uncached=10, output=3), content=[
        ToolUseBlock(call_id="b1", tool_name="Bash",
                     arguments={"command": job, "run_in_background": True, "description": "a job"})]),
    LLMResponse(stop_reason="tool_use", usage=Usage(uncached=10, output=3), content=[
        ToolUseBlock(call_id="d1", tool_name="delete_file", arguments={"path": "x"})]),
])
options = Options(system_prompt="x", name="stop", allowed_tools=(delete_file, "Bash"), permission_mode="default")

def client():
    return Client(options, provider=provider, model="claude-sonnet-5", multi_turn=False, workspace_dir=Path(workspace),
                  host_config=HostConfig(otlp_traces=OtlpTraceConfig(endpoint=traces)))

async def main():
    approver = lambda pending: True if pending.tool == "noeta.Bash" else None  # delete_file waits for a human
    handle = noesis_nb.start("go", using=NoetaAdapter(client_factory=client), runs_dir=runs_dir, approver=approver)
    await handle  # returns once it waits for the human; the script ends, asyncio.run cancels the episode
    print(handle.status, [p.tool for p in handle.pending], flush=True)

asyncio.run(main())
"""


def _kill_left(marker: str) -> None:
    """Kill a background job of this test that outlived its script, if any."""
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and marker.encode() in (entry / "cmdline").read_bytes():
                os.kill(int(entry.name), signal.SIGKILL)
        except OSError:
            pass


def test_the_end_of_a_script_waits_for_a_stopped_noeta_clients_shutdown(
    tmp_path: Path, runs_dir: Path, otlp_collector: Collector
) -> None:
    script, workspace = tmp_path / "script.py", tmp_path / "workspace"
    script.write_text(_SCRIPT)
    workspace.mkdir()
    marker = f"noeta-stop-job-{os.getpid()}-{time.monotonic_ns()}"
    root = str(Path(noesis_nb.__file__).resolve().parent.parent)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}
    args = [marker, str(runs_dir), str(workspace), f"{otlp_collector.url}/v1/traces"]
    started = time.monotonic()
    try:
        done = subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True, env=env, timeout=120)
    finally:
        _kill_left(marker)
    took = time.monotonic() - started
    assert done.returncode == 0, done.stderr
    assert "paused" in done.stdout and "noeta.delete_file" in done.stdout, done.stdout + done.stderr
    # the client's trace sink was flushed by its shutdown, which the exit waited for
    bodies = [json.loads(request.body) for request in otlp_collector.requests]
    spans = [s for body in bodies for rs in body["resourceSpans"] for ss in rs["scopeSpans"] for s in ss["spans"]]
    assert spans, done.stderr
    assert took < 60  # bounded: the exit waits for the stop at most STOP_WAIT_S
