"""``EpisodeContext``: what an adapter gets as its second argument (or ``ctx=``).

It lets the adapter emit its own events, record model calls with token usage, and run tools
through the prepare → approve → execute contract, pausing for a human when a tool needs one.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import functools
import getpass
import inspect
import os
import warnings
from collections.abc import Callable, Coroutine
from enum import Enum
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, TypeVar

from ulid import ULID

from .. import tools as tc
from .._envvars import principal_from_env, principal_problem
from .._exits import HeldExit, exits_held, held_exits
from .._safetext import error_text, safe_repr, type_name
from .._threads import one_call_at_a_time, run_in_thread, thread_bound_hint
from .._unstarted import awaited_entry, mark_coroutine_function
from ..capture import claim_manual
from ..errors import EpisodeStateError, InvalidIdError, InvalidOptionError, ToolRejected
from ..ids import at_labels_hidden, holds_credential
from ..secrets.display import shown as display_shown
from ..secrets.guard import ScreenMemo
from ..secrets.quoted import quoted, starts_like_key, typo_hint
from ..store import now_iso
from ..store.phases import NOESIS_PHASES, OWN_PHASES, VERB_MINIMA, missing_verb_minimum, slipped_phase
from ..store.vocab import (
    MODEL_CALL,
    TOKEN_FIELDS,
    TOOL_EXECUTION_OUTCOME_UNKNOWN,
    TOOL_EXECUTION_STARTED,
    TOOL_REJECTED_GOVERNANCE,
)
from ..tools import InvalidToolPayloadError, ToolDispatcher
from ..tools._files import check_id
from ..tools.decisions import bound_decision
from ..tools.names import split_tool_name
from .abandoned import abandon_held_draft, abandon_paused_draft, episode_stopping
from .gate import Decision, PendingApproval, to_decision
from .handreport import cut_texts, plain_figures, reported_counts, reported_text
from .interrupt import interrupts_noted, killed_by_interrupt
from .lifecycle import act_parent, emit_candidate, is_vetoed, record_action
from .outcomes import being_cancelled
from .pause import EpisodePaused
from .recorded import RecordedDecision, decide_recorded
from .resume_paths import Stopped, check_live_seal_targets
from .steer import free_text_made_safe

if TYPE_CHECKING:
    from .episode import Episode

__all__ = ["EpisodeContext", "parse_tool_name", "tool_repositories", "dispatcher", "MAX_AGENT_ID"]

_VERBS = frozenset(VERB_MINIMA)
# Phases the episode writes itself, which Noēsis checks against the run's lifecycle, candidates, tool
# requests, learn records and summary: one written by the adapter would make the run invalid.
_ENGINE_PHASES = frozenset({"start", "action_candidate", "governance", "tool", "runtime", "terminate", "insight", "learn"})
_TOKEN_ARGS = TOKEN_FIELDS
#: the longest agent id ``ctx.emit`` takes: room for ``model:`` and a provider cut as a captured call's is
#: (``capture.usage.text``). Noēsis sets no limit; the id is written on every event and screened once per distinct id
#: and run (a 2 KB id cost a millisecond, a 100 KB one was taken)
MAX_AGENT_ID = 320


class _Repositories(SimpleNamespace):
    prepared: Any
    approvals: Any
    idempotency: Any


def tool_repositories(run_dir: Any) -> _Repositories:
    """The file-backed tool-contract repositories of one run directory."""

    return _Repositories(
        prepared=tc.PreparedInvocationRepository(run_dir),
        approvals=tc.ApprovalDecisionRepository(run_dir),
        idempotency=tc.IdempotencyRepository(run_dir),
    )


@functools.cache
def dispatcher() -> Any:
    """One process-wide tool dispatcher (subprocess and python protocols), built on first use."""

    return ToolDispatcher()


def parse_tool_name(name: str) -> tuple[str, str, str | None]:
    """``"repo.write_file@1"`` → ``("repo", "write_file", "1")``; a bare name gets namespace ``local``.

    A name the tool contract would refuse (a blank, a newline, ``/``, ``fs.``, 1000 characters: ``tools.names``)
    raises ``InvalidOptionError`` naming it, before anything of the call is written.
    """
    return split_tool_name(name)


class EpisodeContext:
    """The episode as seen by its adapter. Sync adapters call ``tool``; async ones ``await tool_async``.

    One naming rule for twins across the package: ``name`` blocks, ``name_async`` is awaited
    (``solve``/``solve_async``, ``resume_run``/``resume_run_async``, ``tool``/``tool_async``,
    ``next_steer``/``next_steer_async``).
    """

    def __init__(self, episode: Episode, caused_by: str | None = None):
        self._episode = episode
        self._caused_by = caused_by
        self._act_task = _current_task()  # the episode's own task (``act``): cancelled, the episode stops
        self.episode_id = episode.recorder.episode_id
        self.run_dir = episode.recorder.run_dir
        self.task = episode.options.task
        self.seed = episode.options.seed
        self.tags = dict(episode.options.tags)
        self.inputs = dict(episode.options.inputs)  # a batch task's own inputs ({} otherwise)
        self._agent = f"adapter:{episode.adapter.label}" if episode.adapter else "adapter:core.minimal"
        self._secrets = episode.recorder.secrets
        # a phase or an adapter's agent id as written, with its secrets redacted as the payload's are (a sub-agent's
        # endpoint, with its credentials in the URL): judged once (names repeat on every event) until the run learns a
        # value. The ids the runtime makes itself (``tool.<name>``: the tool's name is shown,
        # ``RunSecrets.name_shown``) are not screened here
        self._names = self._secrets.memo()
        # phases accepted whole (no engine phase, no slip, holding no secret) whose checks never read the payload,
        # forgotten with the names (a memo of the run's: each maps to itself)
        self._plain_phases = self._secrets.memo()

    def emit(self, phase: str, payload: dict[str, Any] | None = None, *, agent_id: str | None = None) -> str:
        """Append one event of the adapter's own (e.g. ``reason``, ``observe``); returns its id. ``agent_id`` (who
        emits it; default the adapter's) is at most ``MAX_AGENT_ID`` characters: a longer one is refused."""
        if type(payload) is dict and type(phase) is str and phase in self._plain_phases and not agent_id:
            # the hot path: a phase this episode already accepted, which no check reads the payload for
            return self._episode.recorder.emit(phase, payload, agent_id=self._agent, caused_by=self._caused_by)["id"]  # type: ignore[no-any-return]
        if type(payload) is not dict:
            if payload is None:
                payload = {}
            elif not isinstance(payload, dict):
                raise TypeError(f"payload must be a dict, got {type(payload).__name__}; wrap it, e.g. {{'text': value}}")
            else:
                payload = _plain_dict(payload)
        if type(phase) is not str or not phase:
            raise ValueError(f"phase must be a non-empty string such as 'reason', got {safe_repr(phase, 80)}")
        if phase in _ENGINE_PHASES:
            raise ValueError(
                f"phase {quoted(phase)} is written by the episode itself (Noēsis checks it against the run's lifecycle, "
                "action candidates and summary); use a phase of your own such as 'reason' or 'note'"
            )
        if (meant := slipped_phase(phase)) is not None:
            raise InvalidOptionError(
                f"phase {safe_repr(phase, 80)} looks like a slip of {quoted(meant)}: written as it is, no count, check or "
                f"view would read it as {quoted(meant)}. Known phases: Noēsis' {', '.join(NOESIS_PHASES)}; noesis_nb's "
                f"{', '.join(OWN_PHASES)}. "
                + (
                    f"{quoted(meant)} is written by the episode itself; "
                    if meant in _ENGINE_PHASES
                    else f"Use {quoted(meant)}, or "
                )
                + "give a phase of your own a name of its own (e.g. 'note', or 'x-' and the name)"
            )
        caused_by, refused = self._caused_by, None
        if phase == "model" and payload.get("event_name") == MODEL_CALL:  # counted in the summary and usage_df
            figures = plain_figures({k: payload[k] for k in ("latency_ms", "cost_usd") if k in payload})
            # a count refused leaves the call's counts unknown (its cost too, never $0), said once it is written
            counts, refused = reported_counts({k: payload[k] for k in _TOKEN_ARGS if k in payload}, parts=False)
            figures.update(counts)
            if any(type(payload[k]) is not type(v) for k, v in figures.items()):  # a numpy int, a float subclass
                payload = {**payload, **figures}
            # a megabyte model name is stored cut, one holding a control character refused, as by ``model_call``
            if cut := cut_texts(payload):
                payload = {**payload, **cut}
        if phase in _VERBS:
            if missing := missing_verb_minimum(phase, payload):
                raise ValueError(
                    f"phase {quoted(phase)} is a Noēsis verb and its payload needs {missing} (Noēsis refuses the line "
                    "otherwise); give them, or use a phase of your own such as 'reason' or 'note'"
                )
            if phase == "plan" and not _step_labels(payload["steps"]):
                raise ValueError(
                    f"phase 'plan' needs payload['steps'] as a list of step labels such as ['act:fetch the page'] "
                    f"(Noēsis' plan steps, which readers parse), got {quoted(payload['steps'], 80)}"
                )
            if phase == "act":
                caused_by = self._act_parent(payload.get("action_candidate_id"))
        given = phase
        phase = self._names[phase]  # (a plain ``str``: checked above)
        if phase == given and phase not in _VERBS and phase != "model" and len(self._plain_phases) < ScreenMemo.KEPT:
            self._plain_phases[phase] = phase  # accepted as it is: its next event takes the hot path
            if phase not in self._names:  # a value learned meanwhile (another thread): judged again next time
                self._plain_phases.pop(phase, None)
        if agent_id:
            if not isinstance(agent_id, str):
                raise TypeError(f"agent_id must be a str such as 'worker-3', got {type(agent_id).__name__}")
            if len(agent_id) > MAX_AGENT_ID:
                raise InvalidOptionError(
                    f"agent_id={quoted(agent_id, 60)} is longer than {MAX_AGENT_ID} characters, the most an agent id "
                    "takes (it names who emits the event, on each of its events): name it shorter (e.g. 'worker-3' or "
                    "'planner') and put longer text in the payload"
                )
            agent_id = self._names.shown(agent_id)
        event = self._episode.recorder.emit(phase, payload, agent_id=agent_id or self._agent, caused_by=caused_by)
        if refused is not None:  # (saying what was recorded)
            raise refused
        return str(event["id"])

    def alive(self) -> None:
        """Say the adapter is making progress without writing an event (a streamed piece that becomes a row only
        when its message ends): the episode's ``idle_timeout_s`` counts from now. Call it for work that carries
        something, never for a heartbeat: a peer that only keeps its connection open must still time out."""
        self._episode.recorder.touch()

    def emit_captured(self, payload: dict[str, Any], agent_id: str) -> str:
        """Append a ``model.call`` event capture built (``noesis_nb.capture``); returns its id.

        ``emit``'s checks are skipped, not needed: capture writes a plain dict of phase ``model`` whose counts it
        read as counts (``capture.usage.count``), and every captured call passes here. Its agent id (``model:<provider>``,
        the provider as the client names it) is screened as ``emit`` screens an adapter's."""
        agent_id = self._names[agent_id] if type(agent_id) is str else self._names.shown(agent_id)
        return str(self._episode.recorder.emit("model", payload, agent_id=agent_id, caused_by=self._caused_by)["id"])

    def _act_parent(self, candidate_id: Any) -> str | None:
        """What an ``act`` carrying out candidate ``candidate_id`` is caused by; refuses an unknown or vetoed candidate."""
        rec = self._episode.recorder
        candidate = next(
            (e for e in rec.by_phase["action_candidate"] if (e.get("payload") or {}).get("action_candidate_id") == candidate_id),
            None,
        )
        if candidate is None:
            raise ValueError(
                f"an 'act' with a tool or adapter is a side effect, and Noēsis requires the action candidate of this run it "
                f"carries out (action_candidate_id), not {quoted(candidate_id)}; run tools with ctx.tool/ctx.tool_async, which "
                "record both, or use a phase of your own such as 'step'"
            )
        if is_vetoed(rec, candidate):
            raise ValueError(f"action candidate {quoted(candidate_id)} was vetoed: nothing may act on it")
        return act_parent(rec, candidate)

    def model_call(
        self,
        model: str,
        *,
        provider: str | None = None,
        input_tokens: int | None = None,
        output_tokens: int | None = None,
        cached_input_tokens: int | None = None,
        cache_write_input_tokens: int | None = None,
        reasoning_tokens: int | None = None,
        latency_ms: float | None = None,
        cost_usd: float | None = None,
        request_id: str | None = None,
    ) -> str:
        """Record one model call. Input/output are totals; cached, cache-write and reasoning are parts of them.

        Unknown counts stay ``None`` (never 0). A count that is none (10**33, negative, a fraction) raises
        ``ValueError`` once the call is recorded with its counts unknown: it happened, its cost is unknown, never $0.
        Parts past their total (cached above the input) raise it once the call is recorded as a captured call with
        such counts is: the totals kept, the part unknown. A negative, NaN or infinite ``latency_ms`` or ``cost_usd`` is refused
        as a negative count is (a frame would read it as unknown). ``cost_usd`` is what the provider reported; analysis
        prices tokens itself and keeps this in its own column. A call the episode already captured
        from the SDK (same ``request_id``, or same model and token totals) is not written twice: the
        captured event's id is returned (``noesis_nb.capture.scope`` states the rule).
        """
        model = str(reported_text("model", model, required=True))  # the rule a captured call's name follows
        provider = reported_text("provider", provider)
        request_id = reported_text("request_id", request_id)
        figures = plain_figures({"latency_ms": latency_ms, "cost_usd": cost_usd})  # one rule for every figure
        given = (input_tokens, output_tokens, cached_input_tokens, cache_write_input_tokens, reasoning_tokens)
        counts, refused = reported_counts(dict(zip(_TOKEN_ARGS, given)))
        event_id = self._model_event(model, provider, request_id, counts, figures)
        if refused is not None:  # the call happened: it is recorded as ``reported_counts`` keeps it, the slip said
            raise refused
        return event_id

    def _model_event(
        self,
        model: str,
        provider: str | None,
        request_id: str | None,
        counts: dict[str, Any],
        figures: dict[str, Any],
    ) -> str:
        """Write one model call's event (or return the captured call's id when capture recorded it already)."""
        inp, out = counts["input_tokens"], counts["output_tokens"]
        captured = claim_manual(self.episode_id, model, inp, out, request_id, counts)
        if captured is not None:
            return captured
        payload = {
            "event_name": MODEL_CALL,
            "model": model,
            "provider": provider,
            **counts,
            **figures,
            **({"request_id": request_id} if request_id is not None else {}),
        }
        event = self._episode.recorder.emit(
            "model", payload, agent_id=f"model:{provider or 'unknown'}", caused_by=self._caused_by
        )
        return str(event["id"])

    # -- steers ---------------------------------------------------------------------------
    def steers(self, *, at: str = "next-item") -> list[Any]:
        """Take what people told the agent and it has not heard yet (no waiting): a list of ``Steer`` (``.text``).

        ``at="next-item"`` (between two items of work) takes the ``next-item`` steers; ``at="between-rounds"``
        (a round boundary) takes every queued steer. Each one taken is recorded ``steer.applied``.
        """
        self._episode.recorder.check_owner("ctx.steers()")
        return self._episode.steers.take(at)

    def next_steer(self, timeout: float | None = None, *, at: str = "next-item") -> Any:
        """Block (a sync adapter's thread) until a steer applies here; None after ``timeout`` s or when the episode ends."""
        self._episode.recorder.check_owner("ctx.next_steer()")
        self._off_loop("next_steer", "next_steer_async")
        return self._episode.steers.wait(timeout, at)

    @awaited_entry("ctx.next_steer_async(…)")  # not awaited it is no steer, though it reads as true
    async def next_steer_async(self, timeout: float | None = None, *, at: str = "next-item") -> Any:
        """Await a steer that applies here; None after ``timeout`` s or when the episode ends."""
        self._episode.recorder.check_owner("ctx.next_steer_async()")
        return await self._episode.steers.wait_async(timeout, at)

    def _off_loop(self, name: str, twin: str) -> asyncio.AbstractEventLoop:
        loop = self._episode.loop
        if loop is None:
            raise EpisodeStateError(f"the episode is not running; ctx.{name}() works only inside the adapter call")
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            raise EpisodeStateError(
                f"ctx.{name}() was called on the episode's event loop thread; in an async adapter use `await ctx.{twin}(...)`"
            )
        return loop

    # -- tools ----------------------------------------------------------------------------
    def tool(self, name: str, payload: dict[str, Any], **options: Any) -> Any:
        """Run a tool from a sync adapter (worker thread); blocks until approved and executed."""
        self._episode.recorder.check_owner(f"ctx.tool({name!r})")  # a forked child would wait for a loop it lacks
        loop = self._off_loop("tool", "tool_async")
        if loop.is_closed():
            raise EpisodeStateError(f"the episode's event loop has closed; ctx.tool({quoted(name)}) can no longer run")
        call = self._episode.on_loop_for_thread(lambda: self.tool_async(name, payload, **options))
        try:
            return asyncio.run_coroutine_threadsafe(call, loop).result()
        except concurrent.futures.CancelledError:
            if self._episode.cancel_requested:  # stopped (its tool killed by the interrupt): the adapter's thread unwinds
                raise asyncio.CancelledError(f"ctx.tool({quoted(name)}): the episode was stopped") from None
            raise

    @mark_coroutine_function
    def atool(self, name: str, payload: dict[str, Any], **options: Any) -> Coroutine[Any, Any, Any]:
        """Deprecated name of :meth:`tool_async` (the package's twins are ``name`` / ``name_async``); its coroutine
        is ``tool_async``'s, so one never awaited is named when the adapter returns, as there."""

        warnings.warn("ctx.atool is deprecated; use `await ctx.tool_async(...)`", DeprecationWarning, stacklevel=2)
        return self.tool_async(name, payload, **options)

    @mark_coroutine_function  # code that asks before awaiting (``iscoroutinefunction``) still awaits it
    def tool_async(
        self,
        name: str,
        payload: dict[str, Any],
        *,
        protocol: str = "subprocess",
        effect: str = "read",
        risk: str = "low",
        requires_approval: bool | None = None,
        fn: Callable[..., Any] | None = None,
        idempotency_key: str | None = None,
        timeout_ms: int | None = None,
        recorded: Callable[[], RecordedDecision] | None = None,
    ) -> Coroutine[Any, Any, Any]:
        """Prepare, get a decision when needed, execute; ``await`` it for the tool's output (or ``ToolRejected``).

        The episode keeps the coroutine until it starts: one never awaited is named when the adapter returns.
        ``recorded``: the call is one a recorded trace holds, decided by a person then: it gives that decision
        (``runtime.recorded``), written in place of the approver's.
        """
        options: dict[str, Any] = dict(protocol=protocol, effect=effect, risk=risk, requires_approval=requires_approval, fn=fn)
        options.update(idempotency_key=idempotency_key, timeout_ms=timeout_ms, recorded=recorded)
        return self._episode.handed_out.add(
            f"ctx.tool_async({safe_repr(name, 60)}, …)",
            lambda key: self._noting_refusals(lambda: self._tool_async(key, name, payload, **options)),
        )

    async def _noting_refusals(self, make: Callable[[], Coroutine[Any, Any, Any]]) -> Any:
        """``make()``'s call (made once started: one never started leaves nothing unawaited), its run's refused writes
        (its draft, decision, records) noted in the episode: the adapter may catch the error and go on, the run still
        ends unsealed with it, not sealed as the adapter's error."""
        try:
            return await make()
        except BaseException as exc:
            self._episode.note_refused(exc)
            raise

    async def _tool_async(
        self,
        key: int,
        name: str,
        payload: dict[str, Any],
        *,
        protocol: str,
        effect: str,
        risk: str,
        requires_approval: bool | None,
        fn: Callable[..., Any] | None,
        idempotency_key: str | None,
        timeout_ms: int | None,
        recorded: Callable[[], RecordedDecision] | None = None,
    ) -> Any:
        episode = self._episode
        episode.handed_out.started(key)
        rec = episode.recorder
        namespace, short, version = parse_tool_name(name)  # first: every message below shows the name
        rec.check_owner(f"ctx.tool_async({name!r})")
        if episode.drain is not None:  # stopping: nothing new is even prepared
            raise episode.drain.refuse("tool", name)
        if protocol == "python" and fn is None:
            raise ValueError(f"tool {quoted(name)}: protocol='python' needs fn=<callable>")
        if fn is not None and not callable(fn):
            shown = f"fn={fn}" if isinstance(fn, str) and fn.replace(".", "").replace("_", "").isalnum() else "fn=<the function>"
            raise InvalidOptionError(
                f"tool {quoted(name)}: fn={safe_repr(fn, 80)} is not callable; pass the function itself ({shown})"
            )
        if requires_approval is not None and not isinstance(requires_approval, bool):  # bool("no") is True
            raise InvalidOptionError(
                f"tool {quoted(name)}: requires_approval={safe_repr(requires_approval, 60)}: pass True or False "
                "(or leave it out: a write of high or critical risk needs a human)"
            )
        if fn is not None and protocol == "subprocess":
            protocol = "python"
        if not isinstance(payload, dict):
            shape = "{'args': [...], 'kwargs': {...}}" if protocol == "python" else "{'argv': [...]}"
            raise InvalidToolPayloadError(
                f"tool {quoted(name)}: the payload must be a dict such as {shape}, not {type(payload).__name__}"
            )
        if timeout_ms is not None and (isinstance(timeout_ms, bool) or not isinstance(timeout_ms, int) or timeout_ms < 1):
            raise InvalidOptionError(
                f"tool {quoted(name)}: timeout_ms={quoted(timeout_ms)}; pass a whole number of milliseconds ≥ 1"
            )
        if idempotency_key is not None:  # it becomes part of a file name: refused here, before anything is prepared
            if not isinstance(idempotency_key, str):
                raise InvalidOptionError(f"tool {quoted(name)}: idempotency_key={quoted(idempotency_key)}; pass a str (or None)")
            if starts_like_key(idempotency_key):  # a token of a known format (``sk-…``, ``ghp_…``, ``AKIA…``, a JWT)
                raise InvalidOptionError(
                    f"tool {quoted(name)}: idempotency_key={quoted(idempotency_key)} holds what looks like a credential; "
                    "the key is written in the run and names a file there: pass a key of your own (a request id, or a "
                    "hash of what makes the call unique)"
                )
            if holds_credential(idempotency_key.replace(":", "-")):  # a secret name and '=' (or '@') and a value
                given = quoted(at_labels_hidden(idempotency_key, display_shown(idempotency_key)))
                raise InvalidOptionError(
                    f"tool {quoted(name)}: idempotency_key={given} reads as a secret name and its value "
                    "('db_password=…', 'api_key=…'): the key names a file of the run and is written in its records in "
                    "clear; pass a key of your own (a request id, or a hash of what makes the call unique), or name "
                    "the action and its subject ('reset-password:user-42')"
                )
            try:
                check_id(idempotency_key.replace("/", "_"), f"tool {quoted(name)}: idempotency_key")
            except InvalidIdError as exc:  # named as given, not as the file name it would become
                raise InvalidIdError(
                    str(exc).replace(repr(idempotency_key.replace("/", "_")), repr(idempotency_key), 1)
                ) from None
        if requires_approval is None:
            requires_approval = effect == "write" and risk in {"high", "critical"}
        invocation = tc.ToolInvocationInput(
            run_id=rec.episode_id,
            request_id=f"req_{ULID()}",
            protocol=_choice(tc.ToolProtocol, protocol, "protocol"),
            tool=tc.ToolIdentity(namespace=namespace, name=short, version=version),
            payload=payload,
            execution=tc.ExecutionContext(timeout_ms=timeout_ms or 60_000, retry_limit=0, idempotency_key=idempotency_key),
            security=tc.SecurityContext(principal_id=_principal(), scopes=(), policy_scope="notebook"),
            governance=tc.GovernanceContext(
                effect_kind=_choice(tc.EffectKind, effect, "effect"),
                risk_tier=_choice(tc.RiskTier, risk, "risk"),
                requires_approval=requires_approval,
                tags=(),
            ),
            func=fn,
        )
        repos = tool_repositories(rec.run_dir)
        chain = RequestChain(rec, self._caused_by)
        # the run pauses on one draft at a time: one asked while a pause is open is written held from the start
        turns = episode.pause_turns
        turn = turns.reserve(asyncio.get_running_loop()) if requires_approval else None
        paused_here = False  # ``solve`` unwinds to a pause: it stays open on disk for resume_run
        draft_id: str | None = None
        try:
            prepared = tc.prepare_tool_invocation(
                invocation,
                prepared_repository=repos.prepared,
                emit=chain.emit,
                emit_candidate=chain.emit_candidate,
                dispatcher=dispatcher(),
                hold=turn is not None and not turn.done(),
            )
            decision: Decision | None = None
            draft_id = prepared.draft_id
            if turn is not None:
                try:
                    decision = await self._decide(prepared, chain, turn, recorded)
                except EpisodePaused:
                    paused_here = True
                    raise
                if not decision.approved:
                    chain.emit(
                        TOOL_REJECTED_GOVERNANCE,
                        prepared.request_id,
                        draft_id=prepared.draft_id,
                        decision_id=decision.record.decision_id,
                        reason_code="governance.vetoed",
                        reason=decision.reason,
                    )
                    raise ToolRejected(name, decision.reason, draft_id=prepared.draft_id, decision=decision)
        finally:
            if turn is not None and not paused_here:  # resumed (or given up): the next draft waiting pauses now
                if draft_id is not None and not turns.kept(turn):  # a held call given up is pending here no more
                    episode.gate.withdraw(draft_id)
                turns.release(turn)
        # a link or folder planted where the seal writes (while the run waited for a human) stops the tool before its
        # effect: the seal could not be written after it
        check_live_seal_targets(rec, Stopped(f"tool {quoted(name)}", f"resume_run({quoted(rec.episode_id)}) seals the run"))
        flight = episode.start_call("tool", name)  # refused (never executed) if a drain began while it waited
        episode.busy_tools += 1
        result, interrupts = None, interrupts_noted()
        try:
            result = await tc.execute_prepared_tool_invocation_async(
                run_id=rec.episode_id,
                draft_id=prepared.key,
                prepared_repository=repos.prepared,
                approval_repository=repos.approvals,
                idempotency_repository=repos.idempotency,
                dispatcher=dispatcher(),
                emit=chain.emit,
                callables={prepared.key: fn} if fn else None,
                decision=decision.record if decision else None,
            )
        except asyncio.CancelledError:  # stopped (an interrupt, a cancel) while its tool ran: say the effects are unknown
            if _last_step(rec, prepared.request_id) == TOOL_EXECUTION_STARTED:
                with contextlib.suppress(Exception):  # the cancellation goes on whatever the log accepts
                    chain.emit(TOOL_EXECUTION_OUTCOME_UNKNOWN, prepared.request_id, draft_id=prepared.key, reason="cancelled")
            raise
        finally:
            episode.busy_tools -= 1
            done = getattr(result.status, "value", result.status) if result is not None else "failed"
            episode.end_call(flight, {"status": "ok" if done == "succeeded" else str(done), "draft_id": prepared.draft_id})
        status = getattr(result.status, "value", result.status)
        record_action(
            rec,
            {
                "kind": str(protocol),
                "tool": f"{namespace}.{short}" + (f":{version}" if version else ""),
                "input_excerpt": _excerpt(prepared),
                "result_status": status,
                "timestamp": now_iso(),
                "x-tool_draft_id": prepared.draft_id,
            },
        )
        if await killed_by_interrupt(result, interrupts, lambda: episode.cancel_requested):
            # recorded failed (it died); the interrupt stops the episode, as on the loop
            episode.cancel_requested = True
            raise asyncio.CancelledError(f"tool {quoted(name)}: its process was stopped by the interrupt (SIGINT)")
        if status == "failed":
            raise tc.ToolExecutionFailedError(
                f"tool {quoted(name)} failed ({result.reason_code}): {_short(result.output)}",
                reason_code=result.reason_code,
                result=result,
            )
        return result.output

    async def _decide(
        self, prepared: Any, chain: RequestChain, turn: asyncio.Future[None], recorded: Callable[[], RecordedDecision] | None
    ) -> Decision:
        """Ask the approver policy, then pause on disk when ``turn`` comes (``PauseTurns``): a policy's pause is
        decided at once; a person's is waited for (or ``solve`` unwinds to it). A draft held behind another pause is
        decidable meanwhile: its decision is on disk before its own pause, which then resumes at once. A ``recorded``
        call's decision is the person's the trace holds (``runtime.recorded``)."""
        episode = self._episode
        rec = episode.recorder
        live = episode.options.wait_for_human
        if recorded is not None:
            pending = PendingApproval.from_prepared(prepared, now_iso())
            if not turn.done():
                await self._await_turn(pending, chain, turn)
            return await decide_recorded(episode, pending, chain, recorded)

        def unwinding() -> bool:  # ``solve`` with a pause on disk: it unwinds to it; held drafts wait for resume_run
            return not live and episode.pause_checkpoint is not None

        pending = PendingApproval.from_prepared(prepared, now_iso())
        policy = episode.options.approver
        episode.busy_tools += 1  # an approver at work (a review service) is waited for, as a person is: no idle adapter
        try:
            verdict = await _ask_policy(policy, pending, stopping=lambda: episode.cancel_requested or being_cancelled())
        finally:
            episode.busy_tools -= 1
        if verdict is not None:
            approve, reason = verdict
            approver = _policy_id(policy)
            if not turn.done() and not unwinding():  # the draft before it is still being decided: wait for it
                await self._await_turn(pending, chain, turn)
            # ``solve`` unwinds to the pause open (written while this policy answered, or while the draft waited; its
            # turn woken by the unwinding): the draft waits held, decided, for resume_run, never paused on top of it
            if unwinding():
                _persist_now(episode, pending, approve, approver, reason)
                raise EpisodePaused
            return self._policy_pause(pending, chain, approve, approver, reason)
        if unwinding():
            raise EpisodePaused  # ``solve`` is unwinding to its pause: this draft, held, waits for resume_run
        assert episode.loop is not None  # set when the episode started running
        future = episode.gate.open(pending, episode.loop)  # decidable at once, held or not
        if not turn.done():
            await self._await_turn(pending, chain, turn)
            if unwinding():  # the draft before it paused while this one waited: held for resume_run
                episode.gate.withdraw(pending.draft_id)
                raise EpisodePaused
        paused_on = chain.tail
        deferred_by = None if policy in (None, "ask") else _policy_id(policy)  # a policy left it to a person: it stands
        checkpoint = rec.pause(f"tool approval required: {pending.tool} ({pending.draft_id})", paused_on, deferred_by=deferred_by)
        episode.pause_checkpoint = checkpoint
        if not live:
            episode.pause_turns.unwind()  # drafts waiting for their turn stay held behind this pause
            raise EpisodePaused
        episode.set_status("paused")
        try:
            decision = await _wait(episode, pending.draft_id, future)
        except asyncio.CancelledError:
            if not episode_stopping(episode, self._act_task):  # the adapter gave this call up and goes on:
                try:  # recorded abandoned, never run; its pause resumed, the next held draft pauses (its turn, below)
                    chain.tail = abandon_paused_draft(episode, pending, checkpoint, paused_on)
                except Exception as exc:  # its pause stays open on disk, as with the episode stopping
                    episode.report(
                        f"draft {pending.draft_id}: its call was given up, but recording it abandoned failed "
                        f"({type_name(exc)}); the run stays paused on it for resume_run"
                    )
                    episode.pause_turns.keep(turn)
            elif not future.done():  # cancelled with the episode: its pause stays open, undecided, for resume_run
                episode.pause_turns.keep(turn)
            raise
        chain.tail = rec.resume_pause(checkpoint, paused_on)["id"]
        episode.set_status("running")
        return decision

    async def _await_turn(self, pending: PendingApproval, chain: RequestChain, turn: asyncio.Future[None]) -> None:
        """Wait for ``turn`` (the draft held behind another pause). A call the adapter gives up meanwhile is recorded
        abandoned on disk (``abandon_held_draft``): never run, by this episode nor by ``resume_run``."""
        try:
            await turn
        except asyncio.CancelledError:
            if not episode_stopping(self._episode, self._act_task):
                try:
                    chain.tail = abandon_held_draft(self._episode, pending, chain.tail)
                except Exception as exc:
                    self._episode.report(
                        f"draft {pending.draft_id}: its call was given up while held, but recording it abandoned failed "
                        f"({type_name(exc)}); resume_run may still ask for it"
                    )
            raise

    def _policy_pause(
        self, pending: PendingApproval, chain: RequestChain, approve: bool, approver: str, reason: str | None
    ) -> Decision:
        """The pause of an approval a policy decided, as a person's is written (interrupt → checkpoint → decision →
        resume: Noēsis' lineage of a tool that needed approval) and marked the policy's (``POLICY_PAUSE_KEY``),
        in one breath: nothing waits, so nothing is fsynced (``Recorder.pause``)."""
        rec = self._episode.recorder
        paused_on = chain.tail
        reason_text = f"tool approval decided by approver {approver}: {pending.tool} ({pending.draft_id})"
        checkpoint = rec.pause(reason_text, paused_on, policy=approver)
        decision = _persist_now(self._episode, pending, approve, approver, reason)  # on disk before the resume
        chain.tail = rec.resume_pause(checkpoint, paused_on, policy=approver)["id"]
        return decision


