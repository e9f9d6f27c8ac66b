"""What the header's cost figure costs to keep current: each model call looked at once.

``CostMeter`` prices a source's ``usage_calls`` with ``noesis_nb.cost`` (the analysis price source),
loaded on a worker thread so the kernel's loop never waits for pandas.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from operator import itemgetter
from typing import Any

from ..store.vocab import TOKEN_FIELDS
from .money import money

__all__ = ["CostMeter", "format_cost"]


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

    @classmethod
    def price_of(cls, call: Mapping[str, Any]) -> float | None:
        """One model call's cost (a step's summary), None while prices load or when unknown."""
        if cls._module is None or not call.get("model"):
            return None
        inp, out = call.get("input_tokens"), call.get("output_tokens")
        if not isinstance(inp, (int, float)) or not isinstance(out, (int, float)):
            return None
        price = cls._pricer.lookup(str(call["model"]), call.get("provider"))
        if price is None:
            return None
        cost = cls._module.cost_of(
            price, inp, out, call.get("cached_input_tokens") or 0, call.get("cache_write_input_tokens") or 0
        )
        return None if cost != cost else float(cost)  # NaN: unknown

    def text(self, calls: Sequence[Mapping[str, Any]] | None) -> str:
        if not calls:
            return "—"
        ready = self.ready()
        if not ready:
            return "…" if ready is None else "—"
        total, unpriced = self.total(calls)
        if total is None:
            return "—"
        return money(total) + (" + unpriced calls" if unpriced else "")

    def total(self, calls: Sequence[Mapping[str, Any]]) -> tuple[float | None, int]:
        """(cost of the priced calls, or None when none could be priced; how many could not be), once prices are ready.

        Only the calls added since the last look are summed (a meter follows one growing list)."""
        if not self.ready():
            return None, 0
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
        return (total if priced else None), unpriced


def format_cost(usage_calls: Sequence[Mapping[str, Any]] | None, meter: CostMeter | None = None) -> str:
    """Cost so far from the analysis price source, ``…`` while it loads, ``—`` when unknown."""
    return (meter or CostMeter()).text(usage_calls)
