"""Generated episodes: hypothesis writes an adapter's program, every run it leaves must be a valid Noēsis run.

A *program* is a list of steps an adapter performs through its ``ctx`` (events, model calls, tools of
every protocol / effect / risk / approval need / outcome, steers) and how it ends (return, raise, KeyboardInterrupt); it
is run by an async and by a sync adapter, through ``solve`` (decisions on disk, then ``resume_run`` in
this process) or ``start`` (decisions through the handle or ``approve_draft``), under approver
policies, governance modes and a cancel or graceful stop. Every run must then

- pass ``check_run`` (Noēsis' validators);
- load in ``runs_df``, ``events_df``, ``tools_df`` and ``usage_df`` with no problem in ``attrs["errors"]``;
- have summary and frame counts (model calls, tokens, tool calls and statuses, acts, steers) equal to those
  counted here from events.jsonl, and a handle status equal to its run's;
- be sealed exactly once (or, paused, not at all), with no event id used twice.

CI runs a fixed, derandomised sample (60 examples per test); ``NOESIS_NB_HUNT=400`` explores that many random
examples locally, and adds runs decided and resumed by another process.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import hypothesis
import pandas as pd
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import noesis_nb
from noesis_nb.errors import EpisodeInterrupted, EpisodeStateError, NoesisVeto, ToolRejected
from noesis_nb.tools import ToolExecutionFailedError

from .checker import check_run

HUNT = int(os.environ.get("NOESIS_NB_HUNT", "0"))
SETTINGS = settings(
    max_examples=HUNT or 60,
    deadline=None,
    derandomize=not HUNT,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large],
)
TOKENS = ("input_tokens", "output_tokens", "cached_input_tokens", "cache_write_input_tokens", "reasoning_tokens")
VETOED_TASK = "Wipe the staging database"  # the task governance vetoes (see tests/runtime/test_governance.py)


# -- python-protocol tools (module level: resume_run imports them) ----------------------------------
def py_ok(x: Any = None) -> dict[str, Any]:
    return {"echo": x}


def py_raise(x: Any = None) -> None:
    raise ValueError(f"python tool raised on {x!r}")


def py_slow(x: Any = None) -> Any:
    import time

    time.sleep(0.3)
    return x


# -- programs ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Tool:
    name: str
    protocol: str  # subprocess | python
    effect: str
    risk: str
    requires_approval: bool | None
    outcome: str  # ok | fail | slow (runs past a 100 ms timeout)
    idempotency_key: str | None
    catch: bool  # the adapter catches ToolRejected / ToolExecutionFailedError

    def call(self) -> tuple[dict[str, Any], dict[str, Any]]:
        options: dict[str, Any] = {"effect": self.effect, "risk": self.risk, "requires_approval": self.requires_approval}
        if self.idempotency_key is not None:
            options["idempotency_key"] = self.idempotency_key
        if self.outcome == "slow":
            options["timeout_ms"] = 100
        if self.protocol == "python":
            fn = {"ok": py_ok, "fail": py_raise, "slow": py_slow}[self.outcome]
            return {"args": [self.name], "kwargs": {}}, {**options, "protocol": "python", "fn": fn}
        code = {"ok": "print('ok')", "fail": "import sys; sys.exit(3)", "slow": "import time; time.sleep(0.3)"}[self.outcome]
        return {"argv": [sys.executable, "-c", code]}, options


@dataclass(frozen=True)
class Program:
    steps: tuple[tuple[Any, ...], ...]
    end: str  # "return" | "raise"

    def __repr__(self) -> str:  # short, for hypothesis' falsifying example
        return f"Program(steps={list(self.steps)!r}, end={self.end!r})"


payload_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6,
)
extra_payload = st.dictionaries(st.text(min_size=1, max_size=8), payload_values, max_size=3)


@st.composite
def emit_steps(draw: Any) -> tuple[Any, ...]:
    phase = draw(st.sampled_from(["reason", "note", "observe", "interpret", "plan", "reflect", "x-custom.phase", "model"]))
    payload = draw(extra_payload)
    if phase == "model":  # a model event of the adapter's own: a model.call (counted) or not, tokens of any JSON kind
        count = st.none() | st.integers(0, 100) | st.integers(-5, -1) | st.booleans() | st.floats(0, 10) | st.just(2**60)
        usage = draw(
            st.fixed_dictionaries({}, optional={"input_tokens": count, "output_tokens": count, "model": st.text(max_size=5)})
        )
        return ("emit", phase, {**payload, **usage, **draw(st.sampled_from([{}, {"event_name": "model.call"}]))})
    minima = {
        "observe": {"task": "t", "tags": [], "timestamp": "2026-01-01T00:00:00+00:00"},
        "interpret": {"signals": []},
        "plan": {"steps": ["a"]},
        "reflect": {"success": True},
    }
    return ("emit", phase, {**payload, **minima.get(phase, {})})


@st.composite
def model_steps(draw: Any) -> tuple[Any, ...]:
    count = st.none() | st.integers(0, 5000)
    input_tokens, output_tokens = draw(count), draw(count)
    cached = draw(st.none() | st.integers(0, input_tokens or 0))
    cache_write = draw(st.none() | st.integers(0, (input_tokens or 0) - (cached or 0)))
    reasoning = draw(st.none() | st.integers(0, output_tokens or 0))
    if input_tokens is None:
        cached = cache_write = None
    if output_tokens is None:
        reasoning = None
    kwargs = dict(
        provider=draw(st.sampled_from([None, "openai", "anthropic"])),
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        cached_input_tokens=cached,
        cache_write_input_tokens=cache_write,
        reasoning_tokens=reasoning,
    )
    return ("model", draw(st.sampled_from(["gpt-4o-mini", "claude-3-5-haiku", "m-x"])), kwargs)


tools = st.builds(
    Tool,
    name=st.sampled_from(["fs.read", "fs.write", "net.fetch", "db.drop@2"]),
    protocol=st.sampled_from(["subprocess", "python"]),
    effect=st.sampled_from(["read", "write"]),
    risk=st.sampled_from(["low", "medium", "high", "critical"]),
    requires_approval=st.sampled_from([None, True, True, False]),
    outcome=st.sampled_from(["ok", "ok", "fail", "slow"]),
    idempotency_key=st.sampled_from([None, None, "k1", "k2"]),
    catch=st.booleans(),
)
tool_steps = tools.map(lambda t: ("tool", t))
steps = st.one_of(
    tool_steps,
    emit_steps(),
    model_steps(),
    tool_steps,
    tool_steps,
    st.just(("steers",)),
    st.just(("wait_steer",)),
    st.just(("sleep",)),
    st.just(("long_sleep",)),
)
programs = st.builds(
    Program, steps=st.lists(steps, max_size=6).map(tuple), end=st.sampled_from(["return", "return", "raise", "interrupt"])
)


class Boom(RuntimeError):
    pass


def _plain_step(ctx: Any, step: tuple) -> bool:
    """Do a step that is the same from a sync and an async adapter; False for one that waits or calls a tool."""
    kind = step[0]
    if kind == "emit":
        ctx.emit(step[1], step[2])
    elif kind == "model":
        ctx.model_call(step[1], **step[2])
    elif kind == "steers":
        ctx.steers(at="between-rounds")
    else:
        return False
    return True


def _ending(program: Program) -> Any:
    """What the adapter returns, or raises, once its steps are done."""
    if program.end == "raise":
        raise Boom("the program ends by raising")
    if program.end == "interrupt":
        raise KeyboardInterrupt
    return {"steps": len(program.steps)}


_PAUSE_S = {"sleep": 0.02, "long_sleep": 0.25}


def async_adapter(program: Program) -> Any:
    async def agent(task: str, ctx: Any) -> Any:
        for step in program.steps:
            kind = step[0]
            if _plain_step(ctx, step):
                continue
            if kind == "tool":
                payload, options = step[1].call()
                try:
                    await ctx.tool_async(step[1].name, payload, **options)
                except (ToolRejected, ToolExecutionFailedError):
                    if not step[1].catch:
                        raise
            elif kind == "wait_steer":
                await ctx.next_steer_async(timeout=0.02)
            elif kind in _PAUSE_S:
                await asyncio.sleep(_PAUSE_S[kind])
        return _ending(program)

    return agent


def sync_adapter(program: Program) -> Any:
    def agent(task: str, ctx: Any) -> Any:
        import time

        for step in program.steps:
            kind = step[0]
            if _plain_step(ctx, step):
                continue
            if kind == "tool":
                payload, options = step[1].call()
                try:
                    ctx.tool(step[1].name, payload, **options)
                except (ToolRejected, ToolExecutionFailedError):
                    if not step[1].catch:
                        raise
            elif kind == "wait_steer":
                ctx.next_steer(timeout=0.02)
            elif kind in _PAUSE_S:
                time.sleep(_PAUSE_S[kind])
        return _ending(program)

    return agent


# -- how a program is run ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Driver:
    entry: str  # "solve" | "start"
    sync: bool
    task: str
    approver: str  # auto | deny | by-name | ask
    governance: str
    pause_on_veto: bool
    decisions: tuple[str, ...]  # for "ask": approve | reject | approve-api | reject-api, in order
    stop: str | None = None  # start only: cancel-early | cancel-paused | drain
    stop_after_s: float = 0.01
    steer: bool = False  # start only: send a steer right after starting
    idle_timeout_s: float | None = None


def by_name(pending: Any) -> bool:
    """A callable approver: approves reads and fetches, rejects the rest (by tool name)."""
    return pending.tool in {"fs.read", "net.fetch"}


drivers = st.builds(
    Driver,
    entry=st.sampled_from(["solve", "start"]),
    sync=st.booleans(),
    task=st.sampled_from(["Summarise the notes", "Summarise the notes", VETOED_TASK]),
    approver=st.sampled_from(["auto", "deny", "by-name", "ask"]),
    governance=st.sampled_from(["off", "audit", "enforce"]),
    pause_on_veto=st.booleans(),
    decisions=st.lists(st.sampled_from(["approve", "reject", "approve-api", "reject-api"]), max_size=4).map(tuple),
    stop=st.sampled_from([None, None, "cancel-early", "cancel-paused", "drain"]),
    stop_after_s=st.sampled_from([0.0, 0.01, 0.05, 0.2]),
    steer=st.booleans(),
    idle_timeout_s=st.sampled_from([None, None, 0.1]),
)


def _approver(name: str) -> Any:
    return by_name if name == "by-name" else name


def _solve(program: Program, driver: Driver, runs: Path) -> None:
    agent = (sync_adapter if driver.sync else async_adapter)(program)
    opts = dict(
        runs_dir=runs,
        approver=_approver(driver.approver),
        governance=driver.governance,
        pause_on_veto=driver.pause_on_veto,
        idle_timeout_s=driver.idle_timeout_s,
    )
    try:
        ep = noesis_nb.solve(driver.task, using=agent, **opts)
    except (NoesisVeto, EpisodeInterrupted, KeyboardInterrupt):  # the adapter's own KeyboardInterrupt, raised again
        return
    decisions = list(driver.decisions)
    for _ in range(8):  # decide on disk and resume in this process, while the run is paused
        run_dir = runs / ep
        if (run_dir / "final.json").exists():
            return
        choice = decisions.pop(0) if decisions else "approve"
        decide = noesis_nb.approve_draft if choice.startswith("approve") else noesis_nb.reject_draft
        try:
            decide(ep, approver_id="ana", runs_dir=runs)
        except EpisodeStateError:
            pass
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                noesis_nb.resume_run(ep, runs_dir=runs, using=agent)
            except (NoesisVeto, EpisodeInterrupted, KeyboardInterrupt):
                pass
    raise AssertionError(f"run {ep} still not sealed after 8 decide+resume rounds")


async def _start(program: Program, driver: Driver, runs: Path) -> None:
    agent = (sync_adapter if driver.sync else async_adapter)(program)
    handle = noesis_nb.start(
        driver.task,
        using=agent,
        runs_dir=runs,
        approver=_approver(driver.approver),
        governance=driver.governance,
        pause_on_veto=driver.pause_on_veto,
        idle_timeout_s=driver.idle_timeout_s,
    )
    if driver.steer and handle.can_steer:
        handle.steer("use staging", mode="between-rounds")
    if driver.stop == "cancel-early":
        await asyncio.sleep(driver.stop_after_s)
        handle.cancel()
    elif driver.stop == "drain":
        await asyncio.sleep(driver.stop_after_s)
        await handle.stop(drain_s=0.5)
    decisions = list(driver.decisions)
    HANDLES.append(handle)
    for _ in range(20):
        await handle
        if handle.done():
            return
        assert handle.status == "paused", handle.status
        if driver.stop == "cancel-paused":
            handle.cancel()
            await asyncio.wait_for(handle.wait(), 20)
            return
        if driver.stop == "drain" and not handle.drain_report:
            await asyncio.wait_for(handle.stop(drain_s=0.2), 20)
            continue
        choice = decisions.pop(0) if decisions else "approve"
        approve = choice.startswith("approve")
        if choice.endswith("-api"):
            (noesis_nb.approve_draft if approve else noesis_nb.reject_draft)(handle.run_dir, approver_id="ops")
        elif approve:
            handle.approve(approver_id="ana", reason="fine")
        else:
            handle.reject(reason="not now", approver_id="ana")
        await asyncio.sleep(0)
    raise AssertionError(f"{handle.episode_id} still {handle.status} after 20 decisions")


HANDLES: list[Any] = []  # the live handles of the example being judged


def _elsewhere(program: Program, driver: Driver, runs: Path) -> None:
    """Paused by ``solve``, then decided and resumed by another process each time (the kernel that paused it is gone)."""
    from .entrypoints import _second_process

    agent = (sync_adapter if driver.sync else async_adapter)(program)
    try:
        ep = noesis_nb.solve("Summarise the notes", using=agent, runs_dir=runs, approver="ask", governance=driver.governance)
    except EpisodeInterrupted:  # the program raised KeyboardInterrupt: sealed, nothing to decide
        return
    decisions = list(driver.decisions)
    for _ in range(8):
        if (runs / ep / "final.json").exists():
            return
        choice = decisions.pop(0) if decisions else "approve"
        decide = "approve_draft" if choice.startswith("approve") else "reject_draft"
        _second_process(
            "import warnings\nwarnings.simplefilter('ignore')\n"
            f"noesis_nb.{decide}({ep!r}, approver_id='ops', runs_dir={str(runs)!r})\n"
            f"noesis_nb.resume_run({ep!r}, runs_dir={str(runs)!r})"
        )
    raise AssertionError(f"run {ep} still not sealed after 8 decisions made elsewhere")


def run_program(program: Program, driver: Driver, root: Path) -> list[Path]:
    runs = root / "runs"
    if driver.entry == "elsewhere":
        _elsewhere(program, driver, runs)
    elif driver.entry == "solve":
        _solve(program, driver, runs)
    else:
        asyncio.run(asyncio.wait_for(_start(program, driver, runs), 60))
    return sorted(p for p in runs.iterdir() if (p / "events.jsonl").is_file())


# -- the oracle: everything counted here from events.jsonl ------------------------------------------
def _events(run: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run / "events.jsonl").read_text(encoding="utf-8").split("\n") if line.strip()]


def _token_total(calls: list[dict[str, Any]], key: str) -> int | None:
    """The sum when every call reported ``key``; no call at all totals 0 (nothing was spent), not unknown."""
    values = [c.get(key) for c in calls]
    return sum(values) if all(type(v) is int for v in values) else None


def _tool_statuses(events: list[dict[str, Any]]) -> dict[str, str]:
    """Each tool request's status from its events alone: how its execution ended, else the decision, else waiting."""
    names: dict[str, list[str]] = {}
    for e in events:
        if e["phase"] == "tool" and isinstance(e["payload"].get("request_id"), str):
            names.setdefault(e["payload"]["request_id"], []).append(e["payload"].get("event_name"))
    out = {}
    for request, seen in names.items():
        ended = [n for n in seen if n in _ENDED]
        if ended:
            out[request] = _ENDED[ended[-1]]
        else:
            decided = [n for n in seen if n in ("tool.approved", "tool.rejected.governance")]
            if decided:
                out[request] = "approved" if decided[-1] == "tool.approved" else "rejected"
            else:
                out[request] = "pending" if "tool.approval.pending" in seen else "prepared"
    return out