def _current_task() -> asyncio.Task[Any] | None:
    try:
        return asyncio.current_task()
    except RuntimeError:  # made with no loop running
        return None


def _last_step(rec: Any, request_id: str) -> str | None:
    """The name of the last event written for tool request ``request_id`` (None when there is none)."""
    for event in reversed(rec.events):
        payload = event.get("payload")
        if event.get("phase") == "tool" and isinstance(payload, dict) and payload.get("request_id") == request_id:
            return str(payload.get("event_name"))
    return None


class RequestChain:
    """The events of one tool request, each caused by the one before (Noēsis' tool-bridge lineage)."""

    def __init__(self, rec: Any, first_cause: str | None):
        self.rec = rec
        self.tail = first_cause

    def emit(self, event_name: str, request_id: str, **extra: Any) -> str:
        self.tail = self.rec.emit(
            "tool", {"event_name": event_name, "request_id": request_id, **extra}, agent_id="tool_contract", caused_by=self.tail
        )["id"]
        return self.tail

    def emit_candidate(self, invocation: Any, redacted_payload: dict[str, Any]) -> str:
        """The request's ``action_candidate`` event (kind ``tool.<namespace>.<name>``); returns its id."""
        tool = invocation.tool
        protocol = getattr(invocation.protocol, "value", invocation.protocol)
        event = emit_candidate(
            self.rec,
            kind=f"tool.{tool.namespace}.{tool.name}",
            payload=redacted_payload,
            provenance={"request_id": invocation.request_id, "draft_id": invocation.effective_draft_id, "protocol": protocol},
            caused_by=self.tail,
            agent_id="tool_contract",
            field_rules=_field_rules(invocation),
        )
        self.tail = str(event["id"])
        return str(event["payload"]["action_candidate_id"])


