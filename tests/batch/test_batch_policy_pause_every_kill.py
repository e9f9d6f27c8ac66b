"""A batch with a policy approver killed (kill -9) right after each write of a policy's pause: the draft, its
``tool.approval.pending``, ``run.interrupt``, the state, the
checkpoint file, ``run.checkpoint``, the decision, ``run.resume`` and its state. Before, a kill after the interrupt
and before the checkpoint (and one before the interrupt) left the entry ``paused`` for ever: the batch called again
waited without a word. Now the batch called again with its policy decides the pause by that policy wherever the
kill fell, and the tool runs exactly once. Real processes; each run of the tool leaves a line in a file, counted.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

_BATCH = textwrap.dedent(
    """
    import asyncio, json, os, signal, sys
    root, marks, spec = sys.argv[1], sys.argv[2], sys.argv[3]
    from noesis_nb.store.eventlog import EventWriter
    seen = []
    def die():
        os.kill(os.getpid(), signal.SIGKILL)
    kind, _, rest = spec.partition(":")
    real_append = EventWriter.append_locked
    def append_locked(self, event, *args, **kwargs):  # kill -9 right after the event's line is written
        out = real_append(self, event, *args, **kwargs)
        payload = event.get("payload") if isinstance(event.get("payload"), dict) else {}
        name = event.get("event_type") or payload.get("event_name")
        seen.append(name)
        if kind == "event" and name == rest:
            die()
        return out
    EventWriter.append_locked = append_locked
    if kind == "file":  # kill -9 right after the n-th file whose path holds <part> is in place (after event <after>)
        part, n, after = rest.split("|")
        real_replace, count = os.replace, [0]
        def replace(a, b, *args, **kwargs):
            out = real_replace(a, b, *args, **kwargs)
            if part in str(b) and (not after or after in seen):
                count[0] += 1
                if count[0] == int(n):
                    die()
            return out
        os.replace = replace
    import noesis_nb
    async def agent(task, ctx):
        code = "import sys; open(sys.argv[1], 'a').write('ran' + chr(10))"
        out = await ctx.tool_async("fs.mark", {"argv": [sys.executable, "-c", code, marks]}, effect="write", risk="high")
        return out["returncode"]
    async def main():
        b = noesis_nb.batch(["only task"], using=agent, root=root, batch_id="kp", approver="auto")
        try:
            await asyncio.wait_for(b.wait(), 30)
        except asyncio.TimeoutError:
            pass
        (e,) = b.entries
        print(json.dumps({"status": e.status, "error": e.error, "done": b.done()}))
        b.cancel()
    asyncio.run(main())
    """
)

_KILL_POINTS = {
    "draft": "file:/prepared/|1|",
    "draft_created": "event:tool.draft_created",
    "approval_pending": "event:tool.approval.pending",
    "interrupt": "event:run.interrupt",
    "interrupt_state": "file:state.json|1|run.interrupt",
    "checkpoint_file": "file:checkpoint.json|1|",
    "checkpoint": "event:run.checkpoint",
    "decision": "file:/approvals/|1|",
    "resume": "event:run.resume",
    "resume_state": "file:state.json|1|run.resume",
}


def _batch(root: Path, marks: Path, spec: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", _BATCH, str(root), str(marks), spec], capture_output=True, text=True, timeout=180
    )


@pytest.mark.parametrize("point", sorted(_KILL_POINTS))
def test_the_batch_called_again_decides_the_policys_pause_wherever_its_process_was_killed(tmp_path, point):
    root, marks = tmp_path / "runs", tmp_path / "marks.txt"
    killed = _batch(root, marks, _KILL_POINTS[point])
    assert killed.returncode == -9, (killed.returncode, killed.stdout[-500:], killed.stderr[-2000:])
    assert not marks.exists()  # killed before its tool ran
    again = _batch(root, marks, "none:")
    assert again.returncode == 0, again.stderr[-2000:]
    said = json.loads(again.stdout.strip().splitlines()[-1])
    assert said == {"status": "ok", "error": None, "done": True}
    assert marks.read_text().splitlines() == ["ran"]  # exactly once
    (run,) = root.glob("ep_*")
    decisions = [json.loads(p.read_text()) for p in (run / "tool_invocations" / "approvals").glob("*.json")]
    assert [(d["status"], d["approver_id"]) for d in decisions] == [("approved", "policy:auto")]
