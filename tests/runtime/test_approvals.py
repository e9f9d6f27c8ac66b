"""Tool approvals: live (start/await/approve), policies, on disk (approve_draft/resume_run), across processes."""

import asyncio
import json
import os
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.errors import AmbiguousDraftError, DecisionFileError, DraftNotFoundError, ToolRejected
from noesis_nb.runtime.diskrun import DiskRun
from noesis_nb.runtime.gate import DecisionStands
from noesis_nb.runtime.resume import NothingToResume
from noesis_nb.store import read_events, read_json, verify_manifest
from noesis_nb.store.ownership import acquire

from .agents import append_line, make_writer, sync_writer_factory

HERE = Path(__file__).resolve().parent
PREPARE = [
    "tool.requested",
    "tool.validated",
    "tool.authn.passed",
    "tool.authz.passed",
    "action_candidate",
    "action.candidate_emitted",
    "tool.preflight.computed",
    "tool.draft_created",
    "tool.approval.pending",
]


def _names(run_dir):
    out = []
    for e in read_events(run_dir / "events.jsonl"):
        out.append(e.get("event_type") or e["payload"].get("event_name") or e["phase"])
    return out


async def _until_pending(handle, count, timeout=2.0):
    """Let the episode run until ``count`` drafts wait for a decision."""
    for _ in range(int(timeout / 0.01)):
        if len(handle.pending) == count:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"{len(handle.pending)} drafts pending, expected {count}")


def _between(names, first, last):
    i = names.index(first)
    return names[i : names.index(last, i) + 1]


def test_live_pause_then_approve_continues_the_adapter(runs_dir, tmp_path):
    out = tmp_path / "out.txt"

    async def main():
        handle = noesis_nb.start("note one", using=make_writer(out), runs_dir=runs_dir)
        assert handle.status == "running" and not handle.done()
        await handle  # returns at the pause: nothing may wait for a click
        assert handle.status == "paused" and len(handle.pending) == 1
        pending = handle.pending[0]
        assert pending.tool == "fs.append" and pending.effect_kind == "write" and pending.risk_tier == "high"
        assert "out.txt" in pending.command_line and pending.fingerprint.startswith("sha256:")
        # the pause is on disk before anything waits
        assert (handle.run_dir / "tool_invocations" / "prepared" / f"{pending.draft_id}.json").exists()
        assert read_json(handle.run_dir / "state.json")["outcomes"]["status"] == "partial"
        assert not out.exists()
        decision = handle.approve(approver_id="ana", reason="looks fine")
        assert decision.created and decision.status == "approved"
        await handle.wait()
        return handle, pending

    handle, pending = asyncio.run(main())
    assert handle.status == "ok" and handle.result() == {"stdout": "", "returncode": 0}
    assert out.read_text() == "note one\n"
    names = _names(handle.run_dir)
    assert _between(names, "tool.requested", "tool.approval.pending") == PREPARE
    assert _between(names, "tool.approval.pending", "tool.execution.succeeded") == [
        "tool.approval.pending",
        "run.interrupt",
        "run.checkpoint",
        "run.resume",
        "tool.approved",
        "tool.execution.started",
        "tool.execution.succeeded",
    ]
    approval = read_json(handle.run_dir / "tool_invocations" / "approvals" / f"{pending.draft_id}.json")
    assert approval["approver_id"] == "ana" and approval["reviewed_fingerprint"] == pending.fingerprint
    assert approval["reason"] == "looks fine" and approval["status"] == "approved"
    assert verify_manifest(handle.run_dir).ok and names[-1] == "memory"


def test_reject_reaches_the_adapter_as_tool_rejected(runs_dir, tmp_path):
    out = tmp_path / "out.txt"

    async def main():
        handle = noesis_nb.start("note", using=make_writer(out, handle_rejection=True), runs_dir=runs_dir)
        await handle
        handle.reject(reason="not today")
        await handle.wait()
        return handle

    handle = asyncio.run(main())
    assert handle.status == "ok" and "not today" in handle.result()["rejected"]
    assert not out.exists()
    names = _names(handle.run_dir)
    assert "tool.rejected.governance" in names and "tool.execution.started" not in names


def test_unhandled_rejection_ends_the_episode_vetoed(runs_dir, tmp_path):
    """The agent lets the rejection through: the run ends vetoed (as ``resume_run`` seals a rejected draft from disk),
    and ``result()`` raises the rejection."""

    async def main():
        handle = noesis_nb.start("note", using=make_writer(tmp_path / "o.txt"), runs_dir=runs_dir)
        await handle
        handle.reject(reason="no")
        await handle.wait()
        return handle

    handle = asyncio.run(main())
    assert handle.status == "vetoed"
    with pytest.raises(ToolRejected, match="no"):
        handle.result()


