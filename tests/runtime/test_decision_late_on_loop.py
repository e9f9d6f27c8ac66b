"""A decision made on an event loop while another process seals the run never says "taken back" of a file that stays.

On the loop nothing waits for the other process's seal (the kernel must go on), so whether that seal lists the
decision is not known when the call answers. It said "the decision was taken back", and the seal then listed the
file, which stayed in the sealed run. Now it says the file goes unless the seal lists it; plain code waits and
knows. A real process holds the run's lock while it seals, listing the decision or not.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest

from noesis_nb.store.artifacts import taken_back_if_sealed

from ..conftest import REPO

SEALER = """
import json, sys, time
from pathlib import Path
from noesis_nb.store.ownership import acquire
run, lists = Path(sys.argv[1]), sys.argv[2] == "lists"
owner = acquire(run)
print("held", flush=True)
time.sleep(1.0)
files = [{"name": "tool_invocations/approvals/d1.json"}] if lists else []
(run / "manifest.json").write_text(json.dumps({"files": files}))
owner.release(remove=True)
"""


def _sealing(tmp_path: Path, lists: str) -> tuple[Path, Path, subprocess.Popen[str]]:
    run = tmp_path / "ep_01JTEST0000000000000000000"
    (run / "tool_invocations" / "approvals").mkdir(parents=True)
    (run / "final.json").write_text("{}")  # the episode ended: its seal is under way in the other process
    decision = run / "tool_invocations" / "approvals" / "d1.json"
    decision.write_text("{}")
    env = {"PYTHONPATH": str(REPO)}
    sealer = subprocess.Popen([sys.executable, "-c", SEALER, str(run), lists], stdout=subprocess.PIPE, text=True, env=env)
    assert sealer.stdout is not None and sealer.stdout.readline().strip() == "held"
    return run, decision, sealer


@pytest.mark.parametrize("lists", ["lists", "leaves out"])
def test_on_the_loop_what_is_said_of_the_decision_holds_once_the_seal_is_written(tmp_path: Path, lists: str) -> None:
    run, decision, sealer = _sealing(tmp_path, lists)

    async def cell() -> str:
        said = taken_back_if_sealed(run, decision)
        await asyncio.sleep(2.5)  # the loop goes on; the other process writes its manifest meanwhile
        return said

    said = asyncio.run(cell())
    sealer.wait(timeout=30)
    listed = "d1.json" in json.dumps(json.loads((run / "manifest.json").read_text()))
    assert said, "the decision came after the episode ended: the caller must be told"
    assert decision.exists() == listed  # taken back exactly when the seal left it out
    if decision.exists():
        assert "unless the seal lists it" in said, f"told {said!r} of a decision that stays in the sealed run"


@pytest.mark.parametrize("lists", ["lists", "leaves out"])
def test_plain_code_waits_for_the_seal_and_says_what_happened(tmp_path: Path, lists: str) -> None:
    run, decision, sealer = _sealing(tmp_path, lists)
    said = taken_back_if_sealed(run, decision)
    # what it says holds when it answers: the seal is written, and the file is gone exactly when it says so
    assert (run / "manifest.json").exists(), "answered before the other process's seal was written"
    listed = "d1.json" in json.dumps(json.loads((run / "manifest.json").read_text()))
    assert decision.exists() == listed
    if listed:
        assert not said, f"told {said!r} of a decision the seal lists, which stays in the sealed run"
    else:
        assert said and "taken back" in said and "unless" not in said, f"told {said!r} of a decision taken back"
    sealer.wait(timeout=30)
    assert decision.exists() == listed  # nothing changes it later
