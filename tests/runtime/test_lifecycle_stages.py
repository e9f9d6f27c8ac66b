"""Every lifecycle call on a run in every stage a run on disk can be in.

Stages (real runs, real processes killed with SIGKILL): lost while it ran; paused through ``ns.interrupt``
(interrupted) and ``ns.checkpoint`` (paused on nothing); paused on a tool draft or on a governance veto, each also
after ``ns.resume`` (evidence only); lost mid-resume (``resume_run`` killed right after its ``run.resume``); sealed
ok, error, vetoed and cancelled; running live in another process. Each of ``ns.interrupt``, ``ns.checkpoint``,
``ns.resume``, ``resume_run``, ``approve_draft`` and ``reject_draft`` either does what Noēsis does or raises one
NoesisNbError naming the run's stage and the call to make, writing nothing; and whatever it did, the run is then
finished as it would have been without it (a decision aside), and passes Noēsis' validators.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb import ns
from noesis_nb.errors import AgentCancelled, EpisodeStateError, NoesisNbError, RunLifecycleTransitionError, RunSealedError
from noesis_nb.runtime.api import RunRecovered
from noesis_nb.runtime.resume import NothingToResume
from noesis_nb.store import read_events
from noesis_nb.tools import ApprovalDecisionRequiredError
from noesis_nb.tools.errors import PreparedToolInvocationNotFoundError
from tests.compat.checker import check_run
from tests.compat.entrypoints import REPO
from tests.compat.entrypoints_recovery import _killed

from .agents import make_writer

PLAIN = "tests.compat.entrypoints:plain_agent"

_RESUME_KILLED = textwrap.dedent(
    """
    import os, signal, sys
    from noesis_nb.runtime.recorder import Recorder
    real = Recorder.emit
    def emit(self, *args, **kwargs):  # kill -9 right after resume_run wrote its first event named sys.argv[2]
        event = real(self, *args, **kwargs)
        if sys.argv[2] in (event.get("event_type"), event.get("phase")):
            os.kill(os.getpid(), signal.SIGKILL)
        return event
    Recorder.emit = emit
    import noesis_nb
    noesis_nb.resume_run(sys.argv[1], using=sys.argv[3] if len(sys.argv) > 3 else None)
    """
)


def _resume_killed(run: Path, using: str | None, after: str = "run.resume") -> None:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    argv = [sys.executable, "-c", _RESUME_KILLED, str(run), after, *([using] if using else [])]
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == -signal.SIGKILL, done.stderr[-2000:]


def _cancelling(task: str) -> str:
    raise AgentCancelled("stopped by its agent")


def _failing(task: str) -> str:
    raise RuntimeError("the agent broke")


def _draft(runs: Path) -> Path:
    return runs / noesis_nb.solve("write a note", using=make_writer(runs.parent / "out.txt"), approver="ask", runs_dir=runs)


def _veto(runs: Path) -> Path:
    episode = noesis_nb.solve("Wipe the staging database", using=PLAIN, governance="enforce", pause_on_veto=True, runs_dir=runs)
    return runs / episode


def _checkpoints(run: Path) -> list[str]:
    return [e["payload"]["checkpoint_id"] for e in read_events(run / "events.jsonl") if e.get("event_type") == "run.checkpoint"]


def _ns_resumed(run: Path) -> Path:
    ns.set(runs_dir=str(run.parent))
    ns.resume(run.name, checkpoint_id=_checkpoints(run)[-1])
    return run


def _interrupted(run: Path) -> Path:
    ns.set(runs_dir=str(run.parent))
    ns.interrupt(run.name, reason="operator check")
    return run


def _ended(runs: Path, task: str, using: Any, **opts: Any) -> Path:
    try:
        noesis_nb.solve(task, using=using, runs_dir=runs, **opts)
    except NoesisNbError:
        pass  # a vetoed run says so
    (run,) = runs.iterdir()
    return run


def _lost_mid_resume(run: Path, using: str | None, after: str = "run.resume") -> Path:
    noesis_nb.approve_draft(run, approver_id="ana")
    _resume_killed(run, using, after)
    assert after in _names(run)[-1:]
    return run


def _killed_going_ahead(run: Path) -> Path:
    _resume_killed(run, PLAIN, "action_candidate")
    assert _names(run)[-2:] == ["run.resume", "action_candidate"]
    return run


#: how each stage is made in ``root`` (its run directory), and the outcome the run ends with once finished
STAGES: dict[str, tuple[Callable[[Path], Path], str]] = {
    "lost": (lambda root: _killed(root, "working"), "error"),
    "interrupted": (lambda root: _interrupted(_killed(root, "working")), "error"),
    "paused-on-nothing": (lambda root: ns.checkpoint(_interrupted(_killed(root, "working")).name) and _runs(root), "error"),
    "paused-on-draft": (lambda root: _draft(root / "runs"), "success"),
    "paused-on-veto": (lambda root: _veto(root / "runs"), "success"),
    "draft-after-ns.resume": (lambda root: _ns_resumed(_draft(root / "runs")), "success"),
    "veto-after-ns.resume": (lambda root: _ns_resumed(_veto(root / "runs")), "success"),
    "draft-lost-mid-resume": (lambda root: _lost_mid_resume(_draft(root / "runs"), None), "success"),
    "veto-lost-mid-resume": (lambda root: _lost_mid_resume(_veto(root / "runs"), PLAIN), "success"),
    # after ns.resume, resume_run writes no run.resume of its own: killed after its override's candidate
    "veto-after-ns.resume-lost-mid-resume": (
        lambda root: _lost_mid_resume(_ns_resumed(_veto(root / "runs")), PLAIN, "action_candidate"),
        "success",
    ),
    # the same with no decision recorded: resume_run with the adapter is the go-ahead, as in Noēsis
    "veto-after-ns.resume-go-ahead-lost": (
        lambda root: _killed_going_ahead(_ns_resumed(_veto(root / "runs"))),
        "success",
    ),
    "sealed-ok": (lambda root: _ended(root / "runs", "hello", PLAIN), "success"),
    "sealed-error": (lambda root: _ended(root / "runs", "hello", _failing), "error"),
    "sealed-vetoed": (lambda root: _ended(root / "runs", "Wipe the staging database", PLAIN, governance="enforce"), "vetoed"),
    "sealed-cancelled": (lambda root: _ended(root / "runs", "hello", _cancelling), "cancelled"),
}


def _runs(root: Path) -> Path:
    (run,) = (root / "runs").iterdir()
    return run


#: the stages that wait for a human decision (a draft's or a veto's)
WAITING = ("paused-on-draft", "paused-on-veto", "draft-after-ns.resume", "veto-after-ns.resume")


def _using(stage: str) -> str | None:
    return PLAIN if "veto" in stage else None


_SEALED = "sealed"  # every lifecycle call: RunSealedError
_STAGE_ERR = RunLifecycleTransitionError

#: what each call does in each stage: "did" (Noēsis' effect, checked below) or the error raised and what it says
DID = "did"
_NO_DRAFT = (PreparedToolInvocationNotFoundError, r"no draft waits for a decision.*resume_run\(")


def _decisions(outcome: Any) -> dict[str, Any]:
    """approve and reject, both with ``outcome``."""
    return {"approve": outcome, "reject": outcome}


def _refused_alike(error: type[Exception], says: str) -> dict[str, Any]:
    """interrupt, checkpoint and resume, each refused with ``error`` saying ``says``."""
    return {call: (error, says) for call in ("interrupt", "checkpoint", "resume")}


EXPECTED: dict[str, dict[str, Any]] = {
    "lost": {
        "interrupt": DID,
        "checkpoint": DID,
        "resume": (_STAGE_ERR, r"is running: its process stopped.*ns\.interrupt\(.*ns\.checkpoint\(.*resume_run\("),
        "resume_run": DID,
        **_decisions((PreparedToolInvocationNotFoundError, r"is lost.*resume_run\(")),
    },
    "interrupted": {
        "interrupt": (_STAGE_ERR, r"is interrupted \(ns\.interrupt\), with no checkpoint since.*ns\.checkpoint\("),
        "checkpoint": DID,
        "resume": (_STAGE_ERR, r"is interrupted.*ns\.checkpoint\(.*resume_run\("),
        "resume_run": DID,
        **_decisions(_NO_DRAFT),
    },
    "paused-on-nothing": {
        "interrupt": (_STAGE_ERR, r"already paused at a checkpoint \(through ns\.interrupt and ns\.checkpoint\).*resume_run\("),
        "checkpoint": (_STAGE_ERR, r"already paused at a checkpoint.*already binds it.*resume_run\("),
        "resume": DID,
        "resume_run": DID,
        **_decisions(_NO_DRAFT),
    },
    "paused-on-draft": {
        "interrupt": (_STAGE_ERR, r"already paused at a checkpoint on draft .*approve_draft\(.*resume_run\("),
        "checkpoint": (_STAGE_ERR, r"on draft .*already binds it.*approve_draft\(.*resume_run\("),
        "resume": DID,
        "resume_run": (ApprovalDecisionRequiredError, r"has no decision yet.*approve_draft\("),
        **_decisions(DID),
    },
    "paused-on-veto": {
        "interrupt": (_STAGE_ERR, r"on a governance veto.*approve_draft\(.*resume_run\(.*using="),
        "checkpoint": (_STAGE_ERR, r"on a governance veto.*already binds it.*approve_draft\("),
        "resume": DID,
        "resume_run": DID,  # with its adapter and no decision: the go-ahead, as in Noēsis
        **_decisions(DID),
    },
    "draft-after-ns.resume": {
        "interrupt": (_STAGE_ERR, r"is still paused on draft .*evidence only.*approve_draft\(.*resume_run\("),
        "checkpoint": (_STAGE_ERR, r"is still paused on draft .*already binds it.*resume_run\("),
        "resume": (_STAGE_ERR, r"is still paused on draft .*evidence only.*approve_draft\(.*resume_run\("),
        "resume_run": (ApprovalDecisionRequiredError, r"has no decision yet.*approve_draft\("),
        **_decisions(DID),
    },
    "veto-after-ns.resume": {
        "interrupt": (_STAGE_ERR, r"is still paused on a governance veto.*evidence only.*approve_draft\("),
        "checkpoint": (_STAGE_ERR, r"is still paused on a governance veto.*already binds it.*resume_run\("),
        "resume": (_STAGE_ERR, r"is still paused on a governance veto.*evidence only.*reject_draft\("),
        "resume_run": DID,
        **_decisions(DID),
    },
    # lost mid-resume: approve and reject give back the approval given before the resume (a rejection changes nothing)
    "draft-lost-mid-resume": {
        **_refused_alike(_STAGE_ERR, r"was being resumed from checkpoint .*lost mid-resume.*resume_run\("),
        "resume_run": DID,
        **_decisions(DID),
    },
    "veto-lost-mid-resume": {
        **_refused_alike(_STAGE_ERR, r"lost mid-resume.*resume_run\("),
        "resume_run": DID,
        **_decisions(DID),
    },
}
EXPECTED["veto-after-ns.resume-lost-mid-resume"] = EXPECTED["veto-lost-mid-resume"]
EXPECTED["veto-after-ns.resume-go-ahead-lost"] = {
    **EXPECTED["veto-lost-mid-resume"],
    # the go-ahead was taken: no decision can be made any more (an uphold now would end vetoed a run that went on)
    **_decisions((EpisodeStateError, r"resume_run resumed with no decision recorded.*resume_run\(.*using=")),
}
for _sealed in ("sealed-ok", "sealed-error", "sealed-vetoed", "sealed-cancelled"):
    EXPECTED[_sealed] = {
        **_refused_alike(RunSealedError, r"is sealed"),
        "resume_run": DID,  # changes nothing, and says so
        **_decisions((NoesisNbError, r"sealed|ended")),
    }

CALLS: dict[str, Callable[[Path, str], Any]] = {
    "interrupt": lambda run, stage: ns.interrupt(run.name, reason="look again"),
    "checkpoint": lambda run, stage: ns.checkpoint(run.name),
    "resume": lambda run, stage: ns.resume(run.name, checkpoint_id=(_checkpoints(run) or ["chk_000000000000"])[-1]),
    "resume_run": lambda run, stage: noesis_nb.resume_run(run, using=_using(stage)),
    "approve": lambda run, stage: noesis_nb.approve_draft(run, approver_id="ops"),
    "reject": lambda run, stage: noesis_nb.reject_draft(run, approver_id="ops"),
}


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Path]:
    """Each stage's run, made once per module (on first use, inside a test's settings) and copied for each call."""
    runs: dict[str, Path] = {}

    def make(stage: str) -> Path:
        if stage not in runs:
            runs[stage] = STAGES[stage][0](tmp_path_factory.mktemp(stage.replace(".", "-")))
        return runs[stage]

    return make


def _tree(run: Path) -> dict[str, bytes]:
    return {str(p.relative_to(run)): p.read_bytes() for p in sorted(run.rglob("*")) if p.is_file() and p.name != ".owner.lock"}


def _finish(run: Path, stage: str) -> str:
    """Decide what the run still waits on (approve), continue it, and give its outcome."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            noesis_nb.approve_draft(run, approver_id="fin")
        except NoesisNbError:
            pass  # nothing waits for a decision
        noesis_nb.resume_run(run, using=_using(stage))
    assert (run / "manifest.json").is_file(), f"run {run.name} is not sealed"
    return str(json.loads((run / "final.json").read_bytes())["outcome"])


