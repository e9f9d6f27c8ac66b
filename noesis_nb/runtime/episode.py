"""One episode's life: phases, governance, the adapter call, pauses, cancellation, sealing.

The episode runs as a coroutine on one event loop. Sync adapters run in a worker thread so
the loop (and a live view on it) stays responsive. Pauses are on disk before anything waits.
"""

from __future__ import annotations

import asyncio
import inspect
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable

from .._jsonio import sha256_bytes
from ..errors import NoesisVeto
from ..store import now_iso
from .gate import ApprovalGate
from .governance import evaluate_rules
from .recorder import Recorder
from .resolve import Adapter

__all__ = ["Episode", "EpisodeOptions", "EpisodePaused"]


class EpisodePaused(BaseException):
    """Unwinds the adapter when the episode pauses and nobody waits in this process (``solve``)."""


@dataclass
class EpisodeOptions:
    task: str
    seed: int = 0
    tags: dict[str, Any] = field(default_factory=dict)
    governance: str = "off"
    failure_policy: str | None = None
    pause_on_veto: bool = False
    approver: Any = "ask"
    idle_timeout_s: float | None = None
    wait_for_human: bool = True
    decision_poll_s: float = 0.25


class Episode:
    """The running episode behind an :class:`EpisodeHandle` (status, result, gate, recorder)."""

    def __init__(self, adapter: Adapter | None, options: EpisodeOptions, recorder: Recorder):
        self.adapter = adapter
        self.options = options
        self.recorder = recorder
        self.gate = ApprovalGate(recorder.run_dir)
        self.status = "running"
        self.result: Any = None
        self.error: BaseException | None = None
        self.started_at = time.time()
        self.ended_at: float | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.settled = asyncio.Event()
        self.listeners: list[Callable[[Any], None]] = []
        self.governance = {"mode": options.governance, "failure_policy": options.failure_policy, "veto_count": 0, "would_veto_count": 0}
        self.busy_tools = 0
        self.cancel_requested = False
        self._veto_future: asyncio.Future[bool] | None = None
        self.pause_checkpoint: dict[str, Any] | None = None

    # -- status ---------------------------------------------------------------------------
    def set_status(self, status: str) -> None:
        self.status = status
        if status in {"ok", "error", "vetoed", "cancelled"}:
            self.ended_at = time.time()
            self.gate.close()
        if status == "running":
            self.settled.clear()
        else:
            self.settled.set()
        self.notify()

    def continue_after_decision(self) -> None:
        """A human decided: the episode is running again from now on, so ``await handle`` waits for what comes next.

        Called from the thread that decided; the status flips on the episode's loop (at once when
        that is this thread), before the woken episode itself says so.
        """
        loop = self.loop
        if loop is None or loop.is_closed():
            return

        def resume() -> None:
            if self.status == "paused" and not self.gate.pending:
                self.set_status("running")

        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            resume()
        else:
            loop.call_soon_threadsafe(resume)

    def notify(self) -> None:
        for callback in list(self.listeners):
            try:
                callback(self)
            except Exception:
                pass

    # -- the episode ----------------------------------------------------------------------
    async def run(self) -> None:
        self.loop = asyncio.get_running_loop()
        try:
            parent = self._prelude()
            if self.options.governance != "off":
                parent = await self._govern(parent)
                if parent is None:
                    return
            await self._act(parent)
        except EpisodePaused:
            self.recorder.close_without_sealing()
            self.set_status("paused")
        except asyncio.CancelledError:
            self._finish_cancelled()
            if not self.cancel_requested:
                raise
        except BaseException as exc:  # a bug in here must still leave a sealed, readable run
            if not self.recorder.closed:
                self.error = exc
                self._finish("error", f"{type(exc).__name__}: {exc}", ["runtime_error"])
            raise

    def _prelude(self) -> str:
        rec, task = self.recorder, self.options.task
        label = self.adapter.label if self.adapter else "core.minimal"
        rec.emit("start", {"task": task, "seed": self.options.seed, "using": label})
        observe = rec.emit("observe", {"task": task, "tags": self.options.tags, "timestamp": now_iso()})
        t = (now_iso(), time.perf_counter())
        interpret = rec.emit("interpret", {"signals": ["signal:ready"]}, caused_by=observe["id"], started=t)
        step = {"id": "step-1", "kind": "act", "description": f"Execute goal: {task[:200]}", "status": "pending"}
        t = (now_iso(), time.perf_counter())
        plan = rec.emit("plan", {"steps": [f"act:{step['description']}"], "step_records": [step], "rationale": "minimal planner",
                                 "source": "planner.minimal"}, agent_id="planner.minimal", caused_by=interpret["id"], started=t)
        rec.state["plan"] = {"steps": [step], "source": "planner.minimal", "updated_at": plan["timestamp"], "rationale": "minimal planner"}
        rec.persist_state()
        return plan["id"]

    async def _govern(self, parent: str) -> str | None:
        rec, opts = self.recorder, self.options
        candidate_id = str(uuid.uuid4())
        step = rec.state["plan"]["steps"][0]
        candidate = rec.emit("action_candidate", {
            "schema_version": "action_candidate/1.0.0", "action_candidate_id": candidate_id, "kind": "adapter",
            "payload": {"adapter_label": self.adapter.label if self.adapter else "core.minimal", "goal": opts.task,
                        "plan_step_id": step["id"], "plan_step_kind": step["kind"], "plan_step_description": step["description"]},
            "state_ref": "state.json", "state_hash": sha256_bytes((rec.run_dir / "state.json").read_bytes()),
            "redaction": {"mode": "none", "policy_id": None, "policy_version": None, "field_rules": []},
        }, caused_by=parent)
        decision = evaluate_rules([opts.task, step["description"]])
        enforced = opts.governance == "enforce" and decision.decision == "veto"
        failure_policy = opts.failure_policy or ("fail_closed" if opts.governance == "enforce" else "fail_open")
        payload = decision.payload(mode=opts.governance, enforced=enforced, failure_policy=failure_policy)
        gov = rec.emit("governance", payload, agent_id="governance.rules", faculty="governance", caused_by=candidate["id"])
        if decision.decision == "veto":
            self.governance["veto_count" if enforced else "would_veto_count"] += 1
        if not enforced:
            return gov["id"]
        if not opts.pause_on_veto:
            self.error = NoesisVeto(decision.message, rule_id=decision.rule_id, policy_id="governance.rules", enforced=True,
                                    governance_id=payload["governance_id"], action_candidate_id=candidate_id, episode_id=rec.episode_id)
            self._finish("vetoed", decision.message, [decision.rule_id])
            return None
        self.pause_checkpoint = rec.pause(f"{decision.message} Governance veto; awaiting approval", gov["id"])
        if not opts.wait_for_human:
            raise EpisodePaused
        self._veto_future = asyncio.get_running_loop().create_future()
        self.set_status("paused")
        override = await self._veto_future
        self._veto_future = None
        if not override:
            self.error = NoesisVeto(decision.message, rule_id=decision.rule_id, policy_id="governance.rules", enforced=True, episode_id=rec.episode_id)
            self._finish("vetoed", f"{decision.message} (veto upheld by a human)", [decision.rule_id, "veto_upheld"])
            return None
        resume = rec.resume_event(self.pause_checkpoint)
        self.set_status("running")
        return resume["id"]

    def decide_veto(self, override: bool, approver_id: str, reason: str | None) -> bool:
        """A human overrides (True) or upholds (False) a paused veto; thread-safe. False if nothing waits."""
        future, loop, checkpoint = self._veto_future, self.loop, self.pause_checkpoint
        if future is None or loop is None or checkpoint is None:
            return False
        write_veto_decision(self.recorder.run_dir, checkpoint["checkpoint_id"], override=override,
                            approver_id=approver_id, reason=reason)  # on disk before the episode goes on
        loop.call_soon_threadsafe(lambda: future.done() or future.set_result(override))
        return True

    async def _act(self, parent: str) -> None:
        from .context import EpisodeContext

        rec, opts = self.recorder, self.options
        assert self.adapter is not None
        ctx = EpisodeContext(self, caused_by=parent)
        started = (now_iso(), time.perf_counter())
        payload = self.adapter.prepare_input(opts.task)
        reasons: list[str]
        try:
            result = await self._call_adapter(payload, ctx)
        except EpisodePaused:
            raise
        except _IdleTimeout as exc:
            self.error = TimeoutError(str(exc))
            status, message, reasons, result = "error", str(exc), ["idle_timeout"], None
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self.error = exc
            status, message, reasons, result = "error", str(exc) or type(exc).__name__, ["adapter_error"], None
        else:
            self.result = result
            status, message, reasons = "ok", str(result)[:400], ["adapter_ok"]
        rec.secrets.observe(self.error if self.error is not None else result)  # learnt before any of it is written
        label = f"adapter:{self.adapter.label}"
        act_payload: dict[str, Any] = {"input_excerpt": opts.task[:120], "outcome": status, "result_status": status, "tool": label,
                                       "kind": "adapter", "action_id": "act-1", "step_id": "step-1",
                                       "step_status": "done" if status == "ok" else "failed", "reasons": reasons}
        if self.error is not None:
            act_payload["error"] = {"type": type(self.error).__name__, "message": str(self.error)[:2000]}
        act = rec.emit("act", act_payload, agent_id=label, caused_by=parent, started=started)
        rec.state["plan"]["steps"][0]["status"] = act_payload["step_status"]
        rec.state["outcomes"]["actions"].append({"id": "act-1", "kind": "adapter", "tool": label, "input_excerpt": opts.task[:120],
                                                 "result_status": status, "timestamp": act["timestamp"], "step_id": "step-1"})
        reflect = rec.emit("reflect", {"success": status == "ok", "reasons": reasons}, caused_by=parent)
        rec.emit("learn", {"learn_path": "learn.jsonl", "learn_schema": "learn/1.0", "proposal_ids": [], "proposal_count": 0,
                           "applied": False}, caused_by=reflect["id"])
        self._finish(status, message, reasons, result)

    async def _call_adapter(self, payload: Any, ctx: Any) -> Any:
        adapter = self.adapter
        assert adapter is not None
        if adapter.is_async:
            inner = asyncio.ensure_future(adapter.invoke(payload, ctx))
        else:
            inner = asyncio.ensure_future(asyncio.to_thread(adapter.invoke, payload, ctx))
        try:
            return await self._watch(inner)
        finally:
            if not inner.done():
                inner.cancel()

    async def _watch(self, inner: asyncio.Future[Any]) -> Any:
        limit = self.options.idle_timeout_s
        if not limit:
            return await _maybe_await(await inner)  # a sync callable may return a coroutine: await it here
        while True:
            done, _ = await asyncio.wait({inner}, timeout=min(limit, 0.25))
            if done:
                return await _maybe_await(inner.result())
            idle = time.monotonic() - self.recorder.last_activity
            if self.status == "paused" or self.busy_tools:
                self.recorder.touch()
            elif idle > limit:
                raise _IdleTimeout(f"the adapter neither emitted an event nor returned for {idle:.1f} s (idle_timeout_s={limit})")

    # -- endings --------------------------------------------------------------------------
    def _finish(self, status: str, message: str, reasons: list[str], result: Any = None) -> None:
        adapter_result = {"ok": "success", "error": "error"}.get(status, "skipped")
        self.recorder.finalize(status=status, message=message, reasons=reasons, result=result,
                               adapter_result=adapter_result, governance=self.governance)
        self.set_status(status)

    def _finish_cancelled(self) -> None:
        if self.recorder.closed:
            return
        self.error = asyncio.CancelledError("episode cancelled")
        self._finish("cancelled", "Episode cancelled by the user.", ["cancelled"])


def write_veto_decision(run_dir: Any, checkpoint_id: str, *, override: bool, approver_id: str, reason: str | None) -> None:
    """``checkpoints/<id>/decision.json``: a human overrode (or upheld) the veto that paused the run."""
    from pathlib import Path

    from .._jsonio import atomic_write_json

    atomic_write_json(Path(run_dir) / "checkpoints" / checkpoint_id / "decision.json",
                      {"checkpoint_id": checkpoint_id, "decision": "override" if override else "uphold",
                       "approver_id": approver_id, "reason": reason, "decided_at": now_iso()})


class _IdleTimeout(Exception):
    pass


async def _maybe_await(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value