_ENDED = {
    "tool.execution.succeeded": "succeeded",
    "tool.execution.failed": "failed",
    "tool.replayed": "replayed",
    "tool.execution.outcome_unknown": "unknown",
}


def check_counts(run: Path) -> list[str]:
    """What the summary and the frames say of ``run`` that its events do not."""
    events = _events(run)
    problems: list[str] = []
    phases = [e["phase"] for e in events]
    calls = [e["payload"] for e in events if e["phase"] == "model" and e["payload"].get("event_name") == "model.call"]
    drafts = {
        e["payload"]["request_id"] for e in events if e["phase"] == "tool" and e["payload"].get("event_name") == "tool.requested"
    }
    ids = [e.get("id") for e in events]
    if len(set(ids)) != len(ids):  # not one of Noēsis' rules: its runs never repeat one, and caused_by needs them apart
        problems.append(f"{len(ids) - len(set(ids))} event id(s) used twice")
    sealed = (run / "manifest.json").exists()
    ends = phases.count("terminate")
    if sealed:
        if ends != 1 or phases.count("insight") != 1:
            problems.append(f"sealed with {ends} terminate and {phases.count('insight')} insight events")
        if not (run / "final.json").exists() or not (run / "summary.json").exists():
            problems.append("a manifest without final.json or summary.json")
    else:
        if ends or (run / "summary.json").exists() or (run / "final.json").exists():
            problems.append(f"not sealed but {ends} terminate events / a summary / a final")
        state = json.loads((run / "state.json").read_text())
        if state.get("outcomes", {}).get("status") != "partial":
            problems.append(f"unsealed run's state says {state.get('outcomes')}")
    if (run / "summary.json").exists():
        summary = json.loads((run / "summary.json").read_text())
        usage = summary.get("x-noesis_nb", {}).get("usage", {})
        if usage.get("model_calls") != len(calls):
            problems.append(f"summary model_calls {usage.get('model_calls')} != {len(calls)} model.call events")
        for key in TOKENS:
            if usage.get(key) != _token_total(calls, key):
                problems.append(f"summary {key} {usage.get(key)} != {_token_total(calls, key)} from events")
        if summary["metrics"]["act_count"] != phases.count("act"):
            problems.append(f"summary act_count {summary['metrics']['act_count']} != {phases.count('act')} act events")

    frames = {name: getattr(noesis_nb, name)(run) for name in ("runs_df", "events_df", "tools_df", "usage_df")}
    for name, df in frames.items():
        if df.attrs.get("errors"):
            problems.append(f"{name} errors: {df.attrs['errors']}")
    row = frames["runs_df"].iloc[0]
    if row["model_calls"] != len(calls):
        problems.append(f"runs_df model_calls {row['model_calls']} != {len(calls)}")
    if row["tool_calls"] != len(drafts):
        problems.append(f"runs_df tool_calls {row['tool_calls']} != {len(drafts)} drafts")
    if len(frames["events_df"]) != len(events):
        problems.append(f"events_df has {len(frames['events_df'])} rows for {len(events)} events")
    if len(frames["usage_df"]) != len(calls):
        problems.append(f"usage_df has {len(frames['usage_df'])} rows for {len(calls)} model calls")
    if len(frames["tools_df"]) != len(drafts):
        problems.append(f"tools_df has {len(frames['tools_df'])} rows for {len(drafts)} drafts")
    sent = {e["id"] for e in events if e["phase"] == "steer" and e["payload"].get("event_name") == "steer.sent"}
    applied = [e.get("caused_by") for e in events if e["phase"] == "steer" and e["payload"].get("event_name") == "steer.applied"]
    if len(applied) != len(set(applied)) or not set(applied) <= sent:
        problems.append(f"steer.applied events {applied} for steer.sent events {sorted(sent)}")
    statuses = {str(r["request_id"]): r["status"] for r in frames["tools_df"].to_dict("records")}
    for request, want in _tool_statuses(events).items():
        if statuses.get(request) != want:
            problems.append(f"tools_df status {statuses.get(request)!r} for {request}; its events say {want!r}")
    for key in TOKENS:
        want = _token_total(calls, key)
        got = None if pd.isna(row[key]) else int(row[key])
        if got != want:
            problems.append(f"runs_df {key} {got!r} != {want!r} from events")
    return problems


