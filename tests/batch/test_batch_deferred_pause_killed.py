"""A batch whose approver policy deferred a draft to a person (it answered None), killed (kill -9) while the run
waited for that person, then called again in a new process: the deferral written in the log stands. The policy is
not asked again about the same draft (now it would approve it), the entry stays paused for a person and nothing
runs until a person decides. Real processes; the policy's answers and the tool's runs are counted in files.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import noesis_nb
from noesis_nb.store import read_events

from ..compat.checker import check_run
from ..compat.entrypoints import REPO

_BATCH = textwrap.dedent(
    """
    import asyncio, json, os, sys, time
    root, marks, asked, stay = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "stay"
    import noesis_nb
    def moody(pending):  # approves while MOOD is set, else leaves the draft to a person
        with open(asked, "a") as f:
            f.write(pending.draft_id + chr(10))
        return True if os.environ.get("MOOD") else None
    async def agent(task, ctx):
        code = "import sys; open(sys.argv[1], 'a').write('ran' + chr(10))"
        out = await ctx.tool_async("fs.mark", {"argv": [sys.executable, "-c", code, marks]}, effect="write", risk="high")
        return out["returncode"]
    async def main():
        b = noesis_nb.batch(["only task"], using=agent, root=root, batch_id="db", approver=moody)
        await b
        (e,) = b.entries
        print(json.dumps({"status": e.status, "error": e.error, "done": b.done(), "run": str(e.run_dir)}), flush=True)
        while stay:  # the kernel lives on, its run paused for a person, until it is killed
            await asyncio.sleep(1)
    asyncio.run(main())
    """
)


def _env(mood: bool) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "MOOD"} | ({"MOOD": "1"} if mood else {})
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")])
    return env


def _killed_while_waiting(root: Path, marks: Path, asked: Path) -> dict:
    """The first process: its policy leaves the draft to a person; killed with SIGKILL while the run waits."""
    child = subprocess.Popen(
        [sys.executable, "-c", _BATCH, str(root), str(marks), str(asked), "stay"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(mood=False),
    )
    try:
        line = child.stdout.readline() if child.stdout else ""
        assert line, child.stderr.read() if child.stderr else ""
        child.send_signal(signal.SIGKILL)
        child.wait(60)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == -signal.SIGKILL
    return json.loads(line)


def _again(root: Path, marks: Path, asked: Path) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", _BATCH, str(root), str(marks), str(asked), "end"],
        capture_output=True,
        text=True,
        timeout=120,
        env=_env(mood=True),
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_deferral_to_a_person_survives_kill_9_and_the_policy_is_not_asked_again(tmp_path: Path) -> None:
    root, marks, asked = tmp_path / "runs", tmp_path / "marks.txt", tmp_path / "asked.txt"
    first = _killed_while_waiting(root, marks, asked)
    assert first["status"] == "paused" and first["done"] is False, first
    (draft,) = asked.read_text().splitlines()  # the policy answered once: a person decides
    run = Path(first["run"])
    events = read_events(run / "events.jsonl")
    assert [e.get("event_type") for e in events if e.get("event_type")][-2:] == ["run.interrupt", "run.checkpoint"]

    again = _again(root, marks, asked)  # a new process, its policy now willing to approve
    assert asked.read_text().splitlines() == [draft], "the policy was asked again about a draft it left to a person"
    assert again["status"] == "paused" and again["done"] is False, again
    assert not list((run / "tool_invocations" / "approvals").glob("*.json"))  # nobody decided for the person
    assert not marks.exists()

    noesis_nb.approve_draft(run, draft_id=draft, approver_id="ana")  # the person decides
    after = _again(root, marks, asked)
    assert after["status"] == "ok" and after["done"] is True, after
    assert marks.read_text().splitlines() == ["ran"]
    assert asked.read_text().splitlines() == [draft]  # asked once, ever
    decisions = [json.loads(p.read_text()) for p in (run / "tool_invocations" / "approvals").glob("*.json")]
    assert [(d["status"], d["approver_id"]) for d in decisions] == [("approved", "ana")]
    assert check_run(run) == []
