"""What a run's seal keeps vouching for when its process did the writing, and only that.

A seal lets the frames read a run as written (``store.seal``), so it must never cover what another process
wrote (``test_secrets_resumed_runs``); but a run this process wrote whole keeps it, whatever route its writing
took: a tool record rewritten by the late secret sweep, a pause approved and resumed in the same kernel. And a
record another process wrote (an approval decided in a terminal) is screened alone, not every record of the run.
Tool output is screened without the randomness rule (digests stay readable): a commit id a tool printed reads
as ``[REDACTED]`` only when its record is screened again as read — which is what these tests watch.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import noesis_nb
from noesis_nb.frames import Column
from noesis_nb.store import read_json

DIGEST = hashlib.sha1(b"HEAD").hexdigest()  # what ``git rev-parse HEAD`` prints: 40 random-looking hex digits
PRINT_DIGEST = [sys.executable, "-c", "import hashlib; print(hashlib.sha1(b'HEAD').hexdigest())"]
STDOUT = [Column("stdout", path="execution.output.stdout")]


def _seal(run: Path) -> dict[str, Any] | None:
    return read_json(run / "final.json")["x-noesis_nb"].get("seal")


def test_a_tool_record_the_late_sweep_rewrites_stays_under_the_seal(tmp_path: Path) -> None:
    late = "Zq9-horse-battery-staple-Lm4"

    def agent(task: str, ctx: Any) -> str:
        ctx.tool("git.rev_parse", {"argv": PRINT_DIGEST}, effect="read", risk="low")
        ctx.tool("http.login", {"argv": [sys.executable, "-c", "print('ok')", "--note", late]}, effect="read", risk="low")
        ctx.emit("reason", {"password": late})  # learned late: the seal's sweep rewrites the records holding it
        return "ok"

    ep = noesis_nb.solve("t", using=agent, runs_dir=tmp_path)

    on_disk = [p for p in (tmp_path / ep / "tool_invocations").rglob("*.json") if p.parent.name != "idempotency"]
    seal = _seal(tmp_path / ep)
    assert seal is not None and len(seal["tools"]) >= len(on_disk)
    frame = noesis_nb.tools_df(tmp_path, columns=STDOUT)
    assert frame["stdout"].tolist() == [DIGEST + "\n", "ok\n"]
    assert late not in frame.astype(str).to_csv()  # swept as written


def test_a_pause_approved_and_resumed_in_the_same_kernel_is_sealed(tmp_path: Path) -> None:
    def agent(task: str, ctx: Any) -> str:
        ctx.tool("git.rev_parse", {"argv": PRINT_DIGEST}, effect="read", risk="low")
        ctx.tool("deploy", {"argv": [sys.executable, "-c", "print('deployed')"]}, effect="write", risk="high")
        return "ok"

    ep = noesis_nb.solve("t", using=agent, runs_dir=tmp_path, approver="ask")
    noesis_nb.approve_draft(ep, approver_id="ops", runs_dir=tmp_path)
    noesis_nb.resume_run(ep, runs_dir=tmp_path)

    assert _seal(tmp_path / ep) is not None
    assert noesis_nb.tools_df(tmp_path, columns=STDOUT)["stdout"].tolist()[0] == DIGEST + "\n"


def test_a_pause_left_here_then_changed_on_disk_is_resumed_without_a_seal(tmp_path: Path) -> None:
    def agent(task: str, ctx: Any) -> str:
        ctx.tool("deploy", {"argv": [sys.executable, "-c", "print('deployed')"]}, effect="write", risk="high")
        return "ok"

    ep = noesis_nb.solve("t", using=agent, runs_dir=tmp_path, approver="ask")
    log = tmp_path / ep / "events.jsonl"
    last = log.read_bytes().splitlines()[-1]
    with open(log, "ab") as fh:  # someone else appends a line while the run waits
        fh.write(last.replace(b'"phase":"', b'"phase":"reason","x":"', 1) + b"\n")
    noesis_nb.approve_draft(ep, approver_id="ops", runs_dir=tmp_path)
    noesis_nb.resume_run(ep, runs_dir=tmp_path)

    assert _seal(tmp_path / ep) is None


def test_a_record_another_process_wrote_is_screened_alone(tmp_path: Path) -> None:
    async def agent(task: str, ctx: Any) -> str:
        await ctx.tool_async("git.rev_parse", {"argv": PRINT_DIGEST}, effect="read", risk="low")
        await ctx.tool_async("deploy", {"argv": [sys.executable, "-c", "print('deployed')"]}, effect="write", risk="high")
        return "ok"

    async def main() -> Any:
        handle = noesis_nb.start("t", using=agent, runs_dir=tmp_path)
        await handle  # waits for a human on the deploy draft
        code = f"import noesis_nb; noesis_nb.approve_draft({handle.episode_id!r}, approver_id='ops', runs_dir={str(tmp_path)!r})"
        await asyncio.to_thread(subprocess.run, [sys.executable, "-c", code], check=True, env=os.environ, timeout=120)
        await asyncio.wait_for(handle.wait(), 60)
        return handle

    handle = asyncio.run(main())

    assert handle.status == "ok"
    seal = _seal(handle.run_dir)
    assert seal is not None and not any("approvals" in name for name, *_ in seal["tools"])  # not this process's
    assert noesis_nb.tools_df(tmp_path, columns=STDOUT)["stdout"].tolist() == [DIGEST + "\n", "deployed\n"]


KEY = "sk-proj-" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0"
LATE = "Zq9-horse-battery-staple-Lm4"


def test_a_record_another_process_wrote_stays_out_of_the_seal_when_the_late_sweep_rewrites_it(tmp_path: Path) -> None:
    """The sweep takes only the values the run knows out of a record: the rest of one written elsewhere was never
    screened here, so rewriting it does not make it this process's."""

    async def agent(task: str, ctx: Any) -> str:
        ctx.emit("reason", {"password": LATE})
        await ctx.tool_async("deploy", {"argv": [sys.executable, "-c", "print('deployed')"]}, effect="write", risk="high")
        return "ok"

    async def main() -> Any:
        handle = noesis_nb.start("t", using=agent, runs_dir=tmp_path)
        await handle
        code = (
            f"import noesis_nb, json, pathlib; noesis_nb.approve_draft({handle.episode_id!r}, approver_id='ops', "
            f"runs_dir={str(tmp_path)!r}); p = next(pathlib.Path({str(handle.run_dir)!r}, 'tool_invocations', "
            f"'approvals').glob('*.json')); d = json.loads(p.read_text()); d['reason'] = 'pw {LATE} key {KEY}'; "
            "p.write_text(json.dumps(d))"
        )
        await asyncio.to_thread(subprocess.run, [sys.executable, "-c", code], check=True, env=os.environ, timeout=120)
        await asyncio.wait_for(handle.wait(), 60)
        return handle

    handle = asyncio.run(main())

    seal = _seal(handle.run_dir)
    assert seal is not None and not any("approvals" in name for name, *_ in seal["tools"])
    shown = noesis_nb.tools_df(tmp_path).astype(str).to_csv()
    assert KEY not in shown and LATE not in shown


