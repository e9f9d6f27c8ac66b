"""One episode's life: phases, governance, the adapter call, pauses, cancellation, sealing.

The episode runs as a coroutine on one event loop. Sync adapters run on a thread of their own
so the loop (and a live view on it) stays responsive. Pauses are on disk before anything
waits; the run is owned by this episode until it is sealed or left paused on disk.
"""

from __future__ import annotations

import asyncio
import decimal
import inspect
import math
import numbers
import threading
import time
import warnings
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from .._jsonio import bounded_jsonable
from .._safetext import error_text, safe_repr, safe_str
from .._threads import one_call_at_a_time, run_in_thread, thread_bound_hint
from .._unstarted import to_await
from ..capture import episode_capture, resolve_option
from ..errors import (
    WRITE_REFUSALS,
    AgentCancelled,
    DecisionFileError,
    EpisodeStopping,
    NoesisVeto,
    RunSealedError,
    RunWriteError,
    ToolRejected,
    refusal_fix,
    refusal_fixed,
    refused_write,
)
from ..secrets import SCAN_MARGIN, shown_cut
from ..secrets.quoted import quoted
from ..store import now_iso, read_final
from ..store.instants import epoch_seconds
from ..store.sealing import seal_state
from ..store.vocab import TERMINAL_STATUSES, TOKEN_FIELDS
from . import lifecycle
from .context import EpisodeContext
from .drain import Drain, InFlight
from .flights import LeftRunning
from .gate import ApprovalGate
from .governance import effective_failure_policy, evaluate_rules
from .handedout import HandedOut
from .interrupt import held_interrupts
from .lifecycle import Outcome
from .openpause import open_pause
from .outcomes import ANSWER_LIMIT, HeldExit, being_cancelled, exits_held, held_exits, is_exit, not_a_value
from .pause import EpisodePaused, PauseTurns
from .recorder import Recorder
from .refusals import refusal_event, run_refusal
from .resolve import Adapter
from .steer import SteerBox
from .stubborn import STOP_GRACE_S, Stoppable, forced_line, left_unread, stop_in_background, stop_task
from .vetoes import read_veto_decision, write_veto_decision