@pytest.mark.parametrize(
    "approver, executed, approver_id",
    [
        ("auto", True, "policy:auto"),
        ("deny", False, "policy:deny"),
        (lambda pending: pending.risk_tier != "high", False, "policy:<lambda>"),
    ],
)
def test_approver_policies_decide_in_a_pause_of_their_own(runs_dir, tmp_path, approver, executed, approver_id):
    """A policy decides at once, in a pause written as a person's (Noēsis' tool lineage) and marked the policy's."""
    out = tmp_path / "out.txt"
    ep = noesis_nb.solve("note", using=make_writer(out, handle_rejection=True), runs_dir=runs_dir, approver=approver)
    events = read_events(runs_dir / ep / "events.jsonl")
    pauses = [e for e in events if e.get("event_type") in ("run.interrupt", "run.checkpoint", "run.resume")]
    assert [e["event_type"] for e in pauses] == ["run.interrupt", "run.checkpoint", "run.resume"]
    assert {e["payload"]["decided_by_policy"] for e in pauses} == {approver_id} and out.exists() is executed
    decision = json.loads(next((runs_dir / ep / "tool_invocations" / "approvals").glob("*.json")).read_text())
    assert decision["approver_id"] == approver_id


def test_async_callable_approver_and_env_default(runs_dir, tmp_path, monkeypatch):
    async def reviewer(pending):
        await asyncio.sleep(0)
        return {"approve": True, "reason": f"{pending.tool} ok"}

    ep = noesis_nb.solve("n", using=make_writer(tmp_path / "a.txt"), runs_dir=runs_dir, approver=reviewer)
    assert (tmp_path / "a.txt").exists()
    monkeypatch.setenv("NOESIS_NB_APPROVER", "auto")
    ep = noesis_nb.solve("n", using=make_writer(tmp_path / "b.txt"), runs_dir=runs_dir)
    assert (tmp_path / "b.txt").exists() and read_json(runs_dir / ep / "summary.json")["status"] == "ok"


def test_solve_with_ask_pauses_on_disk_then_approve_draft_and_resume_run(runs_dir, tmp_path):
    out = tmp_path / "out.txt"
    ep = noesis_nb.solve("disk note", using=make_writer(out), runs_dir=runs_dir, approver="ask")
    run_dir = runs_dir / ep
    assert not (run_dir / "summary.json").exists() and not (run_dir / "final.json").exists()
    assert noesis_nb.list_runs(runs_dir=runs_dir)[0]["status"] == "paused"
    with pytest.raises(noesis_nb.tools.ApprovalDecisionRequiredError, match="approve_draft"):
        noesis_nb.resume_run(ep, runs_dir=runs_dir)
    first = noesis_nb.approve_draft(ep, approver_id="ops", runs_dir=runs_dir)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the same way again: idempotent, and silent
        again = noesis_nb.approve_draft(ep, first.draft_id, approver_id="someone-else", runs_dir=runs_dir)
    with pytest.warns(
        DecisionStands, match=rf"reject changed nothing: draft {first.draft_id} was already approved by ops"
    ) as said:
        late_reject = noesis_nb.reject_draft(ep, first.draft_id, reason="too late", runs_dir=runs_dir)
    assert said[0].filename == __file__  # said at the caller's line
    assert first.created and not again.created and not late_reject.created
    assert again.approver_id == late_reject.approver_id == "ops" and late_reject.status == "approved"
    assert noesis_nb.resume_run(ep, runs_dir=runs_dir) == ep
    assert out.read_text() == "disk note\n"
    with pytest.warns(NothingToResume, match="already sealed"):
        noesis_nb.resume_run(ep, runs_dir=runs_dir)
    assert out.read_text() == "disk note\n"  # executed exactly once
    names = _names(run_dir)
    assert names.count("tool.execution.started") == 1 and names.count("run.resume") == 1
    assert read_json(run_dir / "summary.json")["status"] == "ok" and verify_manifest(run_dir).ok