_APPEND = """
import json, sys, uuid
log = sys.argv[1]
last = json.loads(open(log, "rb").read().splitlines()[-1])
event = {"id": str(uuid.uuid4()), "episode_id": last["episode_id"], "agent_id": "x", "phase": "reason",
         "payload": {"note": sys.argv[2]}, "evidence_ids": [], "timestamp": last["timestamp"]}
with open(log, "ab") as fh:
    fh.write(json.dumps(event, separators=(",", ":")).encode() + b"\\n")
"""


def test_a_line_another_process_appended_is_not_sealed_after_the_pause_sweep_rewrites_the_log(tmp_path: Path) -> None:
    """The pause's sweep rewrites the log (a value learned late) and the recorder goes on with a new writer: the
    line another process appended before is not counted as this process's, in the live run or resumed here."""

    def agent(task: str, ctx: Any) -> str:
        (run,) = [p for p in tmp_path.iterdir() if p.name.startswith("ep_")]
        ctx.tool("login", {"argv": [sys.executable, "-c", "print('ok')", "--note", LATE]}, effect="read", risk="low")
        subprocess.run([sys.executable, "-c", _APPEND, str(run / "events.jsonl"), KEY], check=True, timeout=60)
        ctx.emit("reason", {"password": LATE})
        ctx.tool("deploy", {"argv": [sys.executable, "-c", "print('deployed')"]}, effect="write", risk="high")
        return "ok"

    ep = noesis_nb.solve("t", using=agent, runs_dir=tmp_path, approver="ask")
    noesis_nb.approve_draft(ep, approver_id="ops", runs_dir=tmp_path)
    noesis_nb.resume_run(ep, runs_dir=tmp_path)

    assert _seal(tmp_path / ep) is None
    assert KEY not in noesis_nb.events_df(tmp_path).astype(str).to_csv()


def test_the_records_of_a_run_under_a_folder_named_tool_invocations_are_forgotten_at_its_seal(tmp_path: Path) -> None:
    from noesis_nb.tools._files import forget_written, note_written, written_here

    run = tmp_path / "tool_invocations" / "runs" / "ep_1"
    record = run / "tool_invocations" / "prepared" / "d.json"
    record.parent.mkdir(parents=True)
    record.write_text("{}")
    note_written(record)
    assert written_here(record) is not None
    forget_written(run)
    assert written_here(record) is None