def _field_rules(invocation: Any) -> dict[str, str]:
    policy = getattr(invocation, "redaction_policy", None)
    if policy is None:
        return {}
    return {
        **{f: "redact" for f in policy.redact_fields},
        **{f: "hash" for f in policy.hash_fields if f not in policy.redact_fields},
    }


def _persist_now(episode: Episode, pending: PendingApproval, approve: bool, approver: str, reason: str | None) -> Decision:

    record, created = tc.decide(episode.recorder.run_dir, pending.draft_id, approve=approve, approver_id=approver, reason=reason)
    decision = to_decision(record, created)
    episode.gate.record(decision)
    return decision


async def _wait(episode: Episode, draft_id: str, future: asyncio.Future[Any]) -> Decision:
    """Wait for the gate, and notice a decision file another program wrote (``Episode.await_decision``)."""
    run_dir = episode.recorder.run_dir
    # an approval there that does not bind the draft is moved aside and reported; the wait goes on (``bound_decision``)
    found = await episode.await_decision(future, lambda: bound_decision(run_dir, draft_id))
    if not future.done():  # decided by another program: settle the gate with it
        episode.gate.settle_from_disk(draft_id, found)
    decision: Decision = await future
    return decision


async def _ask_policy(
    policy: Any, pending: PendingApproval, *, stopping: Callable[[], bool] = being_cancelled
) -> tuple[bool, str | None] | None:
    """``(approve, reason)`` from a policy, or None when a human must decide. A ``CancelledError`` the policy raised
    of its own (it awaited a task another cancelled), while nothing is ``stopping`` its caller, is its failure, as
    its other errors are: raised as ``RuntimeError`` naming it, never taken for the user's stop."""
    try:
        return await _verdict(policy, pending)
    except HeldExit as held:  # SystemExit/KeyboardInterrupt the policy raised itself: its failure, not the user's stop
        raise RuntimeError(
            f"the approver {_policy_name(policy)} raised {type_name(held.exit)} ({error_text(held.exit, 120) or 'no message'}), "
            "so it decided nothing; make it return a verdict (None to ask a person) or raise an error of its own"
        ) from held.exit
    except asyncio.CancelledError as exc:
        if stopping():
            raise
        said = f": {safe_repr(str(exc), 120)}" if str(exc) else ""
        raise RuntimeError(
            f"the approver {_policy_name(policy)} raised CancelledError{said} while nothing cancelled the episode, so "
            "it decided nothing; make it return a verdict (None to ask a person) or raise an error of its own"
        ) from exc