def test_a_reason_or_approver_of_the_wrong_kind_is_one_error_naming_it_live_and_on_disk(runs_dir, tmp_path):
    from noesis_nb.errors import InvalidOptionError

    ep = noesis_nb.solve("disk note", using=make_writer(tmp_path / "out.txt"), runs_dir=runs_dir, approver="ask")
    for call, fragment in [
        (lambda: noesis_nb.approve_draft(ep, approver_id="ana", reason=5, runs_dir=runs_dir), r"reason=5: pass .* as text"),
        (lambda: noesis_nb.reject_draft(ep, reason=["x"], runs_dir=runs_dir), r"reason=\['x'\]: pass the reason as text"),
        (lambda: noesis_nb.approve_draft(ep, approver_id=5, runs_dir=runs_dir), r"approver_id=5: name who decides"),
    ]:
        with pytest.raises(InvalidOptionError, match=fragment):  # was pydantic's ValidationError for a reason
            call()
    assert not list((runs_dir / ep / "tool_invocations" / "approvals").glob("*.json"))

    async def live():
        handle = noesis_nb.start("note", using=make_writer(tmp_path / "live.txt"), runs_dir=runs_dir)
        await handle
        with pytest.raises(InvalidOptionError, match=r"reason=5: pass the reason as text"):
            handle.reject(reason=5)
        assert handle.pending  # still waiting
        handle.approve(approver_id="ana", reason="fine")
        await handle.wait()
        return handle.status

    assert asyncio.run(live()) == "ok"


def test_rejected_on_disk_draft_seals_the_run_as_vetoed(runs_dir, tmp_path):
    out = tmp_path / "out.txt"
    ep = noesis_nb.solve("x", using=make_writer(out), runs_dir=runs_dir)
    noesis_nb.reject_draft(runs_dir / ep, reason="no writes on friday")
    noesis_nb.resume_run(runs_dir / ep)
    assert not out.exists()
    assert read_json(runs_dir / ep / "final.json")["outcome"] == "vetoed"
    assert "tool.rejected.governance" in _names(runs_dir / ep)


def test_resume_in_a_second_python_process(runs_dir, tmp_path):
    out = tmp_path / "out.txt"
    ep = noesis_nb.solve("cross", using=make_writer(out), runs_dir=runs_dir)
    noesis_nb.approve_draft(ep, approver_id="ops", runs_dir=runs_dir)
    code = f"import noesis_nb; print(noesis_nb.resume_run({ep!r}, runs_dir={str(runs_dir)!r}))"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == ep and out.read_text() == "cross\n"
    assert read_json(runs_dir / ep / "final.json")["outcome"] == "success"


