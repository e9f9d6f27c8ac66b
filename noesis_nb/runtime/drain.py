"""A graceful stop: nothing new starts, work in flight gets up to ``drain_s`` to finish, then the episode ends ``cancelled``.

``EpisodeHandle.cancel(drain_s=…)`` opens a :class:`Drain`. From then on a tool call through
``ctx.tool``/``ctx.tool_async`` and a model call through a captured SDK raise
:class:`~noesis_nb.errors.EpisodeStopping` inside the adapter and are recorded as ``drain.refused``
(never started). The tool and model calls in flight when the drain began are watched: when all
have finished (``settled``), the deadline passes (``deadline``) or a second stop arrives
(``stopped``), ``drain.report`` is written and the episode is cancelled and sealed. The report says
what finished (with its usage) and what was cut off.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import EpisodeStopping
from ..secrets import shown_repr
from ..secrets.quoted import quoted
from ..store.facts import UsageTotals, call_row
from ..store.phases import DRAIN_PHASE
from ..store.vocab import DRAIN_REFUSED, DRAIN_REPORT, DRAIN_STARTED

__all__ = [
    "Drain",
    "DrainReport",
    "InFlight",
    "set_pricer",
    "call_started",
    "call_ended",
    "refuse_while_draining",
    "draining",
]

# prices model calls (``noesis_nb.cost``, which sits above the runtime; the package's top level registers it)
_PRICER: Callable[[Sequence[Mapping[str, Any]]], list[float | None]] | None = None


def set_pricer(pricer: Callable[[Sequence[Mapping[str, Any]]], list[float | None]] | None) -> None:
    global _PRICER
    _PRICER = pricer


@dataclass(eq=False)
class InFlight:
    """One tool or model call that has started and not finished (compared by identity: two calls of the same
    name started in the same clock tick are still two)."""

    kind: str  # "tool" | "model" | "node" (a step a framework runs itself: a graph's node)
    name: str
    started: float = field(default_factory=time.monotonic)
    # noted by ``LeftRunning.track`` (a call of a task on the episode's loop): only such a call is ended there
    tracked: bool = field(default=False, init=False, repr=False)

    def __repr__(self) -> str:
        return shown_repr(self)

    def row(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name, "running_s": round(time.monotonic() - self.started, 3)}


@dataclass(frozen=True)
class DrainReport:
    """How a graceful stop ended: ``reason`` (settled, deadline, stopped), how long it took, what finished, what was cut off."""

    reason: str
    duration_s: float
    drain_s: float
    # {kind, name, status, event_id, and for a model call its token counts}; status ``background``: a background
    # response the provider took (nothing in flight here), written once it is seen to end, not counted here
    finished: list[dict[str, Any]]
    cut_off: list[dict[str, Any]]  # {kind, name, running_s}
    refused: list[dict[str, Any]]  # {kind, name}: asked for while draining, never started

    def __repr__(self) -> str:  # a cell ending with ``handle.stop()`` prints it: the calls' names, minus secrets
        return shown_repr(self)

    @property
    def usage(self) -> dict[str, Any]:
        """Token totals of the model calls that finished during the drain: each None (unknown) when any of them did
        not report it, read as the summary and a live handle read them."""
        return UsageTotals.of([call_row(c) for c in self._model_calls()]).totals

    def _model_calls(self) -> list[dict[str, Any]]:
        """The model calls that finished, background responses left out (their usage comes when they end)."""
        return [c for c in self.finished if c.get("kind") == "model" and c.get("status") != "background"]

    @property
    def cost_usd(self) -> float | None:
        """What the finished model calls cost (priced now from the analysis price table); None when unknown."""
        calls = self._model_calls()
        if not calls:
            return 0.0
        if _PRICER is None:
            return None
        prices = _PRICER(calls)
        return None if any(p is None for p in prices) else float(sum(p for p in prices if p is not None))

    def payload(self) -> dict[str, Any]:
        return {
            "event_name": DRAIN_REPORT,
            "reason": self.reason,
            "duration_s": self.duration_s,
            "drain_s": self.drain_s,
            "finished": self.finished,
            "cut_off": self.cut_off,
            "refused": self.refused,
        }

    def __str__(self) -> str:
        return (
            f"drain {self.reason} after {self.duration_s:.2f} s (≤ {self.drain_s:g} s): {len(self.finished)} finished, "
            f"{len(self.cut_off)} cut off, {len(self.refused)} refused"
        )


class Drain:
    """One graceful stop of one episode (thread-safe; its waiting runs on the episode's loop)."""

    def __init__(self, recorder: Any, drain_s: float, sender: str, in_flight: list[InFlight]):
        self._rec = recorder
        self.drain_s = drain_s
        self.started = time.monotonic()
        self._lock = threading.Lock()
        self._watched: list[InFlight] = list(in_flight)
        self._finished: list[dict[str, Any]] = []
        self._refused: list[dict[str, Any]] = []
        self._wake: Callable[[], None] = lambda: None
        self._stop_now = False
        self.report: DrainReport | None = None
        recorder.emit(
            DRAIN_PHASE,
            {"event_name": DRAIN_STARTED, "drain_s": drain_s, "sender": sender, "in_flight": [c.row() for c in in_flight]},
            agent_id=f"human:{sender}",
        )

    # -- what the episode tells it ------------------------------------------------------------
    def refuse(self, kind: str, name: str) -> EpisodeStopping:
        """A call asked for while draining: recorded as never started; returns the error to raise in the adapter."""
        with self._lock:
            self._refused.append({"kind": kind, "name": name})
        try:
            self._rec.emit(DRAIN_PHASE, {"event_name": DRAIN_REFUSED, "kind": kind, "name": name}, agent_id="drain")
        except Exception:  # the run is being sealed: the report (or its absence) says it
            pass
        return EpisodeStopping(
            f"the episode is stopping (letting running calls finish, ≤ {self.drain_s:g} s): the {kind} call "
            f"{quoted(name)} was not "
            "started; finish up and return"
        )

    def finished(self, call: InFlight, row: Mapping[str, Any]) -> None:
        """A watched call finished (``row``: its status and usage); the drain may now be settled."""
        with self._lock:
            if call not in self._watched:
                return
            self._watched.remove(call)
            self._finished.append({"kind": call.kind, "name": call.name, **row})
        self._wake()

    def stop_now(self) -> None:
        """A second stop: end the drain at once."""
        self._stop_now = True
        self._wake()

    # -- waiting (on the loop) ----------------------------------------------------------------
    async def wait(self) -> str:
        """Wait until the watched calls are done, the deadline passes, or a second stop comes; returns the reason."""
        loop = asyncio.get_running_loop()
        changed = asyncio.Event()

        def wake() -> None:
            loop.call_soon_threadsafe(changed.set)

        self._wake = wake
        deadline = self.started + self.drain_s
        while True:
            with self._lock:
                settled = not self._watched
            if self._stop_now:
                return "stopped"
            if settled:
                return "settled"
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return "deadline"
            changed.clear()
            try:
                await asyncio.wait_for(changed.wait(), remaining)
            except TimeoutError:
                pass

    def close(self, reason: str) -> DrainReport:
        """Write ``drain.report`` once (later calls return the same report)."""
        with self._lock:
            if self.report is not None:
                return self.report
            self.report = DrainReport(
                reason=reason,
                duration_s=round(time.monotonic() - self.started, 3),
                drain_s=self.drain_s,
                finished=list(self._finished),
                cut_off=[c.row() for c in self._watched],
                refused=list(self._refused),
            )
        try:
            self._rec.emit(DRAIN_PHASE, self.report.payload(), agent_id="drain")
        except Exception:
            pass
        return self.report


def call_started(ctx: Any, kind: str, name: str) -> InFlight | None:
    """A call an adapter runs itself (a graph's node, a framework's own tool) starts now: a drain begun while it runs
    lets it finish; while draining it is refused instead (``EpisodeStopping``, recorded as ``drain.refused``).
    None for a context of no episode (the call is not watched)."""
    episode = getattr(ctx, "_episode", None)
    return None if episode is None else episode.start_call(kind, name)


def call_ended(ctx: Any, call: InFlight | None, status: str) -> None:
    """The call ``call_started`` returned ended (``status``: ok, error…): a drain watching it may now settle."""
    episode = getattr(ctx, "_episode", None)
    if episode is not None and call is not None:
        episode.end_call(call, {"status": status})


def refuse_while_draining(ctx: Any, kind: str, name: str) -> None:
    """Raise ``EpisodeStopping`` (recorded as ``drain.refused``) when the episode drains: for a call an adapter does
    not watch itself (a model call a captured SDK watches, when captured) but which must not start now."""
    episode = getattr(ctx, "_episode", None)
    drain = None if episode is None else episode.drain
    if drain is not None:
        raise drain.refuse(kind, name)


def draining(ctx: Any) -> bool:
    """Whether the episode of ``ctx`` has begun a graceful stop."""
    episode = getattr(ctx, "_episode", None)
    return episode is not None and episode.drain is not None