async def _verdict(policy: Any, pending: PendingApproval) -> tuple[bool, str | None] | None:
    if policy in (None, "ask"):
        return None
    if policy == "auto":
        return True, "approved by approver policy 'auto'"
    if policy == "deny":
        return False, "denied by approver policy 'deny'"
    if not callable(policy):
        raise ValueError(f"approver={quoted(policy)}: use 'ask', 'auto', 'deny' or a callable taking a PendingApproval")
    if inspect.iscoroutinefunction(policy) or inspect.iscoroutinefunction(type(policy).__call__):
        verdict = policy(pending)
    else:  # a sync policy may block (a review service asked over blocking HTTP): on its own thread, the loop runs on;
        # its calls never overlap (as on the loop, where they ran one at a time: a budget it keeps stays a budget)
        try:
            # its exits held on its thread: a Ctrl-C landing on the loop thread meanwhile stays the user's stop
            verdict = await run_in_thread(exits_held(policy), pending, name="noesis_nb-approver", lock=one_call_at_a_time(policy))
        except Exception as exc:
            hinted = thread_bound_hint(exc, f"the approver {_policy_name(policy)}")
            if hinted is None:
                raise
            raise hinted from exc
    if inspect.isawaitable(verdict):
        verdict = await held_exits(verdict)
    return interpret_verdict(verdict)