def _join_adapter_threads(timeout_s: float = 3.0) -> None:
    """Wait for sync adapters' threads a stopped episode left running: anything they write late must be judged too."""
    import threading
    import time

    end = time.monotonic() + timeout_s
    for thread in threading.enumerate():
        if thread.name.startswith("noesis_nb-adapter"):
            thread.join(max(0.0, end - time.monotonic()))


def judge(program: Program, driver: Driver, tmp: Path) -> None:
    HANDLES.clear()
    runs = run_program(program, driver, tmp)
    _join_adapter_threads()
    for handle in HANDLES:  # what the handle says is what its run says
        summary = handle.run_dir / "summary.json"
        said = json.loads(summary.read_text())["status"] if summary.exists() else "paused"
        assert handle.status == said, f"handle.status {handle.status!r}, its run {said!r}"
    assert runs, "no run written"
    found = {}
    for run in runs:
        final = json.loads((run / "final.json").read_text()) if (run / "final.json").exists() else {}
        names = {e["payload"].get("event_name") for e in _events(run) if e["phase"] == "tool"}
        hypothesis.event(f"{driver.entry} outcome={final.get('outcome', 'unsealed')}")
        if final.get("outcome") == "error":
            ends = [e["payload"].get("message") for e in _events(run) if e["phase"] == "terminate"]
            hypothesis.event(f"error: {str(ends)[:70]}")
        hypothesis.event(f"tool events: {' '.join(sorted(n.split('.', 1)[1] for n in names if n and n.startswith('tool.')))}")
        problems = [str(v) for v in check_run(run)] + check_counts(run)
        if problems:
            found[run.name] = problems
    assert not found, json.dumps(found, indent=1)