def _names(run: Path) -> list[str]:
    return [e.get("event_type") or e["payload"].get("event_name") or e["phase"] for e in read_events(run / "events.jsonl")]


def _check_did(stage: str, call: str, run: Path, before: dict[str, bytes], got: Any, said: list[str]) -> None:
    """What Noēsis' call does, seen on disk."""
    if call in ("interrupt", "checkpoint", "resume"):
        kind = {"interrupt": "run.interrupt", "checkpoint": "run.checkpoint", "resume": "run.resume"}[call]
        last = read_events(run / "events.jsonl")[-1]
        assert last["event_type"] == kind and (call == "checkpoint" or last["id"] == got)
    elif call == "resume_run":
        if stage.startswith("sealed"):
            assert _tree(run) == before and any("already sealed" in s for s in said)
        else:
            assert (run / "manifest.json").is_file()
            if stage in ("lost", "interrupted", "paused-on-nothing"):
                assert any("sealed as error" in s for s in said)
    else:  # a decision: made now, or the one made before given back
        assert got.status == ("approved" if call == "approve" or "mid-resume" in stage else "rejected")
        assert got.created is not ("mid-resume" in stage)


@pytest.mark.parametrize("call", list(CALLS))
@pytest.mark.parametrize("stage", list(STAGES))
def test_each_lifecycle_call_in_each_stage(made: Callable[[str], Path], tmp_path: Path, stage: str, call: str) -> None:
    run = tmp_path / "runs" / made(stage).name
    shutil.copytree(made(stage), run, symlinks=True)
    ns.set(runs_dir=str(run.parent))
    before = _tree(run)
    expected = EXPECTED[stage][call]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if expected == DID:
            got = CALLS[call](run, stage)
        else:
            error, says = expected
            with pytest.raises(error, match=says) as raised:
                CALLS[call](run, stage)
            assert isinstance(raised.value, NoesisNbError)
            assert _tree(run) == before  # refused before anything was written
    if expected == DID:
        _check_did(stage, call, run, before, got, [str(w.message) for w in caught])
    decided = call == "reject" and stage in WAITING  # a rejection ends the run vetoed; elsewhere it changes nothing
    assert _finish(run, stage) == ("vetoed" if decided else STAGES[stage][1])
    if "draft" in stage:  # the approved tool ran once (or, rejected, never)
        ran = _names(run).count("tool.execution.succeeded")
        assert ran == (0 if decided else 1)
    assert check_run(run) == []


