"""A batch killed (kill -9) inside a policy's pause: ``run.interrupt`` and ``run.checkpoint`` written, marked decided by
``policy:auto``, the decision not yet. Before, calling the batch again left the entry ``paused`` for ever, error None:
its policy never decided it, and nothing said a person must. Now a call with a policy approver decides it by that
policy (recorded as the policy's) and continues it; a call asking a person leaves it paused, saying why and what to do.
Real processes; the batch's run of the tool leaves a mark in a file, counted.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

_BATCH = textwrap.dedent(
    """
    import asyncio, json, os, signal, sys
    root, marks, approver, die = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "die"
    if die:  # kill -9 at the instant the policy's decision is written (after its interrupt and checkpoint)
        real = os.replace
        def replace(a, b, *args, **kwargs):
            if "/approvals/" in str(b):
                os.kill(os.getpid(), signal.SIGKILL)
            return real(a, b, *args, **kwargs)
        os.replace = replace
    import noesis_nb
    def careful(pending):
        return (False, "the careful policy denies it")
    def moody(pending):  # decides while MOOD is set, else asks a person
        return True if os.environ.get("MOOD") else None
    policy = {"careful": careful, "moody": moody}.get(approver, approver)
    async def agent(task, ctx):
        code = "import sys; open(sys.argv[1], 'a').write('ran' + chr(10))"
        out = await ctx.tool_async("fs.mark", {"argv": [sys.executable, "-c", code, marks]}, effect="write", risk="high")
        return out["returncode"]
    async def main():
        b = noesis_nb.batch(["only task"], using=agent, root=root, batch_id="pb", approver=policy)
        await b
        (e,) = b.entries
        print(json.dumps({"status": e.status, "error": e.error, "done": b.done(), "run": str(e.run_dir)}))
    asyncio.run(main())
    """
)


def _batch(root: Path, marks: Path, approver: str, die: bool = False, mood: bool = True) -> tuple[int, dict]:
    env = {k: v for k, v in os.environ.items() if k != "MOOD"} | ({"MOOD": "1"} if mood else {})
    done = subprocess.run(
        [sys.executable, "-c", _BATCH, str(root), str(marks), approver, "die" if die else "ok"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    if die:
        return done.returncode, {}
    assert done.returncode == 0, done.stderr[-2000:]
    return done.returncode, json.loads(done.stdout.strip().splitlines()[-1])


def _left(tmp_path: Path, approver: str = "auto") -> tuple[Path, Path, Path]:
    root, marks = tmp_path / "runs", tmp_path / "marks.txt"
    code, _ = _batch(root, marks, approver, die=True)
    assert code == -9
    (run,) = root.glob("ep_*")
    events = [json.loads(line) for line in (run / "events.jsonl").read_text().splitlines()]
    last = [(e.get("event_type"), e["payload"].get("decided_by_policy")) for e in events[-2:]]
    assert last == [("run.interrupt", f"policy:{approver}"), ("run.checkpoint", f"policy:{approver}")]
    assert not list((run / "tool_invocations" / "approvals").glob("*.json"))  # its temp file at most: no decision
    return root, marks, run


def _decision(run: Path) -> dict:
    (path,) = (run / "tool_invocations" / "approvals").glob("*.json")
    return json.loads(path.read_text())


def test_the_batch_called_again_with_its_policy_decides_the_pause_and_runs_the_tool_once(tmp_path):
    root, marks, run = _left(tmp_path)
    _, said = _batch(root, marks, "auto")
    assert said == {"status": "ok", "error": None, "done": True, "run": str(run)}
    decision = _decision(run)
    assert decision["status"] == "approved" and decision["approver_id"] == "policy:auto"
    assert marks.read_text().splitlines() == ["ran"]
    _, again = _batch(root, marks, "auto")  # kept: nothing runs twice
    assert again["status"] == "ok" and marks.read_text().splitlines() == ["ran"]


def test_a_callable_policy_decides_it_again_as_itself(tmp_path):
    root, marks, run = _left(tmp_path, "careful")
    _, said = _batch(root, marks, "careful")
    assert said["status"] == "vetoed" and said["done"] is True
    decision = _decision(run)
    assert decision["status"] == "rejected" and decision["approver_id"] == "policy:careful"
    assert decision["reason"] == "the careful policy denies it"
    assert not marks.exists()


def test_a_policy_that_now_asks_a_person_leaves_it_paused_saying_why_and_what_to_do(tmp_path):
    root, marks, run = _left(tmp_path, "moody")
    _, said = _batch(root, marks, "moody", mood=False)
    assert said["status"] == "paused" and said["done"] is False
    error = said["error"] or ""
    assert "policy:moody" in error and "never reached disk" in error
    assert f"approve_draft('{run.name}'" in error and f"reject_draft('{run.name}'" in error
    assert not list((run / "tool_invocations" / "approvals").glob("*.json"))  # nothing decided for the person
    assert not marks.exists()
    _, later = _batch(root, marks, "moody")  # its policy decides once it can
    assert later["status"] == "ok" and marks.read_text().splitlines() == ["ran"]