__all__ = ["Episode", "EpisodeOptions", "EpisodePaused", "AdapterFailedWhilePaused", "ADAPTER_ERROR_WHILE_PAUSED"]


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
    # record the adapter's openai/anthropic SDK calls and GenAI spans (``noesis_nb.capture``); default: $NOESIS_NB_CAPTURE
    capture: bool = field(default_factory=lambda: resolve_option(None))
    # a callable (task, result) -> number | bool, sync or async: recorded as summary.metrics.score when the adapter returns
    score: Callable[[str, Any], Any] | None = None
    # seconds the scorer may take before the episode seals without a score (``score_error`` says so); None: no limit
    score_timeout_s: float | None = None
    inputs: dict[str, Any] = field(default_factory=dict)  # the task's own inputs (a batch's dict tasks): ``ctx.inputs``


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
        # the run's start as its state records it (what ``summary.duration_sec`` counts from): one clock per run
        self.started_at = epoch_seconds(recorder.state["episode"].get("started_at")) or time.time()
        self.ended_at: float | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.settled = asyncio.Event()
        self.listeners: list[Callable[[Any], None]] = []
        self.busy_tools = 0
        self.cancel_requested = False
        self.candidate: dict[str, Any] | None = None  # the adapter's action candidate event
        self.problems: list[str] = []  # what went wrong around the episode without ending it (a bad decision file…)
        self._veto_future: asyncio.Future[dict[str, Any]] | None = None
        self.pause_checkpoint: dict[str, Any] | None = None
        self.pause_turns = PauseTurns()  # tool drafts pause one at a time (``pause``)
        self._started = False  # the run's ``start`` event written (``_write_start``)
        self._new_run = adapter is not None  # a resumed run is made without its adapter: its start is written already
        self._start_lock = threading.Lock()
        self.steers = SteerBox(recorder, before_first=self._write_start if adapter is not None else None)
        self.drain: Drain | None = None  # a graceful stop under way (``begin_drain``)
        self.in_flight: list[InFlight] = []  # tool and model calls started and not finished
        self.left_running = LeftRunning()  # those on the loop, ended (waited for or cancelled) when the adapter ends
        self._pausing = False  # the adapter unwound to a pause (``EpisodePaused``): the run stays paused on disk
        self.thread_calls: set[asyncio.Future[Any]] = set()  # loop tasks a sync adapter's thread waits on (ctx.tool)
        self.handed_out = HandedOut()  # ctx.tool_async coroutines not started yet (a forgotten await)
        self._flight_lock = threading.Lock()
        self.score: float | bool | None = None
        self.score_error: str | None = None  # why the scorer gave no score (raised, odd value, timed out)
        # the first write of the run's own files the system refused (a tool draft, an approval, a tool's record…):
        # however the adapter takes it, the episode ends unsealed with it (``_ended_by_refusal``)
        self.write_refused: RunWriteError | None = None
        # KeyboardInterrupt/SystemExit from the adapter: raised again once the run is sealed when the caller awaits
        # the episode itself (solve); a background episode (start) keeps it on its handle, so the loop lives on
        self.reraise_exits = True

    # -- status ---------------------------------------------------------------------------
    def set_status(self, status: str) -> None:
        self.status = status
        if status in TERMINAL_STATUSES:
            clock = self.recorder.writer.clock  # an imported run ends at its recorded end, as its events say
            self.ended_at = clock.at / 1e6 if clock is not None and clock.at is not None else time.time()
            self.gate.close()
            self.steers.close()
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
            if self.status == "paused" and not self.gate.pending and not self.recorder.closed:
                self.set_status("running")

        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            resume()
        else:
            loop.call_soon_threadsafe(resume)

    def notify(self, skip: Callable[[Any], None] | None = None) -> None:
        """Call each listener (``skip``: the one whose own failure is being said, not called again for it)."""
        if not self.recorder.owner.here:  # a forked child: the views listening are the parent's (its kernel's sockets)
            return
        for callback in list(self.listeners):
            if callback is skip:
                continue
            try:
                callback(self)
            except Exception:
                pass

    def report(self, problem: str, skip: Callable[[Any], None] | None = None) -> None:
        """Something a person should know that does not end the episode (shown by the view, kept on the handle).

        Said from another thread (a subscriber failing on an adapter's thread), the listeners are called on the
        episode's loop, not on that thread; ``skip`` is a listener not called for this problem (its own failure).
        """
        if problem in self.problems:
            return
        self.problems.append(problem)
        loop = self.loop
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if loop is None or loop.is_closed() or running is loop:
            self.notify(skip)
        else:
            try:
                loop.call_soon_threadsafe(self.notify, skip)
            except RuntimeError:  # the loop closed meanwhile: nobody is listening there any more
                pass

    # -- calls in flight, and the graceful stop -------------------------------------------------
    def start_call(self, kind: str, name: str) -> InFlight:
        """A tool or model call starts now; while draining it is refused (``EpisodeStopping``, recorded) instead."""
        with self._flight_lock:
            if self.drain is not None:
                raise self.drain.refuse(kind, name)
            call = InFlight(kind, name)
            loop = self.loop
            if loop is not None and asyncio.events._get_running_loop() is loop:  # a call of a task on the episode's
                self.left_running.track(call, loop)  # loop: refused (CancelledError) once the adapter has ended
            self.in_flight.append(call)
            return call

    def end_call(self, call: InFlight, row: dict[str, Any] | Callable[..., dict[str, Any]], *args: Any) -> None:
        """The call ended; ``row`` (its status and usage, or a function making it from ``args``) goes to a drain in progress."""
        with self._flight_lock:
            if call in self.in_flight:
                self.in_flight.remove(call)
            drain = self.drain
        if call.tracked:  # (a sync adapter's thread's call never was: nothing waits for it there)
            self.left_running.ended(call)
        if drain is not None:
            drain.finished(call, row(*args) if callable(row) else row)

    def model_started(self, provider: str, model: str | None) -> InFlight:  # the capture scope's watcher
        # (``start_call``'s work, made here: one Python call fewer on every captured call's path)
        with self._flight_lock:
            if self.drain is not None:
                raise self.drain.refuse("model", f"{provider}:{model or '?'}")
            call = InFlight("model", f"{provider}:{model or '?'}")
            loop = self.loop
            if loop is not None and asyncio.events._get_running_loop() is loop:
                self.left_running.track(call, loop)
            self.in_flight.append(call)
            return call

    def model_ended(self, call: InFlight, payload: dict[str, Any], event_id: str | None) -> None:
        # (``end_call``'s work, made here: one call fewer a captured call); the row is made only while a drain watches
        with self._flight_lock:
            if call in self.in_flight:
                self.in_flight.remove(call)
            drain = self.drain
        if call.tracked:
            self.left_running.ended(call)
        if drain is not None:
            drain.finished(call, _model_row(payload, event_id))

    def begin_drain(self, drain_s: float, sender: str, task: asyncio.Future[Any]) -> Drain:
        """Stop gracefully (from any thread): nothing new starts; in-flight calls get ``drain_s`` seconds, then cancel.

        A stop right after ``start()`` returned comes before the episode's first step: the run's ``start`` is written
        first, so ``drain.started`` does not open the log (every reader takes its first line for the run's head).
        When either write fails, the stop still happens, at once (a drain the log cannot record is no graceful stop),
        and the write's error is raised to say why it was not graceful."""
        try:
            if self._new_run:
                self._write_start()
            with self._flight_lock:
                if self.drain is not None:
                    return self.drain
                self.drain = drain = Drain(self.recorder, drain_s, sender, list(self.in_flight))
        except Exception as exc:
            self._cancel_at_once(task)
            exc.add_note("the episode was stopped at once instead: its log refused the write of its drain")
            raise
        self.notify()  # views show "Stop now" and hide the steer box
        loop = self.loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(lambda: loop.create_task(self._drain_then_cancel(drain, task)))
        return drain

    def _cancel_at_once(self, task: asyncio.Future[Any]) -> None:
        loop = self.loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(task.cancel)

    async def _drain_then_cancel(self, drain: Drain, task: asyncio.Future[Any]) -> None:
        drain.close(await drain.wait())
        if not task.done():
            task.cancel()

    # -- the episode ----------------------------------------------------------------------
    async def run(self) -> None:
        self.loop = asyncio.get_running_loop()
        try:
            parent = self._prelude()
            self.candidate = lifecycle.adapter_candidate(
                self.recorder, label=self.label, task=self.options.task, caused_by=parent
            )
            act_parent: str | None = self.candidate["id"]
            if self.options.governance != "off":
                act_parent = await self._govern(self.candidate)
                if act_parent is None:
                    return
            await self.act(act_parent)
        except EpisodePaused:
            self.recorder.close_without_sealing()
            if self.options.wait_for_human:  # a live adapter ended while its run waits for a person (``_pause_swallowed``)
                self._end_paused_calls()
            self.set_status("paused")
            if self.reraise_exits and is_exit(self.error):
                raise self.error from None  # type: ignore[misc]  # the adapter's own exit, after its pause is on disk
        except RunSealedError as exc:
            self._stand_down(exc)
        except (asyncio.CancelledError, KeyboardInterrupt) as stop:
            # a KeyboardInterrupt here landed on the loop thread in the episode's own steps (an adapter's comes held,
            # sealed ``error`` by ``act``): no handler of asyncio.run's made Ctrl-C a cancellation (a loop nest_asyncio
            # patched, a second Ctrl-C). The caller's interrupt as a cancellation is: sealed ``cancelled``, raised on
            if (self.status == "paused" or self._pausing) and not self.cancel_requested and not self.recorder.closed:
                # cancelled while it waits for a decision (or unwinds to its pause), by no stop anyone asked for: its
                # loop is going away (a script's asyncio.run ending, Ctrl-C). The pause stays on disk, decided and
                # resumed later as any other
                self.recorder.close_without_sealing()
                if self.status != "paused":
                    self.set_status("paused")
                raise
            self._finish_cancelled()
            if not self.cancel_requested or isinstance(stop, KeyboardInterrupt):
                raise
        except BaseException as exc:  # a bug in here must still leave a sealed, readable run
            if not self.recorder.closed:
                self.error = exc
                try:
                    self.finish(Outcome("error", f"{type(exc).__name__}: {error_text(exc, 400)}", ["runtime_error"]))
                except RunSealedError as sealed:
                    self._stand_down(sealed)
                except RunWriteError as unsealed:  # one error, not the same refusal twice
                    raise unsealed from (None if isinstance(exc, RunWriteError) else exc)
            raise

    def _end_paused_calls(self) -> None:
        """The live adapter ended with its run paused on disk: the tool calls it left awaiting a decision (or their
        turn to pause) are cancelled, as nothing in this process continues the run; their drafts stay pending on disk
        and in the handle, where a decision is written for ``resume_run``."""
        self.pause_turns.cancel_waiting()
        self.gate.detach()
        waiting = ", ".join(p.draft_id for p in self.gate.pending) or "its draft"
        self.report(
            f"the adapter {self.label} ended while its run was paused for approval ({waiting}): the run stays paused "
            f"on disk; decide (handle.approve / approve_draft), then resume_run({quoted(self.recorder.episode_id)})"
        )

    @property
    def ended_paused(self) -> bool:
        """The episode has ended with its run paused on disk: nothing in this process continues it (``resume_run``)."""
        return self.status == "paused" and self.recorder.closed

    @property
    def label(self) -> str:
        return self.adapter.label if self.adapter else "core.minimal"

    def _write_start(self) -> None:
        """Write the run's ``start`` event, once: the episode's first step, or a steer sent before it (which
        would otherwise come first in the log, before the event every reader takes for the run's head)."""
        with self._start_lock:
            if self._started:
                return
            self.recorder.emit("start", {"task": self.options.task, "seed": self.options.seed, "using": self.label})
            self._started = True
            # the run's start is this event (the recorder stamps it so): the live view counts from it too
            self.started_at = epoch_seconds(self.recorder.state["episode"].get("started_at")) or self.started_at

    def _prelude(self) -> str:
        rec, task = self.recorder, self.options.task
        self._write_start()
        observe = rec.emit("observe", {"task": task, "tags": self.options.tags, "timestamp": now_iso()})
        t = (now_iso(), time.perf_counter())
        interpret = rec.emit("interpret", {"signals": ["signal:ready"]}, caused_by=observe["id"], started=t)
        step = {"id": "step-1", "kind": "act", "description": f"Execute goal: {shown_cut(task, 200)}", "status": "pending"}
        t = (now_iso(), time.perf_counter())
        plan = rec.emit(
            "plan",
            {
                "steps": [f"act:{step['description']}"],
                "step_records": [step],
                "rationale": "minimal planner",
                "source": "planner.minimal",
            },
            agent_id="planner.minimal",
            caused_by=interpret["id"],
            started=t,
        )
        rec.state["plan"] = {
            "steps": [step],
            "source": "planner.minimal",
            "updated_at": plan["timestamp"],
            "rationale": "minimal planner",
        }
        rec.persist_state()
        return str(plan["id"])

    async def _govern(self, candidate: dict[str, Any]) -> str | None:
        """The governance event (caused by the candidate); None when the episode ended on a veto."""
        rec, opts = self.recorder, self.options
        candidate_id = candidate["payload"]["action_candidate_id"]
        step = rec.state["plan"]["steps"][0]
        decision = evaluate_rules([opts.task, step["description"]])
        enforced = opts.governance == "enforce" and decision.decision == "veto"
        failure_policy = effective_failure_policy(opts.governance, opts.failure_policy) or "fail_open"
        payload = decision.payload(mode=opts.governance, enforced=enforced, failure_policy=failure_policy)
        gov = rec.emit("governance", payload, agent_id="governance.rules", faculty="governance", caused_by=candidate["id"])
        if not enforced:
            return str(gov["id"])
        veto = NoesisVeto(
            decision.message,
            rule_id=decision.rule_id,
            policy_id="governance.rules",
            enforced=True,
            governance_id=payload["governance_id"],
            action_candidate_id=candidate_id,
            episode_id=rec.episode_id,
        )
        if not opts.pause_on_veto:
            self.error = veto
            self.finish(Outcome("vetoed", decision.message, [decision.rule_id]))
            return None
        self.pause_checkpoint = rec.pause(f"{decision.message} Governance veto; awaiting approval", gov["id"])
        if not opts.wait_for_human:
            raise EpisodePaused
        self._veto_future = asyncio.get_running_loop().create_future()
        self.set_status("paused")
        decided = await self._wait_for_veto_decision(self._veto_future, self.pause_checkpoint["checkpoint_id"])
        self._veto_future = None
        resume = rec.resume_event(self.pause_checkpoint)
        if decided.get("decision") != "override":
            self.error = veto
            self.finish(
                Outcome(
                    "vetoed",
                    f"{decision.message} (veto upheld by {decided.get('approver_id')})",
                    [decision.rule_id, "veto_upheld"],
                )
            )
            return None
        self.candidate, allow = lifecycle.override_veto(
            rec,
            label=self.label,
            task=opts.task,
            vetoed=gov,
            approver_id=str(decided.get("approver_id")),
            reason=decided.get("reason"),
            caused_by=resume["id"],
        )
        self.set_status("running")
        return str(allow["id"])

    async def _wait_for_veto_decision(self, future: asyncio.Future[dict[str, Any]], checkpoint_id: str) -> dict[str, Any]:
        """Wait for a click/handle decision, or a ``decision.json`` another process wrote; returns that record."""
        found = await self.await_decision(future, lambda: read_veto_decision(self.recorder.run_dir, checkpoint_id))
        return future.result() if future.done() else found

    async def await_decision(self, future: asyncio.Future[Any], poll: Callable[[], Any]) -> Any:
        """Wait for ``future`` (a click, a handle call) while looking at the disk every ``decision_poll_s``.

        ``poll()`` returns a decision another process wrote (the wait ends with it) or None. A malformed
        decision file is reported (``handle.problems``, the view) and the wait goes on; a run sealed on
        disk by another program ends it with RunSealedError.
        """
        while True:
            try:
                return await asyncio.wait_for(asyncio.shield(future), timeout=self.options.decision_poll_s)
            except TimeoutError:
                if self.recorder.writer.check_disk():
                    raise RunSealedError(
                        f"run {self.recorder.episode_id} was sealed on disk by another program while "
                        "it waited for a decision; this episode stops writing"
                    ) from None
                try:
                    found = poll()
                except DecisionFileError as exc:
                    self.report(f"{exc} Still waiting for a decision.")
                    continue
                if found is not None:
                    return found

    def decide_veto(self, override: bool, approver_id: str, reason: str | None) -> bool:
        """A human overrides (True) or upholds (False) a paused veto; thread-safe. False if nothing waits."""
        future, loop, checkpoint = self._veto_future, self.loop, self.pause_checkpoint
        if future is None or loop is None or checkpoint is None:
            return False
        record, _ = write_veto_decision(
            self.recorder.run_dir, checkpoint["checkpoint_id"], override=override, approver_id=approver_id, reason=reason
        )  # on disk before the episode goes on
        try:
            loop.call_soon_threadsafe(_settle_once, future, record)  # the first decision wins
        except RuntimeError:  # its loop has ended (the pause outlived it): the decision is on disk for resume_run
            pass
        return True

    async def act(self, parent: str | None) -> None:
        """Run the adapter, then close the episode with its act and seal it."""

        rec, opts = self.recorder, self.options
        assert self.adapter is not None
        ctx = EpisodeContext(self, caused_by=parent)
        started = (now_iso(), time.perf_counter())
        since = len(rec.events)
        reasons: list[str]
        own_exit = False  # an exit the adapter raised (held), not a KeyboardInterrupt landing on the loop thread
        mapper_failed = False  # its input mapper raised: the adapter's error, raised to the caller too once sealed
        try:
            try:
                try:
                    payload = await self._input()
                except BaseException:
                    mapper_failed = True
                    raise
                result = await self._call_adapter(payload, ctx)
            except HeldExit as held:
                own_exit = True
                raise held.exit from None
        except (EpisodePaused, asyncio.CancelledError, RunSealedError):
            raise
        except _MapperCancelled as exc:  # the input mapper's own CancelledError (nobody cancelled the episode)
            self.error = exc.original
            status, message, reasons, result = "error", _error_message(exc.original), ["adapter_error"], None
        except _IdleTimeout as exc:
            self.error = TimeoutError(str(exc))
            status, message, reasons, result = "error", str(exc), ["idle_timeout"], None
        except AgentCancelled as exc:  # the agent stopped its own run (no stop asked here): sealed cancelled, its words
            self.error = exc
            status, message, reasons, result = "cancelled", _error_message(exc), ["agent_cancelled"], None
        except ToolRejected as exc:  # a person (or the approver policy) said no and the agent let it end the run: as
            # resume_run seals a rejected draft from disk, the run is vetoed, not an adapter error
            self.error = exc
            status, message, reasons, result = "vetoed", _error_message(exc), ["tool_rejected"], None
        except BaseException as exc:  # any exception class: GeneratorExit, a BaseException of the adapter's own…
            if isinstance(exc, KeyboardInterrupt) and not own_exit:  # Ctrl-C landing in the episode's own steps on
                raise  # the loop thread: the caller's interrupt, never the adapter's (``run``)
            self.error = exc
            status, message, reasons, result = "error", _error_message(exc), ["adapter_error"], None
        else:
            self.result = result
            status, message, reasons = "ok", safe_str(result, 400), ["adapter_ok"]
        refused = self.write_refused or run_refusal(self.error, rec.run_dir)
        if refused is not None:  # the run could not be written, not the adapter's error: left unsealed, resumable
            raise self._ended_by_refusal(refused)
        if self.drain is not None:  # the adapter ended while the episode drained: it ends cancelled
            self.drain.close("settled")
            raise asyncio.CancelledError("the episode stopped after draining")
        score = await self._score(result) if status == "ok" and opts.score is not None else None
        # learnt before any of it is written (only what is written: a huge result is cut first)
        rec.secrets.observe(self.error if self.error is not None else bounded_jsonable(result, ANSWER_LIMIT))
        lifecycle.close_act(
            rec,
            status=status,
            reasons=reasons,
            candidate=self.candidate,
            caused_by=parent,
            started=started,
            error=self.error,
            since=since,
        )
        self._note_unheard()
        self.finish(Outcome(status, message, reasons, result, score=score, score_error=self.score_error))
        if self.reraise_exits and is_exit(self.error):
            raise self.error  # type: ignore[misc]  # the caller's own stop (Ctrl-C, sys.exit), after the seal
        if mapper_failed and self.error is not None and not is_exit(self.error):
            raise self.error  # as the input mapper raised it (its own CancelledError too), after the seal

    def _note_unheard(self) -> None:
        """Steers still queued when the adapter returned never reached the agent: said in the run
        (``steer.unheard``) and on the handle, not left reading as sent and still to come."""
        for steer in self.steers.unheard():
            self.report(
                f"steer {steer.steer_id} was never heard: the adapter {self.label} returned without taking it "
                "(it takes steers only at points it asks for them, e.g. an AG-UI run after an interrupt)"
            )

    async def _input(self) -> Any:
        """The adapter's input: the task, or what its ``__noesis_input_mapper__`` makes of it. The mapper's exits come
        held and its ``CancelledError`` as ``_MapperCancelled``: as the adapter's own, they are its failure."""
        task, mapper = self.options.task, self.adapter.input_mapper if self.adapter is not None else None
        if mapper is None:
            return task
        try:
            if inspect.iscoroutinefunction(mapper):  # runs on the loop
                return await held_exits(mapper(task))
            # the user's mapper may block (a lookup building the agent's input): on a thread, the loop runs on;
            # one call at a time (a batch's episodes share it), as on the loop
            return await run_in_thread(
                exits_held(mapper), task, name=f"noesis_nb-input-{self.label}", lock=one_call_at_a_time(mapper)
            )
        except asyncio.CancelledError as exc:
            if self._cancelled_itself():
                raise
            raise _MapperCancelled(exc) from None
        except HeldExit:
            raise
        except Exception as exc:
            hinted = thread_bound_hint(exc, "the input mapper")
            if hinted is None:
                raise
            raise hinted from exc

    async def _score(self, result: Any) -> float | bool | None:
        """The scorer's verdict on ``result`` (a number or bool); a failing, odd or hung scorer is reported
        (``score_error``), never fatal: the episode seals with its result either way."""
        scorer, limit = self.options.score, self.options.score_timeout_s
        assert scorer is not None
        task_text = self.options.task

        async def call() -> Any:  # made inside the task: a scorer that fails on being called (a wrong signature) is a score error
            # its exits held (``HeldExit``): raised out of its task they would stop the loop, and they are its failure
            if inspect.iscoroutinefunction(scorer):
                return await held_exits(scorer(task_text, result))
            called = run_in_thread(exits_held(scorer), task_text, result, name="noesis_nb-score")
            return await held_exits(_maybe_await_in(called))

        stoppable = Stoppable(call())
        task = asyncio.ensure_future(stoppable.run())
        try:
            # asyncio.wait, not wait_for: a scorer that swallows its cancellation cannot hold the episode either
            done, _ = await asyncio.wait({task}, timeout=limit)
        except asyncio.CancelledError:
            stop_in_background(task, stoppable, f"the scorer {_name(scorer)}", self.report)
            raise
        if not done:
            # an async scorer stops (closed if it ignores that); a sync scorer's thread cannot be stopped and runs on,
            # its result dropped
            stop_in_background(task, stoppable, f"the scorer {_name(scorer)}", self.report)
            self._no_score(
                f"score({quoted(self.options.task, 60)}, result) did not return within score_timeout_s={limit:g} s; "
                "no score recorded (the run is sealed with its result). Make the scorer faster, or pass a larger "
                "score_timeout_s (None: no limit)"
            )
            return None
        try:
            value = task.result()
        except BaseException as exc:
            if is_exit(exc) or (isinstance(exc, asyncio.CancelledError) and self._cancelled_itself()):
                raise  # a bare exit is Ctrl-C landing on the loop thread (the scorer's own come held)
            if isinstance(exc, HeldExit):
                exc = exc.exit
            said = shown_cut(error_text(exc, 200 + SCAN_MARGIN), 200)  # redacted, then cut: no secret's head stays
            self._no_score(  # the scorer's CancelledError (it awaited a task another cancelled) is its failure too
                f"score({quoted(self.options.task, 60)}, result) raised {type(exc).__name__}"
                f"{': ' + said if said else ''}; no score recorded"
            )
            return None
        score = _as_score(value)
        if score is not None:
            self.score = score
            return score
        self._no_score(f"score returned {safe_repr(value, 80)}; return a finite number or a bool (no score recorded)")
        return None

    def _cancelled_itself(self) -> bool:
        """Whether this episode is being cancelled (its task, or ``handle.cancel()``): a ``CancelledError`` then is
        the stop; otherwise it is what the user code that raised it (a scorer awaiting a cancelled task) ended with."""
        return self.cancel_requested or being_cancelled()

    def _no_score(self, problem: str) -> None:
        self.score_error = problem
        self.report(problem)

    async def _call_adapter(self, payload: Any, ctx: Any) -> Any:
        adapter = self.adapter
        assert adapter is not None

        # the adapter's task or thread copies this context: its model calls are this episode's, nobody else's
        with episode_capture(self.recorder.episode_id, ctx.emit_captured, self.options.capture) as scope:
            if scope is not None:
                scope.watcher = self  # in-flight model calls are known; a draining episode refuses new ones
                scope.learn = self.recorder.secrets.learn  # the SDK clients' keys
            if adapter.is_async:
                stoppable = Stoppable(held_exits(adapter.invoke(payload, ctx)))
            else:
                # its exits held on its thread: a KeyboardInterrupt out of the await is the loop thread's (Ctrl-C)
                call = run_in_thread(exits_held(adapter.invoke), payload, ctx, name=f"noesis_nb-adapter-{self.label}")
                stoppable = Stoppable(call)
            inner = asyncio.ensure_future(stoppable.run())
            leaving: BaseException | None = None
            try:
                result = await self._watch(inner)
                if self._pause_swallowed(None):
                    raise EpisodePaused
                self.handed_out.check()  # before the result counts: a tool it meant to run never ran
                return result
            except BaseException as exc:
                leaving = exc
                if isinstance(exc, KeyboardInterrupt):  # never the adapter's (its own comes held): Ctrl-C landing
                    # on the loop thread. One its task's step took was raised out of the loop to its caller by that
                    # step already: here it stops the episode; one landing in this task's steps goes on up (``run``)
                    if inner.done() and not inner.cancelled() and inner.exception() is exc:
                        raise asyncio.CancelledError("the interrupt landed as the adapter ran") from None
                    raise
                if self._pause_swallowed(exc):
                    leaving = EpisodePaused()
                    raise leaving from None
                raise
            finally:
                if not inner.done() and await stop_task(inner, stoppable):  # cancelled: bounded, however the adapter takes it
                    self.report(forced_line(f"the adapter {self.label}"))
                self._late_ending(left_unread(inner, leaving))
                await self._end_left_running(leaving)
                await self._stop_thread_calls()
                self.handed_out.close()

    def _pause_swallowed(self, ended: BaseException | None) -> bool:
        """Whether the adapter ended (returned: ``ended`` None, or raised it) while its run is paused on disk for a
        person: it caught ``EpisodePaused`` (``asyncio.gather(..., return_exceptions=True)``, ``asyncio.wait``) and
        went on. The episode then ends paused as if the pause had unwound it; an exit the adapter raised is kept
        (``self.error``), raised again once the pause is left on disk. A cancellation keeps its own way (``run``)."""
        if isinstance(ended, (EpisodePaused, asyncio.CancelledError)) or self.pause_checkpoint is None:
            return False
        if isinstance(ended, (RunSealedError, RunWriteError)) or (ended is not None and refused_write(ended)):
            return False  # the run refused the adapter (sealed by another, removed, its disk full): no pause to keep
        if open_pause(self.recorder.lifecycle_events) is None:
            return False
        run_dir = self.recorder.run_dir
        if seal_state(run_dir).closed or not run_dir.is_dir():
            return False  # sealed by another process meanwhile (the episode stands down, ``_stand_down``), or removed
        self._keep_ending(ended)
        return True

    def _keep_ending(self, ended: BaseException | None) -> None:
        """Keep what the adapter that left its run paused raised: an exit (raised again once the pause is on disk),
        an error (said and written, ``_failed_while_paused``)."""
        if isinstance(ended, HeldExit):
            self.error = ended.exit
        elif is_exit(ended):
            self.error = ended
        elif isinstance(ended, Exception):
            self._failed_while_paused(ended)

    def _failed_while_paused(self, exc: Exception) -> None:
        """The adapter raised ``exc`` after it took its run's pause: the run still ends paused (its drafts are a
        person's to decide), but the error is not lost: it is said (``handle.problems``, a warning under ``solve``)
        and written in the run (an ``error`` event, ``adapter_error``), so ``resume_run`` seals the run ``error``
        once the decided drafts have run."""
        shown = shown_cut(error_text(exc, 200 + SCAN_MARGIN), 200)  # redacted, then cut: no secret's head stays
        said = (
            f"the adapter {self.label} raised {type(exc).__name__} after its run paused for approval: {shown}; the run "
            f"stays paused, and resume_run({quoted(self.recorder.episode_id)}) seals it error (adapter_error) once "
            "its drafts are decided and continued"
        )
        try:
            self.recorder.emit(
                "error",
                {
                    "error": {"type": type(exc).__name__, "message": error_text(exc, 2000)},
                    "reason_code": ADAPTER_ERROR_WHILE_PAUSED,
                    "reason": said,
                },
            )
        except Exception as failed:  # the log refused it: the error is still said
            said += f" (writing it in the run failed: {type(failed).__name__})"
        self.report(said)
        if not self.options.wait_for_human:  # ``solve``: no handle shows its problems
            warnings.warn(said, AdapterFailedWhilePaused, stacklevel=2)

    def _late_ending(self, ended: BaseException | None) -> None:
        """How the adapter ended after the episode stopped watching it (cancelled, drained): a call a drain refused
        is expected (written as ``drain.refused``); anything else is said, as the episode no longer records it."""
        if ended is None or isinstance(ended, (EpisodeStopping, asyncio.CancelledError, KeyboardInterrupt)):
            return  # a bare KeyboardInterrupt is never the adapter's (its own comes held): Ctrl-C on the loop thread
        shown = shown_cut(error_text(ended, 200 + SCAN_MARGIN), 200)  # redacted, then cut: no secret's head stays
        self.report(f"the adapter {self.label} raised {type(ended).__name__} after the episode stopped: {shown}")

    async def _end_left_running(self, leaving: BaseException | None) -> None:
        """End the tool and model calls the adapter left running (``flights``) before anything is paused or sealed:
        after a pause, an error or a result each is waited for and recorded as it ended; after a stop (a cancel, an
        interrupt, an exit) each is cancelled, and a tool cut off is recorded outcome unknown. An adapter that ended
        while a drain runs leaves them the drain's time left, as it gives the calls in flight."""
        self._pausing = isinstance(leaving, EpisodePaused)
        drain = self.drain
        stop = isinstance(leaving, (asyncio.CancelledError, HeldExit)) or is_exit(leaving)
        stop = stop or (self.cancel_requested and drain is None)
        limit = None if drain is None else max(0.0, drain.started + drain.drain_s - time.monotonic())
        stuck = await self.left_running.settle(stop=stop, limit_s=limit)
        for name in stuck:
            self.report(
                f"the call {quoted(name, 80)} went on for {STOP_GRACE_S:g} s after it was cancelled (it catches "
                "asyncio.CancelledError without re-raising it); the episode ended without it, its end unrecorded"
            )

    async def on_loop_for_thread(self, make: Callable[[], Awaitable[Any]]) -> Any:
        """Run ``make()`` for a sync adapter's thread (``ctx.tool``) as a task this episode cancels and waits
        for when it stops: otherwise a cancelled episode would be sealed while the tool goes on writing its
        records into the sealed run."""
        task = asyncio.current_task()
        assert task is not None
        self.thread_calls.add(task)
        try:
            return await make()  # made here, on the loop: a loop that stopped first leaves no coroutine unawaited
        finally:
            self.thread_calls.discard(task)

    async def _stop_thread_calls(self) -> None:
        """Cancel the tool calls a sync adapter's thread left running, and wait until they have unwound."""
        calls = [call for call in self.thread_calls if not call.done()]
        for call in calls:
            call.cancel()
        if calls:
            await asyncio.wait(calls)

    async def _watch(self, inner: asyncio.Future[Any]) -> Any:
        limit = self.options.idle_timeout_s
        if not limit:  # asyncio.wait, not await: a cancel reaches this episode even if the adapter swallows its own
            await asyncio.wait({inner})
            return not_a_value(await _maybe_await(inner.result()))  # a sync callable may return a coroutine: awaited
        while True:
            done, _ = await asyncio.wait({inner}, timeout=min(limit, 0.25))
            if done:
                return not_a_value(await _maybe_await(inner.result()))
            idle = time.monotonic() - self.recorder.last_activity
            if self.status == "paused" or self.busy_tools:
                self.recorder.touch()
            elif idle > limit:
                raise _IdleTimeout(f"the adapter neither emitted an event nor returned for {idle:.1f} s (idle_timeout_s={limit})")

    # -- endings --------------------------------------------------------------------------
    def finish(self, outcome: Outcome) -> None:
        """Seal the run with ``outcome`` and report the final status. A Ctrl-C landing meanwhile is held until the
        seal's writes are done, then raised: cut between two of them, the run would read ``lost`` with all its
        events written."""
        with held_interrupts(carried=False) as held:
            try:
                lifecycle.seal(self.recorder, outcome)
            except RunWriteError as exc:
                raise self._left_unsealed(exc) from None
            except OSError as exc:
                if not refused_write(exc):
                    self._let_go(exc)
                    raise
                refused = RunWriteError.of(exc.filename or self.recorder.run_dir, exc)
                raise self._left_unsealed(refused) from None
            except BaseException as exc:
                self._let_go(exc)
                raise
        self.set_status(outcome.status)
        held.deliver()  # the caller's interrupt, now that the run is sealed

    def _let_go(self, exc: BaseException) -> None:
        """The seal failed in a way nobody foresaw (or found a seal document no writer makes): the run is given up
        as it stands (it reads ``lost`` and ``resume_run`` seals it), never held by this process until it exits;
        the episode ends ``error`` with ``exc``, so whoever awaits it is told."""
        try:
            self.recorder.close_without_sealing()
        except Exception:
            pass
        self.error = exc
        self.set_status("error")

    def _left_unsealed(self, exc: RunWriteError, *, closing: bool = True) -> RunWriteError:
        """The file system refused the seal (no room, read-only, no permission …): give the run up as it stands
        (every event written so far is whole on disk) and say how to seal it later; returns the error to raise."""
        rec = self.recorder
        if closing:
            try:
                rec.close_without_sealing()
            except OSError:
                pass
        episode_id = rec.episode_id
        if exc.errno in WRITE_REFUSALS:  # the system's refusal: its fix, then the resume
            said = (
                f"{refusal_fix(exc.errno)}; run {episode_id} is left unsealed with every event written before; "
                f"{refusal_fixed(exc.errno)}, resume_run({quoted(episode_id)}) seals it"
            )
        else:  # something in the way (a folder where a document goes): the error's own advice
            said = (
                f"run {episode_id} is left unsealed with every event written before; "
                f"{exc.advice.removesuffix(' and try again')}, then resume_run({quoted(episode_id)}) seals it"
            )
        self.error = exc.advising(said)
        self.set_status("error")
        return self.error

    def note_refused(self, exc: BaseException) -> None:
        """Remember the first refused write of the run's own files in ``exc`` (the adapter may catch it and go on)."""
        if self.write_refused is None:
            self.write_refused = run_refusal(exc, self.recorder.run_dir)

    def _ended_by_refusal(self, exc: RunWriteError) -> RunWriteError:
        """The adapter ended after a write of its run was refused: the run is left unsealed (``_left_unsealed``),
        the refusal written in it when its log still takes it, so ``resume_run`` says why; returns the error."""
        error = self._left_unsealed(exc, closing=False)
        try:
            self.recorder.emit("error", refusal_event(exc, str(error)))
        except Exception:  # the log refuses too: the error is still raised
            pass
        try:
            self.recorder.close_without_sealing()
        except OSError:
            pass
        return error

    def cancel_unstarted(self) -> None:
        """Seal ``cancelled`` an episode whose ``run`` never began (cancelled before its first step)."""
        self._finish_cancelled()

    def seal_cancelled(self) -> None:
        """Seal ``cancelled`` a resumed run whose tool or adapter a cancellation stopped (as ``run`` does its own)."""
        self._finish_cancelled()

    def _finish_cancelled(self) -> None:
        if self.recorder.closed:
            return
        self.error = asyncio.CancelledError("episode cancelled")
        try:
            self.finish(Outcome("cancelled", "Episode cancelled by the user.", ["cancelled"]))
        except RunSealedError as exc:
            self._stand_down(exc)
        except RunWriteError:
            pass  # left unsealed, said in ``self.error``; the cancellation goes on

    def _stand_down(self, exc: RunSealedError) -> None:
        """Someone else sealed the run on disk: write nothing more, and report what the disk says."""
        rec = self.recorder
        rec.closed = True
        rec.writer.close()
        rec.release()
        final = read_final(rec.run_dir) or {}
        outcome = {"success": "ok"}.get(str(final.get("outcome")), str(final.get("outcome") or "error"))
        self.error = exc
        self.set_status(outcome if outcome in TERMINAL_STATUSES else "error")


