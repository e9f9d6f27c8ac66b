"""Displaying views: one view per handle, updatable displays, and the final re-render for nbclient.

Every bundle carries the widget, a stable ``text/plain`` line and an escaped ``text/html``
snapshot. ``display_handle`` shows a view with a display id, so ``refresh_display`` (and the
view itself, when the episode settles) can update that output in place; nbclient keeps an
update only while a cell executes, which is why ``await handle`` calls ``refresh_display``.
"""

from __future__ import annotations

import os
from typing import Any

from ..runtime.diskrun import DiskRun
from ..runtime.inboxitems import source_for
from ..runtime.resolve import refuse_non_adapter, resolve_using
from ..runtime.source import RunSource
from ..store import find_run_dir, is_sealed
from .bundle import execution_count
from .state import TERMINAL
from .view import EpisodeView

__all__ = ["view_for", "handle_mimebundle", "display_handle", "refresh_display", "show", "WidgetPresenter"]

_ATTR = "_noesis_nb_view"


def view_for(handle: Any, **options: Any) -> EpisodeView:
    """The one view of ``handle``, created on first use and kept on the handle.

    ipywidgets keeps every open widget alive, so the view (and the handle it follows) stays in
    memory until ``view.close()``, which closes its widgets and frees both.
    """
    if isinstance(handle, EpisodeView):
        return handle
    view = getattr(handle, _ATTR, None)
    if view is None or view.closed:
        view = EpisodeView(handle, **options)
        setattr(handle, _ATTR, view)
    return view


def handle_mimebundle(handle: Any, include: Any = None, exclude: Any = None) -> dict[str, Any]:
    """What ``EpisodeHandle._repr_mimebundle_`` returns: widget + ``text/plain`` + ``text/html``.

    If this cell already displayed the view (``%noesis run``, ``show``), the cell's ``Out``
    carries only the ``text/plain`` line, so the view is not shown twice.
    """
    return view_for(handle)._repr_mimebundle_(include, exclude)


def display_handle(handle: Any, **options: Any) -> Any:
    """Display the view of ``handle`` (or a view) with a display id; returns the IPython ``DisplayHandle``."""
    return view_for(handle, **options).display()


def refresh_display(handle: Any) -> Any:
    """Re-render the final state into the notebook: update this view's displays, or display it here.

    Called by ``handle.refresh_display()`` and ``await handle`` from a running cell, so nbclient
    and nbval record the final snapshot (they drop updates sent while no cell runs). While the
    episode has not ended (e.g. paused for a click) a shown view is only redrawn: re-sending the
    bundle would re-render the output under the human's cursor and collapse expanded rows.
    """
    view = view_for(handle)
    view.flush()
    if execution_count() is None:  # not in IPython: nothing to render into
        return None
    if view.displays:
        if view.source.status in TERMINAL:
            view.update_displays()
        return view.displays[-1]
    return display_handle(view)


def show(
    target: Any, *, runs_dir: str | os.PathLike[str] | None = None, approver_id: str | None = None, using: Any = None
) -> EpisodeView:
    """Show a live handle, or a finished or paused run from disk (episode id or run directory).

    A paused run can be approved or rejected in the view (a veto pause overridden or upheld) and
    resumed with its Resume button; ``using``: the run's adapter, which resuming an overridden veto
    needs. Every ``show`` of a run in this kernel is the same view, and it follows the run directory
    while the run is unsealed, so it shows decisions, resumes and seals made anywhere.
    Returns the view (a cell ending in ``show(...)`` displays it once).
    """
    refuse_non_adapter(using)  # a value that can be no adapter is named before any run is looked up
    if not isinstance(target, (RunSource, EpisodeView)):
        target = _live_or_disk(target, runs_dir)
    if isinstance(target, DiskRun) and using is not None:
        # given to resume with: a name that resolves to nothing is said now, unless nothing can resume the run
        # (sealed: a factory that needs a key or the network is not called for a run that never runs again)
        target.adapter = using if is_sealed(target.run_dir) else resolve_using(using)
    view = view_for(target, approver_id=approver_id)
    if isinstance(view.source, DiskRun):
        view.source.watch()
    display_handle(view)
    return view


def _live_or_disk(target: Any, runs_dir: Any) -> RunSource:
    """The live handle of this run in this kernel, else the one ``DiskRun`` of its directory (shared by every view and inbox)."""
    source: RunSource = source_for(find_run_dir(target, runs_dir))
    return source


class WidgetPresenter:
    """How a live handle displays (registered with the runtime when the widgets load)."""

    def mimebundle(self, source: Any, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        return handle_mimebundle(source, include, exclude)

    def display(self, source: Any) -> None:
        view_for(source)._ipython_display_()

    def refresh(self, source: Any) -> None:
        refresh_display(source)
