"""How a live handle shows itself in a notebook: a hook the widgets fill in when they load.

The runtime never imports the widgets. ``noesis_nb.widgets`` calls :func:`set_presenter` on
import; ``noesis_nb``'s top-level names (``start``, ``show``…) load the widgets when an IPython
shell is running, so a handle displayed in a notebook always has its live view.
"""

from __future__ import annotations

from typing import Any, Protocol

__all__ = ["Presenter", "set_presenter", "presenter"]


class Presenter(Protocol):
    def mimebundle(self, source: Any, include: Any = None, exclude: Any = None) -> dict[str, Any]: ...
    def display(self, source: Any) -> None: ...
    def refresh(self, source: Any) -> None: ...


_PRESENTER: Presenter | None = None


def set_presenter(value: Presenter | None) -> None:
    global _PRESENTER
    _PRESENTER = value


def presenter() -> Presenter | None:
    """The registered presenter, or None (no widgets loaded: handles show as their text line)."""
    return _PRESENTER