def _model_row(payload: dict[str, Any], event_id: str | None) -> dict[str, Any]:
    """A captured model call as a drain reports it: its status and usage. A background response the provider took
    (``queued``: nothing of it in flight here) is ``background``, not written yet, its usage unknown."""
    usage = {k: payload.get(k) for k in ("model", "provider", *TOKEN_FIELDS, "cost_usd", "latency_ms")}
    status = "failed" if payload.get("error") else "background" if payload.get("background") and event_id is None else "ok"
    return {"status": status, "event_id": event_id, **usage}


def _error_message(exc: BaseException) -> str:
    """The terminate message for the adapter's error: its text; an exit or other BaseException is named too."""
    text = error_text(exc, 400)
    if isinstance(exc, Exception):
        return text or type(exc).__name__
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


#: ``reason_code`` of the ``error`` event of an adapter that raised after taking its run's pause
ADAPTER_ERROR_WHILE_PAUSED = "adapter_error_while_paused"


class AdapterFailedWhilePaused(UserWarning):
    """The adapter raised after it took its run's pause (``asyncio.gather(..., return_exceptions=True)``): the run
    stays paused for its decisions, and ``resume_run`` seals it ``error``."""


class _IdleTimeout(Exception):
    pass


async def _maybe_await(value: Any) -> Any:
    if isinstance(value, asyncio.Future) and value.get_loop() is not asyncio.get_running_loop():
        raise TypeError(
            f"the adapter returned a {type(value).__name__} of another event loop, which this episode cannot await; "
            "await it inside the adapter and return its value"
        )
    return await value if to_await(value) else value  # the id a nested solve(...) returned is kept, not awaited