_LIVE = textwrap.dedent(
    """
    import asyncio, os, sys
    from pathlib import Path
    import noesis_nb

    async def working(task, ctx):
        Path(sys.argv[2] + ".tmp").write_text(ctx.episode_id)
        os.replace(sys.argv[2] + ".tmp", sys.argv[2])  # whole when seen: never an empty flag read as the root
        await asyncio.sleep(60)

    noesis_nb.solve("work a while", using=working, runs_dir=sys.argv[1])
    """
)


def test_each_lifecycle_call_on_a_run_live_in_another_process(runs_dir: Path, tmp_path: Path) -> None:
    """A run another process writes: every call refuses or changes nothing, saying who writes it; once that process
    is killed, resume_run seals the run (lost) and it passes the validators."""
    flag = tmp_path / "flag.txt"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    child = subprocess.Popen([sys.executable, "-c", _LIVE, str(runs_dir), str(flag)], env=env, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while not flag.exists() and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert flag.exists(), child.stderr.read() if child.stderr else ""
        run = runs_dir / flag.read_text()
        ns.set(runs_dir=str(runs_dir))
        before = _tree(run)
        for call in ("interrupt", "checkpoint", "resume"):
            with pytest.raises(EpisodeStateError, match=f"run {run.name} is being written by .*continues there"):
                CALLS[call](run, "live")
        with pytest.warns(NothingToResume, match="being written by"):
            noesis_nb.resume_run(run)
        for call in ("approve", "reject"):
            with pytest.raises(PreparedToolInvocationNotFoundError, match="is running in the process that writes it"):
                CALLS[call](run, "live")
        assert _tree(run) == before
    finally:
        child.kill()
        child.wait(10)
        if child.stderr:
            child.stderr.close()
    with pytest.warns(RunRecovered, match="sealed as error"):
        noesis_nb.resume_run(run)
    assert check_run(run) == []


@pytest.mark.parametrize("override", [True, False], ids=["override", "uphold"])
def test_a_veto_pause_after_ns_resume_is_still_decided_and_resumed(runs_dir: Path, override: bool) -> None:
    """``ns.resume`` writes evidence only: the veto still waits for its human, in the view as through the calls
    (it was told "already resumed", and nothing could uphold it). The override re-runs the adapter; an uphold seals
    the run vetoed, the adapter never run."""
    from noesis_nb.runtime.diskrun import DiskRun

    run = _ns_resumed(_veto(runs_dir))
    view = DiskRun(run, using=PLAIN)
    assert view.status == "paused" and view.paused_on_veto and not view.can_resume
    decision = view.approve(approver_id="lead") if override else view.reject(approver_id="lead")
    assert decision.created and decision.status == ("approved" if override else "rejected")
    assert view.can_resume
    view.resume()
    assert json.loads((run / "final.json").read_bytes())["outcome"] == ("success" if override else "vetoed")
    acts = [e for e in read_events(run / "events.jsonl") if e["phase"] == "act"]
    assert len(acts) == (1 if override else 0)
    assert check_run(run) == []
