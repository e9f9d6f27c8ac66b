"""What a view shows, computed without widgets: a tally of events and the header fields.

``Tally`` is fed by the view's flusher (one thread); ``view_state`` reads a handle-like
source (a live ``EpisodeHandle`` or a run from disk) and is what both the live header and
the static snapshot render.
"""

from __future__ import annotations

import threading
import time
from collections import Counter, deque
from collections.abc import Mapping, Sequence
from datetime import datetime
from operator import itemgetter
from typing import Any

from ..runtime.source import RunSource
from ..store.vocab import TERMINAL_STATUSES, TOKEN_FIELDS
from .render import event_flag

__all__ = ["Tally", "CostMeter", "view_state", "format_tokens", "format_cost", "format_elapsed", "TERMINAL"]

TERMINAL = TERMINAL_STATUSES
# phases that stand out only through payload.error / payload.status (checked cheaply first)
_QUIET = frozenset(
    {
        "model",
        "reason",
        "start",
        "observe",
        "interpret",
        "plan",
        "direction",
        "action_candidate",
        "act",
        "reflect",
        "learn",
        "insight",
        "memory",
        "integration",
    }
)


class Tally:
    """Running counts by phase and flag, plus the newest ``keep`` events."""

    def __init__(self, keep: int = 50):
        self.total = 0
        self.counts: Counter[str] = Counter()
        self.flags: Counter[str] = Counter({"pause": 0, "veto": 0, "error": 0})
        self.recent: deque[Mapping[str, Any]] = deque(maxlen=keep)

    def extend(self, events: list[Mapping[str, Any]]) -> None:
        """Count a batch (the hot path of a redraw: ~0.3 µs an event)."""
        counts, flags, quiet = self.counts, self.flags, _QUIET
        for event in events:
            phase = event.get("phase") or "?"
            counts[phase] = counts.get(phase, 0) + 1
            if phase in quiet:
                payload = event.get("payload")
                if type(payload) is not dict and not isinstance(payload, Mapping):
                    continue
                if not (payload.get("error") or payload.get("status")):
                    continue
            flag = event_flag(event)
            if flag:
                flags[flag] += 1
        self.total += len(events)
        self.recent.extend(events[-(self.recent.maxlen or len(events)) :])


def format_tokens(usage: Mapping[str, Any] | None, calls: Sequence[Mapping[str, Any]] | None = None) -> str:
    """``"105 in · 7+? out (2 calls)"``: totals of the known counts, ``+?`` when a call's count is unknown."""
    if not usage or not usage.get("model_calls"):
        return "—"

    def part(key: str) -> str:
        unknown = any(not isinstance(call.get(key), (int, float)) for call in calls or ())
        return f"{usage.get(key) or 0:,}" + ("+?" if unknown else "")

    return f"{part('input_tokens')} in · {part('output_tokens')} out ({usage['model_calls']:,} calls)"


_CALL_KEYS = ("provider", "model", *TOKEN_FIELDS[:4])  # the counts a price needs
_CALL_FIELDS = itemgetter(*_CALL_KEYS)


