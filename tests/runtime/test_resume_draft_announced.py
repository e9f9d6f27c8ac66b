"""A process killed (SIGKILL) right after its write draft was saved under tool_invocations/prepared/, before the
draft's ``tool.draft_created`` line: resume_run writes the missing ``tool.draft_created`` (and
``tool.approval.pending``) at the draft's own time, so the recovered log keeps the tool contract's sequence and the
draft's wait counts from the draft, not from the resume. The recovered run is checked with Noēsis' validator rules."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from datetime import datetime
from pathlib import Path

import noesis_nb

CHILD = textwrap.dedent(
    """
    import os, signal, sys
    replace = os.replace
    def killed_after_draft(src, dst, *a, **k):
        done = replace(src, dst, *a, **k)
        if os.sep + "prepared" + os.sep in str(dst):
            os.kill(os.getpid(), signal.SIGKILL)
        return done
    os.replace = killed_after_draft
    import noesis_nb
    def agent(task, ctx):
        return ctx.tool("fs.write_file", {"argv": ["true"]}, effect="write", risk="high")["returncode"]
    noesis_nb.solve("t", using=agent, runs_dir=sys.argv[1], approver="auto")
    """
)
REQUIRED = {"timestamp": str, "episode_id": str, "phase": str, "payload": dict, "evidence_ids": list}


def _time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _validator_problems(run: Path) -> list[str]:
    """What Noēsis' validators (write-time guard, tool-bridge chain, summary vs log) refuse in ``run``."""
    problems: list[str] = []
    events = [json.loads(line) for line in (run / "events.jsonl").read_bytes().splitlines()]
    by_id = {e["id"]: e for e in events if e.get("id")}
    last = None
    for n, event in enumerate(events, 1):
        problems += [f"line {n}: {k}" for k, kind in REQUIRED.items() if not isinstance(event.get(k), kind)]
        if last is not None and _time(event["timestamp"]) < last:
            problems.append(f"line {n}: timestamp goes backwards")
        last = _time(event["timestamp"])
    for event in events:
        payload = event["payload"]
        if payload.get("event_name") != "tool.execution.started":
            continue
        chain, at = [], event
        while at is not None:
            chain.append(at["payload"].get("event_name") or at["payload"].get("kind") or at.get("event_type"))
            at = by_id.get(at.get("caused_by"))
        for needed in ("tool.approval.pending", "tool.draft_created", "action.candidate_emitted"):
            if needed not in chain:
                problems.append(f"execution of {payload.get('draft_id')}: {needed} not in its causal chain {chain}")
    for request in {e["payload"].get("request_id") for e in events if e["phase"] == "tool"}:
        mine = [e["payload"].get("event_name") for e in events if e["payload"].get("request_id") == request]
        if "tool.approval.pending" in mine and (
            "tool.draft_created" not in mine or mine.index("tool.draft_created") > mine.index("tool.approval.pending")
        ):
            problems.append(f"request {request}: tool.approval.pending without tool.draft_created before it")
    summary = json.loads((run / "summary.json").read_text())
    acts = sum(e["phase"] == "act" for e in events)
    if summary["metrics"].get("act_count") != acts:
        problems.append(f"summary act_count {summary['metrics'].get('act_count')} != {acts} act events")
    return problems


def test_a_draft_killed_before_its_announcement_is_announced_at_its_own_time(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    child = subprocess.run([sys.executable, "-c", CHILD, str(runs)], capture_output=True, timeout=300)
    assert child.returncode == -9, child.stderr.decode()[-2000:]
    (run,) = [p for p in runs.iterdir() if p.name.startswith("ep_")]
    (draft_file,) = (run / "tool_invocations" / "prepared").iterdir()
    draft = json.loads(draft_file.read_text())
    before = [json.loads(line)["payload"].get("event_name") for line in (run / "events.jsonl").read_bytes().splitlines()]
    assert "tool.draft_created" not in before and "tool.approval.pending" not in before  # killed in between
    noesis_nb.approve_draft(run, approver_id="reviewer")
    decided = json.loads((run / "tool_invocations" / "approvals" / draft_file.name).read_text())
    noesis_nb.resume_run(run)
    events = [json.loads(line) for line in (run / "events.jsonl").read_bytes().splitlines()]
    assert _validator_problems(run) == []
    created = next(e for e in events if e["payload"].get("event_name") == "tool.draft_created")
    pending = next(e for e in events if e["payload"].get("event_name") == "tool.approval.pending")
    assert created["payload"]["draft_id"] == pending["payload"]["draft_id"] == draft["draft_id"]
    assert pending["caused_by"] == created["id"]
    resumed = next(e for e in events if e.get("event_type") == "run.resume")
    # at the draft's time: before the decision and the resume, not written as of the resume
    assert _time(created["timestamp"]) == _time(pending["timestamp"]) <= _time(decided["decided_at"])
    assert _time(pending["timestamp"]) < _time(resumed["timestamp"])
    interrupt = next(e for e in events if e.get("event_type") == "run.interrupt")
    assert _time(interrupt["timestamp"]) == _time(pending["timestamp"])  # the run stopped at the draft
    # the draft waited from its own time until the run went on (a pause, interrupt to resume, as a live one counts)
    row = noesis_nb.tools_df(runs).set_index("draft_id").loc[draft["draft_id"]]
    wanted = (_time(resumed["timestamp"]) - _time(pending["timestamp"])).total_seconds()
    assert wanted > (_time(decided["decided_at"]) - _time(pending["timestamp"])).total_seconds()
    assert abs(row["wait_s"] - wanted) < 1e-3, (row["wait_s"], wanted)
