"""A progress bar for long loads: ``tqdm.auto`` (a widget in notebooks, text elsewhere).

In a notebook the bar is shown under a display id and replaced by an empty output once the load ends: a bar
closed the ordinary way left its first text (``runs: 0%| | 0/240``) in the saved notebook, which is what
GitHub, nbviewer and a reader without the widget state see.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any, TypeVar

__all__ = ["progress", "AUTO_PROGRESS_RUNS"]

T = TypeVar("T")
AUTO_PROGRESS_RUNS = 200  # loads of more runs than this may take seconds
_EMPTY = {"text/plain": ""}  # what the bar's output holds once the load has ended


def progress(items: Sequence[T], show: bool | None, what: str) -> Iterable[T]:
    """``items`` wrapped in a bar when ``show`` is True, or None and there are many runs."""
    if show is False or (show is None and len(items) <= AUTO_PROGRESS_RUNS):
        return items
    try:
        from tqdm.auto import tqdm
    except ImportError:  # pragma: no cover - tqdm is a dependency
        return items
    if _widget_bar(tqdm):
        return _in_notebook(tqdm, items, what)
    bar: Iterable[T] = tqdm(items, desc=f"noesis_nb: {what}", unit="run", leave=False)
    return bar


def _widget_bar(tqdm: Any) -> bool:
    """Whether ``tqdm.auto`` chose the notebook's widget bar (a kernel with ipywidgets)."""
    try:
        from tqdm.notebook import tqdm_notebook
    except ImportError:  # pragma: no cover - tqdm.notebook ships with tqdm
        return False
    return isinstance(tqdm, type) and issubclass(tqdm, tqdm_notebook)


def _in_notebook(tqdm: Any, items: Sequence[T], what: str) -> Iterator[T]:
    """Iterate under a widget bar displayed with a display id, then put an empty output in its place."""
    from IPython.display import display

    bar = tqdm(items, desc=f"noesis_nb: {what}", unit="run", leave=False, display=False)
    shown = display(bar.container, display_id=True)  # type: ignore[no-untyped-call]
    try:
        yield from bar
    finally:
        bar.close()
        if shown is not None:
            shown.update(_EMPTY, raw=True)
