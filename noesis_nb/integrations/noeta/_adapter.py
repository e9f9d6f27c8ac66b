"""``NoetaAdapter``: a Noeta SDK agent (``noeta.sdk.Client``) as a Noēsis episode.

Noeta's API is synchronous, so every client call runs in a worker thread; ``subscribe`` feeds
each committed envelope into the timeline as it happens, each task's in ``seq`` order (``_order``). A gated tool call (the task
suspends with wake handle ``approval-<call_id>``) becomes a pending draft: Approve calls
``client.approve``, Reject calls ``client.deny`` with the reason. A call Noeta ran without asking is recorded as a
tool call that needed no approval once its result is in (``_calls``). Never pass a
``can_use_tool`` callback here: it would block inside the engine while the notebook has to
serve the click. The conversation projection (``client.messages``) is saved as
``x-noeta/messages.json`` in the run directory before the client shuts down.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..._exitjoin import finish_before_exit
from ..._jsonio import atomic_write_json, to_jsonable
from ..._threads import to_thread
from ...errors import EpisodeStateError, NoesisNbError
from ...secrets.quoted import quoted
from ...store.paths import run_path
from .._approvals import request_approval, tool_name
from .._emit import PHASE, apply_output, emit_row, emit_rows, row
from .._extras import require
from ._calls import UngatedCalls
from ._envelopes import NoetaFolder
from ._order import SeqOrder

__all__ = ["NoetaAdapter", "NoetaTaskError", "STOP_WAIT_S"]

STOP_WAIT_S = 15.0  # the longest the interpreter's exit waits for a stopped task's interrupt and client shutdown


class NoetaTaskError(NoesisNbError):
    """The Noeta task failed, or stopped for something other than a tool approval."""


class NoetaAdapter:
    """Run a Noeta agent: ``NoetaAdapter(Options(...), provider=..., model=...)``.

    ``client_factory()`` may build the ``Client`` instead (e.g. with a ``HostConfig``).
    ``input_mapper(task)`` returns the goal string; ``output(answer)`` maps the final answer
    (may be async). ``risk`` is the tier shown on the approval card.
    """

    source = "noeta"
    # why ``handle.steer`` is refused up front (``EpisodeHandle.steer``): a steer sent would never be heard
    steer_refusal = (
        "the Noeta client API used here has no follow-up message, so a steer would never reach the agent; "
        "put the instruction in the task, or cancel and start again with it"
    )

    def __init__(
        self,
        options: Any = None,
        *,
        provider: Any = None,
        model: str | None = None,
        workspace_dir: Any = None,
        client_factory: Callable[[], Any] | None = None,
        input_mapper: Callable[[str], Any] | None = None,
        output: Callable[[Any], Any] | None = None,
        risk: str = "high",
        resolver: str = "noesis_nb",
        approval_timeout_s: float = 3600.0,
        max_approvals: int = 100,
    ):
        self._sdk = require("noeta.sdk", "noeta", "NoetaAdapter")
        if client_factory is None and (options is None or (provider is None and getattr(options, "provider", None) is None)):
            raise ValueError(
                "NoetaAdapter needs Options and a provider: NoetaAdapter(Options(...), provider=FakeLLMProvider(...)), "
                "or client_factory=lambda: Client(...)"
            )
        self.options, self.provider, self.model, self.workspace_dir = options, provider, model, workspace_dir
        self.client_factory, self.output, self.risk, self.resolver = client_factory, output, risk, resolver
        self.approval_timeout_s, self.max_approvals = approval_timeout_s, max_approvals
        if input_mapper is not None:
            self.__noesis_input_mapper__ = input_mapper

    def __repr__(self) -> str:
        return f"NoetaAdapter({getattr(self.options, 'name', None) or 'client_factory'!r})"

    def _client(self) -> Any:
        if self.client_factory is not None:
            return self.client_factory()
        return self._sdk.Client(
            self.options,
            provider=self.provider,
            model=self.model,
            multi_turn=False,
            workspace_dir=Path(self.workspace_dir) if self.workspace_dir else None,
        )

    async def invoke(self, goal: Any, ctx: Any) -> Any:
        if not isinstance(goal, str) or not goal:
            raise TypeError(f"NoetaAdapter needs a goal string, got {quoted(goal)}; input_mapper must return a string")
        client = await to_thread(self._client)
        folder, order, lock = NoetaFolder(), SeqOrder(), threading.Lock()
        calls = UngatedCalls()  # tool calls Noeta ran without asking: recorded once their result is in
        seen: dict[str, str] = {}
        to_dict = self._sdk.envelope_to_dict

        def land(released: list[tuple[dict[str, Any], bool]]) -> None:
            """Fold and write envelopes in the order given (the lock held: two threads' rows never interleave)."""
            for data, late in released:
                calls.see(data)
                try:
                    emit_rows(ctx, folder.feed(data, out_of_order=late or None))
                except EpisodeStateError:
                    pass  # the episode already ended (cancelled, timed out); Noeta is being stopped

        def on_envelope(envelope: Any) -> None:  # runs in whichever thread committed it
            with lock:
                data = to_dict(envelope)
                seen.setdefault("task_id", data.get("task_id"))
                land(order.arrive(data))

        def settle() -> None:  # a client call returned: what it committed has been delivered, or never will be
            with lock:
                land(order.release_all())

        unsubscribe = client.subscribe(on_envelope)
        finished = False
        stops: list[Callable[[], Any]] = []
        try:
            outcome = await to_thread(client.start, goal=goal)
            settle()
            await calls.record(ctx)
            for _ in range(self.max_approvals):
                call_id = _approval_call_id(outcome)
                if call_id is None:
                    break
                outcome = await self._decide(client, outcome.task_id, call_id, folder, ctx)
                settle()
                await calls.record(ctx)
            answer = await to_thread(self._finish, client, outcome, folder, ctx)
            finished = True
        except BaseException:
            if seen.get("task_id"):
                stops.append(lambda: client.interrupt(seen["task_id"], reason="stopped by noesis_nb"))
            raise
        finally:
            unsubscribe()
            settle()
            if finished:
                await to_thread(client.shutdown)
            else:  # the interrupt, then the shutdown (it kills the task's background shells), finished before exit
                finish_before_exit([*stops, client.shutdown], name="noesis_nb-noeta-stop", wait_s=STOP_WAIT_S)
        return await apply_output(self.output, answer)

    async def _decide(self, client: Any, task_id: str, call_id: str, folder: NoetaFolder, ctx: Any) -> Any:
        request = folder.approvals.get(call_id, {})
        details = {
            "task_id": task_id,
            "call_id": call_id,
            "tool_name": request.get("tool_name"),
            "arguments": request.get("arguments"),
            "arguments_ref": request.get("arguments_ref"),
        }
        approved, outcome, reason = await request_approval(
            ctx,
            tool_name("noeta", request.get("tool_name")),
            details,
            risk=self.risk,
            timeout_s=self.approval_timeout_s,
            on_approve=lambda: client.approve(task_id, call_id=call_id, resolver=self.resolver),
        )
        if not approved:
            outcome = await to_thread(
                client.deny, task_id, call_id=call_id, reason=reason or "rejected in noesis_nb", resolver=self.resolver
            )
        return outcome

    def _finish(self, client: Any, outcome: Any, folder: NoetaFolder, ctx: Any) -> Any:
        task_id = outcome.task_id
        messages = to_jsonable(client.messages(task_id))
        # through run_path: an ``x-noeta`` someone linked to a folder elsewhere is refused, never written into
        target = run_path(ctx.run_dir, "x-noeta", "messages.json", mkdir=True)
        atomic_write_json(target, {"task_id": task_id, "messages": messages})
        emit_row(
            ctx,
            row(
                PHASE,
                "noeta",
                "messages",
                "messages_projection",
                task_id=task_id,
                count=len(messages),
                path="x-noeta/messages.json",
            ),
        )
        if folder.failure is not None:
            raise NoetaTaskError(f"the Noeta task {task_id} failed: {folder.failure}")
        if outcome.status != "terminal":
            reason = client.suspend_reason(task_id)
            raise NoetaTaskError(
                f"the Noeta task {task_id} stopped with status {quoted(outcome.status)} ({reason}); noesis_nb answers "
                "tool approvals only: use multi_turn=False and no ask-user tools"
            )
        return client.task_answer(task_id)


def _approval_call_id(outcome: Any) -> str | None:
    handle = getattr(outcome, "wake_handle", None) or ""
    if getattr(outcome, "status", None) == "suspended" and handle.startswith("approval-"):
        return handle[len("approval-") :]
    return None