@pytest.fixture
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return lambda: tmp_path_factory.mktemp("gen")


PLAIN = Driver(
    entry="solve", sync=False, task="Summarise the notes", approver="auto", governance="off", pause_on_veto=False, decisions=()
)


@pytest.mark.timeout(600)
@SETTINGS
@given(program=programs, driver=drivers)
# a model event that is no model.call was counted as a call by the summary, not by usage_df
@example(program=Program(steps=(("emit", "model", {"input_tokens": 7}),), end="return"), driver=PLAIN)
# a model.call with a negative count: the summary summed -5, runs_df read it unknown (now refused when written)
@example(
    program=Program(steps=(("emit", "model", {"event_name": "model.call", "input_tokens": -5}),), end="return"), driver=PLAIN
)
# a sync adapter's tool cancelled while it runs (see the plain test below)
@example(
    program=Program(steps=(("tool", Tool("fs.write", "python", "read", "medium", None, "slow", "k1", False)),), end="return"),
    driver=Driver(
        entry="start",
        sync=True,
        task="Summarise the notes",
        approver="auto",
        governance="off",
        pause_on_veto=False,
        decisions=(),
        stop="cancel-early",
        stop_after_s=0.05,
    ),
)
def test_generated_episode(program: Program, driver: Driver, fresh: Any) -> None:
    judge(program, driver, fresh())


