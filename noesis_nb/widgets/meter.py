"""What the header's cost figure costs to keep current: each model call priced once, as it arrives.

``CostMeter`` prices a source's ``usage_calls`` with ``noesis_nb.cost.call_costs``, the rule ``usage_df`` and
``runs_df`` price by (tiers per call, a price in effect at the call's time), loaded on a worker thread so the
kernel's loop never waits for pandas.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import Any

from .money import money

__all__ = ["CostMeter", "format_cost", "cost_words"]


def cost_words(priced: float | None, unpriced: int) -> str:
    """A cost as every live surface says it: ``$0.0035``, ``$0.0035 + unpriced calls`` when some calls could not be
    priced (usage_df's ``priced=False``, runs_df's NaN), ``—`` when none could."""
    if priced is None:
        return "—"
    return money(priced) + (" + unpriced calls" if unpriced else "")


class CostMeter:
    """Running cost of a source's ``usage_calls``, priced with ``noesis_nb.cost`` (the analysis price source).

    Each call is priced once, when it is first seen, and added to a running total: a tiered price
    (``claude-sonnet-4-5``, ``gemini-2.5-pro``) or one that depends on the time of the call prices
    each call apart, as ``usage_df`` does, so summed tokens would not do. ``noesis_nb.cost`` loads
    pandas, so it is imported on a worker thread: until it is ready the cost reads ``…``; without it, ``—``.
    """

    _lock = threading.Lock()
    _loader: threading.Thread | None = None
    _module: Any = None
    _pricer: Any = None
    _failed = False

    def __init__(self) -> None:
        self._seen = 0
        self._sum = 0.0
        self._priced = 0  # calls priced so far
        self._unpriced = 0  # calls whose cost is unknown (unknown counts, or no price for the model)

    @classmethod
    def _load(cls) -> None:
        try:
            from .. import cost

            pricer = cost.Pricer()
            cost.call_costs(pricer, [{"model": "gpt-4o-mini", "provider": "openai", "input_tokens": 1, "output_tokens": 1}])
        except Exception:  # warm genai-prices' snapshot off the loop too
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
        """One model call's cost (a step's summary) by the header's rule: NaN when it cannot be priced (an unknown model
        or token count: the header's ``+ unpriced calls``), None while prices load or without a price source."""
        if cls._module is None:
            return None
        return float(cls._module.call_costs(cls._pricer, [call])[0])

    def text(self, calls: Sequence[Mapping[str, Any]] | None, *, none_known: bool = False) -> str:
        """The cost of ``calls``; with none, ``$0.00`` when ``none_known`` (the run made no call) and ``—`` otherwise."""
        if not calls:  # nothing to price
            return money(0.0) if none_known else "—"
        ready = self.ready()
        if not ready:
            return "…" if ready is None else "—"
        return cost_words(*self.total(calls))

    def total(self, calls: Sequence[Mapping[str, Any]]) -> tuple[float | None, int]:
        """(cost of the priced calls, or None when none could be priced; how many could not be), once prices are ready.

        Only the calls added since the last look are priced (a meter follows one growing list)."""
        if not self.ready():
            return None, 0
        if len(calls) < self._seen:  # a different list: start again
            self._seen, self._sum, self._priced, self._unpriced = 0, 0.0, 0, 0
        if len(calls) > self._seen:
            costs = self._module.call_costs(self._pricer, calls[self._seen :])
            known = costs[costs == costs]
            self._sum += float(known.sum())
            self._priced += len(known)
            self._unpriced += len(costs) - len(known)
            self._seen = len(calls)
        return (self._sum if self._priced else None), self._unpriced


def format_cost(
    usage_calls: Sequence[Mapping[str, Any]] | None, meter: CostMeter | None = None, *, none_known: bool = False
) -> str:
    """Cost so far from the analysis price source, ``…`` while it loads, ``—`` when unknown (``$0.00`` for a run
    known to have made no model call: ``none_known``)."""
    return (meter or CostMeter()).text(usage_calls, none_known=none_known)