class _MapperCancelled(Exception):
    """The ``CancelledError`` an input mapper raised while its episode was not cancelled (``original``)."""

    def __init__(self, original: asyncio.CancelledError):
        super().__init__("the input mapper raised CancelledError")
        self.original = original


async def _maybe_await_in(call: Any) -> Any:
    return await _maybe_await(await call)


def _name(fn: Any) -> str:
    return str(getattr(fn, "__name__", type(fn).__name__))[:60]


def _settle_once(future: asyncio.Future[Any], value: Any) -> None:
    if not future.done():
        future.set_result(value)


def _as_score(value: Any) -> float | bool | None:
    """A scorer's value as the run records it: a bool, an int JSON holds exactly, or a finite float (numpy's
    numbers, a ``Fraction`` and a ``Decimal`` too); None for anything else (text, NaN, infinity, an int too large
    for a JSON number, a value whose conversion raises)."""
    try:
        if isinstance(value, bool) or getattr(getattr(value, "dtype", None), "kind", None) == "b":  # numpy bools too
            return bool(value)
        if not isinstance(value, (numbers.Real, decimal.Decimal)):  # a Decimal is no ``Real`` (a Fraction is): both taken
            return None
        as_float = float(value)
        if not math.isfinite(as_float):
            return None
        if isinstance(value, numbers.Integral) and abs(int(value)) <= 2**53:
            return int(value)
    except Exception:
        return None
    return as_float
