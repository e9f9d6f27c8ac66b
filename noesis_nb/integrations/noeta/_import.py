"""``import_noeta``: saved Noeta envelopes → a sealed Noēsis run (no ``noeta`` package needed).

A task's log ends in ``TaskCompleted``, ``TaskFailed`` or ``TaskCancelled``; one without (left suspended waiting for
a human, or cut short) is imported as an ``error`` run naming what is missing, never a success.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..replay import import_rows
from ._envelopes import noeta_rows

__all__ = ["import_noeta"]


def import_noeta(envelopes: Iterable[Any], *, task: str | None = None, **opts: Any) -> str:
    """Replay ``envelope_to_dict`` dicts as an episode; ``task`` defaults to the recorded goal. Returns the episode id."""
    rows = noeta_rows(envelopes)
    if task is None:
        goal = next((p.get("data", {}).get("goal") for _, p in rows if p.get("event_name") == "noeta.TaskCreated"), None)
        task = goal if isinstance(goal, str) and goal.strip() else None  # a recorded goal that is no text is not the task
    return import_rows(
        rows,
        task=task or "imported Noeta task",
        source="noeta",
        end_names="TaskCompleted, TaskFailed or TaskCancelled",  # every complete task log ends in one
        end_required=True,
        **opts,
    )
