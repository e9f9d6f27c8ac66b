"""A progress bar for long loads: ``tqdm.auto`` (a widget in notebooks, text elsewhere)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TypeVar

__all__ = ["progress", "AUTO_PROGRESS_RUNS"]

T = TypeVar("T")
AUTO_PROGRESS_RUNS = 200  # loads of more runs than this may take seconds


def progress(items: Sequence[T], show: bool | None, what: str) -> Iterable[T]:
    """``items`` wrapped in a bar when ``show`` is True, or None and there are many runs."""
    if show is False or (show is None and len(items) <= AUTO_PROGRESS_RUNS):
        return items
    try:
        from tqdm.auto import tqdm
    except ImportError:  # pragma: no cover - tqdm is a dependency
        return items
    bar: Iterable[T] = tqdm(items, desc=f"noesis_nb: {what}", unit="run", leave=False)
    return bar