def _policy_id(policy: Any) -> str:
    """``policy:<name>``: who a policy's decision (or its deferral to a person) says answered."""
    return f"policy:{policy}" if isinstance(policy, str) else f"policy:{getattr(policy, '__name__', type(policy).__name__)}"


def _policy_name(policy: Any) -> str:
    return str(getattr(policy, "__qualname__", None) or type(policy).__qualname__)


def interpret_verdict(verdict: Any) -> tuple[bool, str | None] | None:
    """Accept True/False, 'approve'/'reject', (bool, reason), {'approve': bool, 'reason': …}, or None (ask a human).
    A reason given as text is kept to a person's rule, made safe rather than refused (``free_text_made_safe``)."""
    decided = _verdict_of(verdict)
    if decided is None or not isinstance(decided[1], str):
        return decided
    return decided[0], free_text_made_safe(decided[1])


def _verdict_of(verdict: Any) -> tuple[bool, Any] | None:
    if verdict is None or (isinstance(verdict, str) and verdict == "ask"):
        return None
    if isinstance(verdict, bool):
        return verdict, None
    if isinstance(verdict, str) and verdict.lower() in {"approve", "approved", "allow", "yes"}:
        return True, None
    if isinstance(verdict, str) and verdict.lower() in {"reject", "rejected", "deny", "denied", "no"}:
        return False, None
    if isinstance(verdict, tuple) and len(verdict) == 2 and isinstance(verdict[0], bool):
        return verdict[0], verdict[1]
    if isinstance(verdict, dict) and isinstance(verdict.get("approve"), bool):
        return verdict["approve"], verdict.get("reason")
    raise ValueError(
        f"approver returned {safe_repr(verdict, 120)}; return True/False, 'approve'/'reject', (bool, reason), "
        "{'approve': bool, 'reason': str} or None to ask a human"
    )


