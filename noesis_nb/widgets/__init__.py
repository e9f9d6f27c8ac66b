"""Live views of episodes (ipywidgets core widgets; no custom JavaScript).

noesis_nb.show("ep_01…")          # a finished or paused run from disk (followed while unsealed), or a live handle
noesis_nb.replay("ep_01…")        # the same view over the run's first k events, with a scrubber and play (compare=…)
EpisodeView(handle)               # the widget itself: header, cards, the episode as a tree of steps
handle_mimebundle / refresh_display / display_handle   # what EpisodeHandle calls

Modules: steps (grouping), stepview/cards/render (HTML, pure), theme (the stylesheet), state
(header figures, running time), steplist/timeline/approvals/view (widgets), facts (what the run
directory adds), snapshot (static HTML), display (one view per run, updatable outputs), controls
(Send and Stop), replayview/replaycompare (a run at event k, two runs aligned by step).
"""

from ..runtime.presenter import set_presenter
from .display import (
    WidgetPresenter,
    display_handle,
    handle_mimebundle,
    refresh_display,
    show,
    view_for,
)
from .replaycompare import ReplayCompare, replay
from .replayview import ReplayView
from .view import EpisodeView

__all__ = [
    "EpisodeView",
    "ReplayView",
    "ReplayCompare",
    "show",
    "replay",
    "handle_mimebundle",
    "refresh_display",
    "display_handle",
    "view_for",
]

set_presenter(WidgetPresenter())  # live handles now display as their view