class CostMeter:
    """Running cost of a source's ``usage_calls``, priced with ``noesis_nb.cost`` (the analysis price source).

    Tokens are summed per (provider, model) as calls arrive and priced once per group (cost is
    linear in tokens). ``noesis_nb.cost`` loads pandas, so it is imported on a worker thread:
    until it is ready the cost reads ``…``; without it, ``—``.
    """

    _lock = threading.Lock()
    _loader: threading.Thread | None = None
    _module: Any = None
    _pricer: Any = None
    _failed = False

    def __init__(self) -> None:
        self._seen = 0
        self._groups: dict[tuple[Any, Any], list[float]] = {}  # -> [input, output, cached, cache_write, unknown calls]

    @classmethod
    def _load(cls) -> None:
        try:
            from .. import cost

            pricer = cost.Pricer()
            pricer.lookup("gpt-4o-mini", "openai")  # warm genai-prices' snapshot off the loop too
        except Exception:
            cls._failed = True
            return
        cls._pricer, cls._module = pricer, cost

    @classmethod
    def ready(cls) -> bool | None:
        """True when prices can be computed, None while loading, False when there is no price source."""
        if cls._module is not None:
            return True
        if cls._failed:
            return False
        with cls._lock:
            if cls._loader is None:
                cls._loader = threading.Thread(target=cls._load, name="noesis_nb-prices", daemon=True)
                cls._loader.start()
        return None

    @classmethod
    def wait(cls, timeout: float = 10.0) -> None:
        """Block until the price source has loaded (for final snapshots, which must not say ``…``)."""
        if cls.ready() is None and cls._loader is not None:
            cls._loader.join(timeout)

    def text(self, calls: Sequence[Mapping[str, Any]] | None) -> str:
        if not calls:
            return "—"
        ready = self.ready()
        if not ready:
            return "…" if ready is None else "—"
        if len(calls) < self._seen:  # a different list: start again
            self._seen, self._groups = 0, {}
        new = calls[self._seen :]
        try:
            rows = list(map(_CALL_FIELDS, new))  # C speed; every engine call row has all the fields
        except (KeyError, TypeError):
            rows = [tuple(call.get(k) for k in _CALL_KEYS) for call in new]
        groups = self._groups
        for provider, model, inp, out, cached, cache_write in rows:
            group = groups.get((provider, model))
            if group is None:
                group = groups[(provider, model)] = [0.0, 0.0, 0.0, 0.0, 0]
            if inp is None or out is None:
                group[4] += 1
                continue
            group[0] += inp
            group[1] += out
            group[2] += cached or 0
            group[3] += cache_write or 0
        self._seen = len(calls)
        total, priced, unpriced = 0.0, False, 0
        for (provider, model), (inp, out, cached, cache_write, unknown) in self._groups.items():
            price = self._pricer.lookup(str(model), provider) if model else None
            if price is None:
                unpriced += 1
                continue
            total += self._module.cost_of(price, inp, out, cached, cache_write)
            priced = True
            unpriced += int(unknown)  # a count of calls
        if not priced:
            return "—"
        return f"${total:,.4f}" + (" + unpriced calls" if unpriced else "")


def format_cost(usage_calls: Sequence[Mapping[str, Any]] | None, meter: CostMeter | None = None) -> str:
    """Cost so far from the analysis price source, ``…`` while it loads, ``—`` when unknown."""
    return (meter or CostMeter()).text(usage_calls)


def _epoch(value: Any) -> float | None:
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str) and value:
        try:
            return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
        except ValueError:
            return None
    return None


def format_elapsed(started: Any, ended: Any, status: str, now: float | None = None) -> str:
    start = _epoch(started)
    if start is None:
        return "—"
    end = _epoch(ended)
    if end is None:
        if status in TERMINAL:
            return "—"
        end = time.time() if now is None else now
    seconds = max(0.0, end - start)
    return f"{seconds:.1f} s" if seconds < 60 else f"{int(seconds // 60)} min {seconds % 60:04.1f} s"


def view_state(source: RunSource, tally: Tally, now: float | None = None, meter: CostMeter | None = None) -> dict[str, Any]:
    """Everything the header and the snapshot need, read once from ``source``."""
    status = source.status
    header = {
        "episode_id": source.episode_id,
        "task": source.task,
        "using": source.using,
        "status": status,
        "elapsed": format_elapsed(source.started_at, source.ended_at, status, now),
        "tokens": format_tokens(source.usage, source.usage_calls),
        "cost": format_cost(source.usage_calls, meter),
    }
    return {
        "header": header,
        "status": status,
        "pending": [] if status in TERMINAL else list(source.pending),  # an ended run waits for nobody
        "decisions": list(source.decisions),
        "recent": list(tally.recent),
        "total": tally.total,
        "counts": dict(tally.counts),
        "flags": dict(tally.flags),
    }