def test_python_tool_resumed_in_another_process_by_import_reference(runs_dir, tmp_path):
    out = tmp_path / "py.txt"

    async def agent(task, ctx):
        return await ctx.tool_async(
            "notes.append", {"args": [str(out), task]}, protocol="python", fn=append_line, effect="write", risk="high"
        )

    ep = noesis_nb.solve("pyline", using=agent, runs_dir=runs_dir)
    noesis_nb.approve_draft(ep, approver_id="ops", runs_dir=runs_dir)
    code = (
        f"import sys; sys.path.insert(0, {str(HERE.parent.parent)!r}); import noesis_nb; "
        f"noesis_nb.resume_run({ep!r}, runs_dir={str(runs_dir)!r})"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert out.read_text() == "pyline\n"


def test_decision_from_another_thread_and_double_click(runs_dir, tmp_path):
    out = tmp_path / "out.txt"

    async def main():
        handle = noesis_nb.start("threaded", using=make_writer(out), runs_dir=runs_dir)
        await handle
        results = []
        threads = [threading.Thread(target=lambda: results.append(handle.approve(approver_id="t"))) for _ in range(5)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        await handle.wait()
        return handle, results

    handle, results = asyncio.run(main())
    assert sum(r.created for r in results) == 1
    assert out.read_text() == "threaded\n" and handle.status == "ok"


def test_a_decision_file_written_by_another_program_wakes_the_episode(runs_dir, tmp_path):
    out = tmp_path / "out.txt"

    async def main():
        handle = noesis_nb.start("external", using=make_writer(out), runs_dir=runs_dir)
        await handle
        code = f"import noesis_nb.tools as t; t.decide({str(handle.run_dir)!r}, None, approve=True, approver_id='cli')"
        proc = await asyncio.create_subprocess_exec(sys.executable, "-c", code)
        assert await proc.wait() == 0
        await asyncio.wait_for(handle.wait(), 30)
        return handle

    handle = asyncio.run(main())
    assert handle.status == "ok" and out.read_text() == "external\n"
    assert handle.decisions[0]["approver_id"] == "cli"


def test_sync_adapter_tool_call_pauses_and_continues(runs_dir, tmp_path):
    out = tmp_path / "out.txt"

    async def main():
        handle = noesis_nb.start("sync", using=sync_writer_factory(out), runs_dir=runs_dir)
        await handle
        assert handle.status == "paused"
        handle.approve(approver_id="x")
        await handle.wait()
        return handle

    handle = asyncio.run(main())
    assert handle.status == "ok" and handle.result() == 0 and out.exists()


def test_two_episodes_at_once_keep_their_own_runs(runs_dir, tmp_path):
    async def main():
        a = noesis_nb.start("a", using=make_writer(tmp_path / "a.txt"), runs_dir=runs_dir)
        b = noesis_nb.start("b", using=make_writer(tmp_path / "b.txt"), runs_dir=runs_dir)
        await asyncio.gather(a, b)
        assert a.status == b.status == "paused"
        b.approve(approver_id="x")
        await b.wait()
        assert a.status == "paused"
        a.reject(reason="only b")
        await a.wait()
        return a, b

    a, b = asyncio.run(main())
    assert b.status == "ok" and a.status == "vetoed"  # a's agent lets the rejection end its run
    assert (tmp_path / "b.txt").exists() and not (tmp_path / "a.txt").exists()
    assert all(e["episode_id"] == a.episode_id for e in read_events(a.run_dir / "events.jsonl"))


def test_draft_ids_unknown_ambiguous_and_malformed_decision_files(runs_dir, tmp_path):
    ep = noesis_nb.solve("x", using=make_writer(tmp_path / "o.txt"), runs_dir=runs_dir)
    with pytest.raises(DraftNotFoundError, match="nope"):
        noesis_nb.approve_draft(ep, "nope", approver_id="x", runs_dir=runs_dir)
    prepared = next((runs_dir / ep / "tool_invocations" / "prepared").glob("*.json"))
    draft_id = prepared.name[:-5]
    approvals = runs_dir / ep / "tool_invocations" / "approvals"
    approvals.mkdir(parents=True, exist_ok=True)
    (approvals / f"{draft_id}.json").write_text('{"status": "maybe"')
    with pytest.raises(DecisionFileError) as info:
        noesis_nb.resume_run(ep, runs_dir=runs_dir)
    assert f"approvals/{draft_id}.json" in str(info.value)
    with pytest.raises(noesis_nb.errors.InvalidIdError):
        noesis_nb.approve_draft("../../etc", approver_id="x", runs_dir=runs_dir)


def test_an_ambiguous_draft_reference_names_the_candidates(runs_dir, tmp_path):
    async def agent(task, ctx):
        from .agents import write_argv

        return await asyncio.gather(
            *(ctx.tool_async(f"fs.{n}", {"argv": write_argv(tmp_path / n, n)}, effect="write", risk="high") for n in ("a", "b"))
        )

    async def main():
        handle = noesis_nb.start("two", using=agent, runs_dir=runs_dir)
        await _until_pending(handle, 2)
        with pytest.raises(AmbiguousDraftError, match="2 drafts are pending"):
            handle.approve(approver_id="x")
        shared = os.path.commonprefix([p.draft_id.rsplit(":", 1)[1] for p in handle.pending])
        assert len(shared) >= len("req_") + 4  # ULIDs made in the same moment share their time part
        with pytest.raises(AmbiguousDraftError, match="matches"):
            handle.approve(shared[: len("req_") + 4], approver_id="x")
        handle.cancel()
        await handle.wait()
        return handle

    assert asyncio.run(main()).status == "cancelled"


def test_a_sealed_run_refuses_new_decisions_but_reports_old_ones(runs_dir, tmp_path):
    ep = noesis_nb.solve("x", using=make_writer(tmp_path / "o.txt"), runs_dir=runs_dir)
    first = noesis_nb.approve_draft(ep, approver_id="ops", runs_dir=runs_dir)
    noesis_nb.resume_run(ep, runs_dir=runs_dir)
    with pytest.warns(DecisionStands, match="already approved by ops"):
        later = noesis_nb.reject_draft(ep, first.draft_id, reason="too late", runs_dir=runs_dir)
    assert not later.created and later.status == "approved" and later.approver_id == first.approver_id

    async def cancelled():
        handle = noesis_nb.start("y", using=make_writer(tmp_path / "p.txt"), runs_dir=runs_dir)
        await handle
        draft = handle.pending[0].draft_id
        handle.cancel()
        await handle.wait()
        return handle, draft

    handle, draft = asyncio.run(cancelled())
    with pytest.raises(noesis_nb.errors.RunSealedError, match="can no longer be decided"):
        noesis_nb.approve_draft(handle.run_dir, draft, approver_id="late")
    assert not (handle.run_dir / "tool_invocations" / "approvals").exists()


def test_cancel_ends_a_sync_adapter_waiting_in_ctx_tool(runs_dir, tmp_path):
    async def main():
        handle = noesis_nb.start("sync", using=sync_writer_factory(tmp_path / "s.txt"), runs_dir=runs_dir)
        await handle
        handle.cancel()
        await handle.wait()
        for _ in range(100):  # the worker thread's wait is cancelled too, so the adapter thread returns
            if not [t for t in threading.enumerate() if t.name.startswith("asyncio_") and t.is_alive()]:
                break
            await asyncio.sleep(0.02)
        return handle

    handle = asyncio.run(main())
    assert handle.status == "cancelled" and not (tmp_path / "s.txt").exists()
    assert not [t for t in threading.enumerate() if t.name.startswith("asyncio_") and t.is_alive()]


def test_idle_timeout_fails_the_episode_with_a_clear_reason(runs_dir):
    async def sleepy(task, ctx):
        ctx.emit("reason", {"text": "about to hang"})
        await asyncio.sleep(30)

    ep = noesis_nb.solve("hang", using=sleepy, runs_dir=runs_dir, idle_timeout_s=0.5)
    summary = read_json(runs_dir / ep / "summary.json")
    assert summary["status"] == "error" and summary["x-noesis_nb"]["reasons"] == ["idle_timeout"]
    terminate = next(e for e in read_events(runs_dir / ep / "events.jsonl") if e["phase"] == "terminate")
    assert "idle_timeout_s=0.5" in terminate["payload"]["message"]


def test_an_approver_at_work_is_no_idle_adapter(runs_dir, tmp_path):
    """An async approver asking a review service longer than ``idle_timeout_s`` is waited for, as a person is:
    the adapter is waiting on it, not hanging."""

    async def review_service(pending):
        await asyncio.sleep(1.5)
        return True

    ep = noesis_nb.solve(
        "slow review", using=make_writer(tmp_path / "o.txt"), runs_dir=runs_dir, approver=review_service, idle_timeout_s=0.5
    )
    assert read_json(runs_dir / ep / "summary.json")["status"] == "ok"
    assert (tmp_path / "o.txt").exists()


def test_cancel_seals_the_run_as_cancelled(runs_dir, tmp_path):
    async def main():
        handle = noesis_nb.start("long", using=make_writer(tmp_path / "o.txt"), runs_dir=runs_dir)
        await handle
        assert handle.cancel()
        for _ in range(100):
            if handle.done():
                break
            await asyncio.sleep(0.02)
        return handle

    handle = asyncio.run(main())
    assert handle.status == "cancelled"
    assert read_json(handle.run_dir / "final.json")["outcome"] == "cancelled"
    assert verify_manifest(handle.run_dir).ok
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(NothingToResume):
            noesis_nb.resume_run(handle.run_dir)


def test_await_after_approve_waits_for_the_continuation_and_cancel_clears_pending(runs_dir, tmp_path):
    out = tmp_path / "out.txt"

    async def main():
        handle = noesis_nb.start("again", using=make_writer(out), runs_dir=runs_dir)
        await handle
        handle.approve(approver_id="ana")
        assert handle.status == "running"  # decided on the loop thread: no stale "paused"
        await handle  # so this waits for the episode's end, not the old pause
        finished = handle.status
        other = noesis_nb.start("stop me", using=make_writer(tmp_path / "x.txt"), runs_dir=runs_dir)
        await other
        assert len(other.pending) == 1
        other.cancel()
        await other.wait()
        return finished, other

    finished, other = asyncio.run(main())
    assert finished == "ok" and out.exists()
    assert other.status == "cancelled" and other.pending == []


def test_two_concurrent_tool_calls_pause_separately_and_each_decision_reaches_its_call(runs_dir, tmp_path):
    async def agent(task, ctx):
        from .agents import write_argv

        async def call(name):
            try:
                await ctx.tool_async(
                    f"fs.{name}", {"argv": write_argv(tmp_path / f"{name}.txt", name)}, effect="write", risk="high"
                )
                return f"{name}: done"
            except ToolRejected as exc:
                return f"{name}: rejected ({exc.reason})"

        return await asyncio.gather(call("left"), call("right"))

    async def main():
        handle = noesis_nb.start("both", using=agent, runs_dir=runs_dir)
        await _until_pending(handle, 2)
        by_tool = {p.tool: p.draft_id for p in handle.pending}
        handle.reject(by_tool["fs.right"], reason="not that one")
        handle.approve(by_tool["fs.left"], approver_id="ana")
        await handle.wait()
        return handle

    handle = asyncio.run(main())
    assert handle.result() == ["left: done", "right: rejected (not that one)"]
    assert (tmp_path / "left.txt").exists() and not (tmp_path / "right.txt").exists()
    interrupts = [e for e in handle.events if e.get("event_type") == "run.interrupt"]
    pendings = {
        e["id"]: e["payload"]["draft_id"] for e in handle.events if e["payload"].get("event_name") == "tool.approval.pending"
    }
    # each pause is about one pending draft, every draft got one (paused again when the other pause came between)
    assert {pendings[i["caused_by"]] for i in interrupts} == set(pendings.values())


def test_solve_pauses_once_even_when_tool_calls_run_concurrently(runs_dir, tmp_path):
    async def agent(task, ctx):
        from .agents import write_argv

        return await asyncio.gather(
            *(ctx.tool_async(f"fs.{n}", {"argv": write_argv(tmp_path / n, n)}, effect="write", risk="high") for n in ("a", "b"))
        )

    from noesis_nb.errors import AmbiguousDraftError
    from noesis_nb.tools.errors import ApprovalDecisionRequiredError

    ep = noesis_nb.solve("two", using=agent, runs_dir=runs_dir)
    names = _names(runs_dir / ep)
    assert names.count("run.checkpoint") == 1 and names.count("run.interrupt") == 1
    # both drafts wait: a decision that names none is refused (it would decide one of them, unsaid)
    with pytest.raises(AmbiguousDraftError, match="waits on 2 drafts"):
        noesis_nb.approve_draft(ep, approver_id="ops", runs_dir=runs_dir)
    first = noesis_nb.approve_draft(ep, noesis_nb.tools_df(runs_dir)["draft_id"].iloc[0], approver_id="ops", runs_dir=runs_dir)
    # the other draft asked for approval too: the resume names it rather than drop it and seal success
    with pytest.raises(ApprovalDecisionRequiredError, match="has no decision yet") as undecided:
        noesis_nb.resume_run(ep, runs_dir=runs_dir)
    assert not any((tmp_path / n).exists() for n in ("a", "b"))  # nothing ran on the refusal
    other = next(d for d in noesis_nb.tools_df(runs_dir)["draft_id"] if d != first.draft_id and d in str(undecided.value))
    noesis_nb.approve_draft(ep, other, approver_id="ops", runs_dir=runs_dir)
    noesis_nb.resume_run(ep, runs_dir=runs_dir)
    assert read_json(runs_dir / ep / "final.json")["outcome"] == "success"
    assert all((tmp_path / n).exists() for n in ("a", "b"))  # both approved drafts ran, once


def test_deciding_a_sealed_run_says_there_is_nothing_to_decide(runs_dir):
    """It said "no draft is pending … Pass a draft id", which no draft id could satisfy."""
    from noesis_nb.tools import PreparedToolInvocationNotFoundError

    plain = noesis_nb.solve("x", using=lambda task, ctx: "ok", runs_dir=runs_dir)
    for decide in (noesis_nb.approve_draft, noesis_nb.reject_draft):
        with pytest.raises(PreparedToolInvocationNotFoundError, match=rf"run {plain} is sealed and it made no tool drafts"):
            decide(plain, approver_id="ops", runs_dir=runs_dir)

    def tooled(task, ctx):
        return ctx.tool("calc.double", {"kwargs": {"x": 2}}, fn=lambda x: 2 * x)

    used = noesis_nb.solve("x", using=tooled, runs_dir=runs_dir, approver="auto")
    with pytest.raises(PreparedToolInvocationNotFoundError, match=r"is sealed and its drafts \(draft:.*\) were decided or ended"):
        noesis_nb.approve_draft(used, approver_id="ops", runs_dir=runs_dir)


def test_resume_run_names_tools_of_the_wrong_kind_before_touching_the_run(runs_dir):
    from noesis_nb.errors import InvalidOptionError

    ep = noesis_nb.solve("x", using=lambda task, ctx: "ok", runs_dir=runs_dir)
    before = sorted((p.name, p.stat().st_mtime_ns) for p in (runs_dir / ep).iterdir())
    for tools in ([print], {"fs.write": "not callable"}, {1: print}):
        with pytest.raises(InvalidOptionError, match=r"tools=.*: pass a dict of tool name -> callable"):
            noesis_nb.resume_run(ep, runs_dir=runs_dir, tools=tools)
    assert sorted((p.name, p.stat().st_mtime_ns) for p in (runs_dir / ep).iterdir()) == before


def test_a_live_decision_the_other_way_after_the_first_warns_and_changes_nothing(runs_dir, tmp_path):
    out = tmp_path / "live.txt"

    async def main():
        handle = noesis_nb.start("live note", using=make_writer(out), runs_dir=runs_dir)
        await handle
        first = handle.reject(reason="not now", approver_id="ana")
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert not handle.reject(first.draft_id, reason="still no").created  # a second click: silent
        with pytest.warns(DecisionStands, match=rf"approve changed nothing: draft {first.draft_id} was already rejected by ana"):
            overruled = handle.approve(first.draft_id, approver_id="bob")
        with pytest.warns(DecisionStands, match="already rejected by ana"):
            noesis_nb.approve_draft(handle.episode_id, first.draft_id, approver_id="bob", runs_dir=runs_dir)  # to a live run
        await handle.wait()
        return overruled, handle

    overruled, handle = asyncio.run(main())
    assert overruled.status == "rejected" and not overruled.created and not out.exists()
    with pytest.warns(DecisionStands, match="already rejected by ana"):
        DiskRun(handle.run_dir).approve(overruled.draft_id, approver_id="carol")


def test_approving_an_episode_that_waits_for_nothing_names_it_and_its_status(runs_dir: Path) -> None:
    """``h.approve()`` while the agent still thinks (or after it ended) says which episode and what it is doing."""
    gate = asyncio.Event()

    async def thinking(task, ctx):
        await gate.wait()
        return "done"

    async def main() -> None:
        handle = noesis_nb.start("think", using=thinking, runs_dir=runs_dir)
        await asyncio.sleep(0.05)
        with pytest.raises(DraftNotFoundError) as info:
            handle.approve()
        said = str(info.value)
        assert handle.episode_id in said and "is running" in said and "paused" in said
        gate.set()
        await handle
        with pytest.raises(DraftNotFoundError, match=rf"{handle.episode_id} has ended \(ok\)"):
            handle.reject()

    asyncio.run(main())


def test_a_run_that_moves_on_while_a_view_reads_it_is_read_again(runs_dir, tmp_path, monkeypatch):
    """Another process finishes a paused run (decided, resumed, sealed) while a ``DiskRun`` reads its files: the
    next look sees the change. Taken after the read, the look passed the writes as read, and a batch that follows
    the run on disk (or an inbox) waited on a stale ``paused`` for ever."""
    import shutil

    import noesis_nb.runtime.diskrun as diskrun

    async def paused_then_sealed():
        handle = noesis_nb.start("note one", using=make_writer(tmp_path / "out.txt"), runs_dir=runs_dir)
        await handle
        shutil.copytree(handle.run_dir, tmp_path / "at-pause")
        handle.approve(handle.pending[0].draft_id)
        await handle.wait()
        return handle.run_dir

    sealed = asyncio.run(paused_then_sealed())
    run_dir = tmp_path / "followed" / sealed.name
    shutil.copytree(tmp_path / "at-pause", run_dir)
    read_state = diskrun.read_state

    def the_writer_moves_on(path):
        state = read_state(path)
        if not (run_dir / "manifest.json").exists():  # after the log was read: the other process seals the run
            shutil.copytree(sealed, run_dir, dirs_exist_ok=True)
        return state

    monkeypatch.setattr(diskrun, "read_state", the_writer_moves_on)
    run = DiskRun(run_dir)
    assert run.status == "paused"  # what the files said when they were read
    assert run.changed()
    time.sleep(0.05)  # the files just written settle: a look within their tick is not trusted
    run.refresh()
    assert run.status == "ok" and not run.changed()


def test_a_resume_whose_last_write_is_the_state_is_read_again(runs_dir, tmp_path, monkeypatch):
    """``run.resume`` is appended, then ``state.json`` leaves ``partial`` (``Recorder.resume_event``): a ``DiskRun``
    whose look fell between the two, and whose read saw the event but not the state, read ``paused``. The look did
    not stat ``state.json``, so nothing told it to read again: a resume that is cut off right there writes nothing
    after it, and a view (an inbox) said ``paused`` for ever of a run that runs. (``ns.resume`` is evidence only and
    leaves the run paused, its state untouched: the resume here is ``resume_run``'s first write.)"""
    import shutil

    import noesis_nb.runtime.diskrun as diskrun
    from noesis_nb.runtime.recorder import Recorder
    from noesis_nb.runtime.resume import find_checkpoint

    ep = noesis_nb.solve("x", using=make_writer(tmp_path / "o.txt"), runs_dir=runs_dir)  # pauses on its tool draft
    shutil.copytree(runs_dir / ep, tmp_path / "at-pause")
    checkpoint = [e for e in read_events(runs_dir / ep / "events.jsonl") if e.get("event_type") == "run.checkpoint"][-1]
    rec = Recorder.reopen(runs_dir / ep)  # resume_run's first write: run.resume, then the state leaves partial
    rec.resume_event(find_checkpoint(rec, checkpoint["payload"]["checkpoint_id"]), resumed_by="resume_run")
    rec.close_without_sealing()
    run_dir = tmp_path / "followed" / ep
    shutil.copytree(tmp_path / "at-pause", run_dir)
    shutil.copy2(runs_dir / ep / "events.jsonl", run_dir / "events.jsonl")  # the event: before the look
    read_state = diskrun.read_state

    def the_state_lands_after_the_read(path):
        state = read_state(path)
        shutil.copy2(runs_dir / ep / "state.json", run_dir / "state.json")  # the resume's last write
        return state

    change_stamp = diskrun.change_stamp

    def written_an_hour_ago(st):  # every stamp settled: only the state's new stamp can say the run changed
        size, mtime, ctime, *identity = change_stamp(st)  # (size, mtime, ctime, inode, device)
        return (size, mtime - 3_600 * 10**9, ctime - 3_600 * 10**9, *identity)

    monkeypatch.setattr(diskrun, "change_stamp", written_an_hour_ago)
    monkeypatch.setattr(diskrun, "read_state", the_state_lands_after_the_read)
    run = DiskRun(run_dir)
    assert run.status == "paused"  # what the files said when they were read
    monkeypatch.setattr(diskrun, "read_state", read_state)
    assert run.changed()
    writer = acquire(run_dir, note=False)  # the copy runs as its original does: a process holds it (else it reads lost)
    try:
        run.refresh()
        assert run.status == "running" and not run.changed()
    finally:
        writer.release()


def test_a_decision_renamed_in_within_the_tick_of_the_look_is_read_again(runs_dir, tmp_path, monkeypatch):
    """A decision is written as a temp file in ``tool_invocations/approvals/``, then renamed over its name. Where the
    file system stamps changes with a coarse clock (a few ms on Linux before multigrain timestamps), a look taken
    between the two, and a read that saw no decision, left the folder's (size, mtime, ctime) as the rename did: the
    run read as waiting for ever (a batch never resumed it). A stamp too recent to tell is read again."""
    import stat as stat_mod

    import noesis_nb.runtime.diskrun as diskrun

    ep = noesis_nb.solve("x", using=make_writer(tmp_path / "o.txt"), runs_dir=runs_dir)  # pauses on its tool draft
    run_dir = runs_dir / ep
    folder = run_dir / "tool_invocations" / "approvals"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / ".decision.tmp").write_text("{}")  # the decision's temp file: made before the look
    change_stamp, tick = diskrun.change_stamp, []

    def coarse(st):  # the folder's stamp as the file system gives it: one value from the look to the test's end
        if not stat_mod.S_ISDIR(st.st_mode):
            return change_stamp(st)
        # shaped as change_stamp's, so the settled rule judges this stamp (not only the run's other files, which solve
        # wrote a moment ago and which a loaded machine lets settle); stamped by a clock a minute ahead (a file
        # server's): too recent to tell however slowly the test gets from the look to the check
        tick[:] = tick or [time.time_ns() + 60_000_000_000]
        return 0, tick[0], tick[0], st.st_ino, st.st_dev

    monkeypatch.setattr(diskrun, "change_stamp", coarse)

    class RenamedInAfterTheRead(diskrun.PreparedInvocationRepository):  # read last, after the decisions
        def readable(self, problems):
            got = super().readable(problems)
            if (folder / ".decision.tmp").exists():
                (folder / ".decision.tmp").unlink()
                noesis_nb.approve_draft(ep, runs_dir=runs_dir, approver_id="ana")
            return got

    monkeypatch.setattr(diskrun, "PreparedInvocationRepository", RenamedInAfterTheRead)
    run = DiskRun(run_dir)
    assert run.status == "paused" and len(run.pending) == 1  # what the files said when they were read
    assert run.changed()
    run.refresh()
    assert run.pending == [] and run.can_resume
