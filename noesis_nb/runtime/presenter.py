"""How a live handle shows itself in a notebook: a hook the widgets fill in when they load.

The runtime never imports the widgets. ``noesis_nb.widgets`` calls :func:`set_presenter` on
import, and the package's top level (which sits above every layer) registers a loader for them,
so the first time IPython displays a handle its live view is there.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

__all__ = ["Presenter", "set_presenter", "set_loader", "presenter"]


class Presenter(Protocol):
    def mimebundle(self, source: Any, include: Any = None, exclude: Any = None) -> dict[str, Any]: ...
    def display(self, source: Any) -> None: ...
    def refresh(self, source: Any) -> None: ...


_PRESENTERS: dict[str, Presenter] = {}  # by kind: "episode" (handles, runs on disk), "batch" (batch handles)
_LOADER: Callable[[], object] | None = None


def set_presenter(value: Presenter | None, kind: str = "episode") -> None:
    if value is None:
        _PRESENTERS.pop(kind, None)
    else:
        _PRESENTERS[kind] = value


def set_loader(loader: Callable[[], object] | None) -> None:
    """What loads the presenter on first need (``noesis_nb`` registers the widgets' import)."""
    global _LOADER
    _LOADER = loader


def presenter(*, load: bool = True, kind: str = "episode") -> Presenter | None:
    """The presenter of ``kind``, loaded on first need (``load=False``: only one already loaded); None without widgets."""
    global _LOADER
    if kind not in _PRESENTERS and load and _LOADER is not None:
        loader, _LOADER = _LOADER, None
        try:
            loader()
        except ImportError:  # ipywidgets absent: handles show as their text line
            pass
    return _PRESENTERS.get(kind)
