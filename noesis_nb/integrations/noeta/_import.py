"""``import_noeta``: saved Noeta envelopes → a sealed Noēsis run (no ``noeta`` package needed)."""

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
    return import_rows(rows, task=task or "imported Noeta task", source="noeta", **opts)