def _plain_dict(payload: dict[Any, Any]) -> dict[Any, Any]:
    """A dict subclass's items as a plain dict (what is written); one that raises while being read is named."""
    try:
        return dict(payload.items())
    except Exception as exc:
        raise TypeError(
            f"the payload, a {type_name(payload)}, raised {type_name(exc)} while its items were read; pass a plain dict"
        ) from exc


def _excerpt(prepared: Any) -> str:
    payload = prepared.payload.redacted_payload
    for key in ("command", "argv", "path", "url"):
        if key in payload:
            value = payload[key]
            return (" ".join(map(str, value)) if isinstance(value, list) else str(value))[:120]
    return str(payload)[:120]


def _short(value: Any) -> str:
    text = str(value)
    return text if len(text) < 300 else text[:300] + "…"


def _principal() -> str:
    """Who asks for tools: ``$NOESIS_NB_PRINCIPAL`` (checked: ``start()`` refuses a wrong one before the episode
    starts; a resumed run's tool call names the variable), else ``user:<login name>``. The login name comes from
    ``$LOGNAME``/``$USER`` first (``getpass``): one no principal may hold (a '/', a line end) gives way to the
    account's name, else ``user:unknown``, rather than stop the episode at a tool call."""
    configured = principal_from_env()
    if configured:
        return configured
    for login in (getpass.getuser, _account_name):
        try:
            name = f"user:{login()}"
        except Exception:
            continue
        if principal_problem(name) is None:
            return name
    return "user:unknown"


def _account_name() -> str:
    import pwd  # POSIX only: elsewhere getpass's name or 'unknown'

    return pwd.getpwuid(os.getuid()).pw_name


E = TypeVar("E", bound=Enum)


def _choice(kind: type[E], value: object, what: str) -> E:
    """``value`` as a member of ``kind``; a wrong value is one clear error listing the accepted ones."""
    for member in kind:
        if member is value or member.value == value:
            return member
    choices = [m.value for m in kind]
    raise InvalidOptionError(f"{what}={quoted(value)}{typo_hint(value, choices)}: use one of {choices}")


def _step_labels(steps: Any) -> bool:
    """Whether ``steps`` is a plan's steps as Noēsis writes them: a list of text labels (``"<kind>:<description>"``)."""
    return type(steps) is list and all(type(step) is str for step in steps)