paused_drivers = st.builds(
    Driver,
    entry=st.sampled_from(["solve", "start", *(["elsewhere"] if HUNT else [])]),  # another process: slow, hunts only
    sync=st.booleans(),
    task=st.sampled_from(["Summarise the notes", VETOED_TASK, VETOED_TASK]),
    approver=st.just("ask"),
    governance=st.sampled_from(["audit", "enforce", "enforce"]),
    pause_on_veto=st.sampled_from([True, True, False]),
    decisions=st.lists(st.sampled_from(["approve", "reject", "approve-api", "reject-api"]), min_size=1, max_size=4).map(tuple),
    stop=st.sampled_from([None, None, None, "cancel-paused", "drain"]),
    stop_after_s=st.sampled_from([0.0, 0.05]),
    steer=st.booleans(),
)


@pytest.mark.timeout(600)
@SETTINGS
@given(program=programs, driver=paused_drivers)
def test_generated_episode_with_human_decisions(program: Program, driver: Driver, fresh: Any) -> None:
    """Episodes that wait for people: every tool draft and veto is decided by the handle, or on disk then resumed."""
    judge(program, driver, fresh())


# -- minimal cases the generator found ----------------------------------------------------------------
def _slow_tool_agent(task: str, ctx: Any) -> Any:
    return ctx.tool("fs.write", {"argv": [sys.executable, "-c", "import time; time.sleep(0.4)"]}, effect="write")


