"""An approval an agent asked for reaches only the request of its own run.

The key a waiting request is found by held the process id and a count starting at 1 in each process: a later
process with the same pid (each kernel is pid 1 of its container after a restart, as here with a pid namespace of
its own) waiting on its own first request had the key an old, left run's draft carried, so approving that old run
answered the new request: the new run's tool ran on an approval nobody gave it. Now the key holds the run's id.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("noeta.sdk")

ROOT = Path(__file__).resolve().parents[2]

AGENT = r"""
import sys, tempfile, warnings
from noeta.sdk import LLMResponse, Options, TextBlock, ToolResult, ToolUseBlock, Usage, tool
from noeta.sdk.testing import FakeLLMProvider
from noesis_nb.integrations.noeta import NoetaAdapter
warnings.filterwarnings("ignore")
MARK = sys.argv[2]

@tool(name="delete_file", version="1", risk_level="high",
      input_schema={"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]})
def delete_file(arguments, ctx):
    open(MARK, "a").write(f"deleted {arguments['path']}\n")
    return ToolResult(success=True, output=f"deleted {arguments['path']}")

def adapter(path):
    provider = FakeLLMProvider(responses=[
        LLMResponse(stop_reason="tool_use", usage=Usage(uncached=10, output=3),
                    content=[ToolUseBlock(call_id="d1", tool_name="delete_file", arguments={"path": path})]),
        LLMResponse(stop_reason="end_turn", content=[TextBlock(text="done")], usage=Usage(uncached=12, output=2))])
    options = Options(system_prompt="x", name="janitor", allowed_tools=(delete_file,), permission_mode="default")
    return NoetaAdapter(options, provider=provider, model="claude-sonnet-5", workspace_dir=tempfile.mkdtemp())
"""

LEAVE = r"""
import asyncio, sys
from noesis_nb.integrations import start
async def main():
    h = start("delete OLD.txt", using=adapter("OLD.txt"), runs_dir=sys.argv[1], approver="ask")
    await h
    print(h.episode_id, h.status, flush=True)
asyncio.run(main())
"""

LATER = r"""
import asyncio, os, sys
import noesis_nb
from noesis_nb.errors import AskerGoneError
from noesis_nb.integrations import start
async def main():
    h = start("delete NEW.txt", using=adapter("NEW.txt"), runs_dir=sys.argv[1], approver="ask")
    while h.status != "paused":
        await asyncio.sleep(0.05)
    try:
        noesis_nb.approve_draft(os.path.join(sys.argv[1], sys.argv[3]), approver_id="ana")
        print("recorded", flush=True)
    except AskerGoneError:
        print("refused", flush=True)
    await asyncio.sleep(1.0)  # were the new request answered, its tool would run now
    h.reject(reason="nobody approved NEW")
    await h
asyncio.run(main())
"""


def _in_own_pid_namespace(tmp_path: Path, script: str, *args: str) -> str:
    (tmp_path / "script.py").write_text(AGENT + script)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = ["unshare", "--pid", "--fork", "--mount-proc", sys.executable, str(tmp_path / "script.py"), *args]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_approving_a_left_run_never_answers_a_later_process_request(tmp_path: Path) -> None:
    runs, mark = tmp_path / "runs", tmp_path / "deleted.log"
    old, status = _in_own_pid_namespace(tmp_path, LEAVE, str(runs), str(mark)).split()[:2]
    assert status == "paused"
    said = _in_own_pid_namespace(tmp_path, LATER, str(runs), str(mark), old)
    assert said.strip().splitlines()[0] == "refused"  # nobody waits for the old run's answer: nothing recorded
    assert not mark.exists() or "NEW.txt" not in mark.read_text()  # the new run's tool never ran unapproved