def test_cancel_while_a_sync_adapters_tool_runs_writes_nothing_after_the_seal(tmp_path: Path) -> None:
    """A sync adapter's ``ctx.tool`` runs as its own task on the loop: a cancel must stop it before the seal,
    or its execution record lands in the sealed run (manifest.files / manifest.complete)."""

    async def main() -> Any:
        handle = noesis_nb.start("Write a note", using=_slow_tool_agent, runs_dir=tmp_path, approver="auto")
        await asyncio.sleep(0.15)
        handle.cancel()
        await handle.wait()
        await asyncio.sleep(0.5)  # the tool's process has ended by now
        return handle

    handle = asyncio.run(main())
    assert handle.status == "cancelled"
    assert check_run(handle.run_dir) == []
    assert check_counts(handle.run_dir) == []


def test_summary_live_totals_and_usage_df_read_contradicting_counts_alike(tmp_path: Path) -> None:
    """An integration writes a model.call whose parts exceed its total (cached 20 of an input of 10): one rule for
    every path (``capture.usage.fitted_counts``) keeps the totals and writes the part that does not fit as unknown,
    and the summary (it sums them), runs_df and usage_df read the same counts."""

    def agent(task: str, ctx: Any) -> str:
        ctx.emit(
            "model", {"event_name": "model.call", "model": "m", "input_tokens": 10, "cached_input_tokens": 20, "output_tokens": 3}
        )
        ctx.model_call("m", input_tokens=5, output_tokens=2)
        return "done"

    ep = noesis_nb.solve("Summarise the notes", using=agent, runs_dir=tmp_path)
    usage = json.loads((tmp_path / ep / "summary.json").read_text())["x-noesis_nb"]["usage"]
    assert (usage["model_calls"], usage["input_tokens"], usage["cached_input_tokens"], usage["output_tokens"]) == (
        2,
        15,
        None,
        5,
    )
    row = noesis_nb.runs_df(tmp_path / ep).iloc[0]
    assert row["model_calls"] == 2 and row["input_tokens"] == 15 and row["output_tokens"] == 5
    calls = noesis_nb.usage_df(tmp_path / ep)
    assert list(calls["input_tokens"]) == [10, 5] and pd.isna(calls["cached_input_tokens"].iloc[0])
