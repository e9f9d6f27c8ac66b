"""Live views of episodes (ipywidgets core widgets, plus one hidden anywidget: keyguard).

noesis_nb.inbox()                 # every pending draft and veto under the runs dir, decided in one place
batch_view(b)                     # the progress grid of a batch (what displaying a BatchHandle shows)
noesis_nb.show("ep_01…")          # a finished or paused run from disk (followed while unsealed), or a live handle
noesis_nb.replay("ep_01…")        # the same view over the run's first k events, with a scrubber and play (compare=…)
EpisodeView(handle)               # the widget itself: header, cards, the episode as a tree of steps
handle_mimebundle / refresh_display / display_handle   # what EpisodeHandle calls

Modules: steps (grouping), stepview/cards/render (HTML, pure), theme (the stylesheet), state
(header figures, running time), steplist/timeline/approvals/view (widgets), facts (what the run
directory adds), snapshot (static HTML), display (one view per run, updatable outputs), controls
(Send and Stop), replayview/replaycompare (a run at event k, two runs aligned by step),
inboxview/inboxrows (the approvals inbox), batchgrid/batchview (a batch's progress grid),
bundle (the inbox's and grid's notebook output), keyguard (the notebook's shortcuts kept out of
the views' text boxes).
"""

from ..runtime.presenter import set_presenter
from .batchview import BatchPresenter, BatchView, batch_view
from .display import (
    WidgetPresenter,
    display_handle,
    handle_mimebundle,
    refresh_display,
    show,
    view_for,
)
from .inboxview import InboxView, inbox
from .replaycompare import ReplayCompare, replay
from .replayview import ReplayView
from .view import EpisodeView

__all__ = [
    "EpisodeView",
    "ReplayView",
    "ReplayCompare",
    "InboxView",
    "BatchView",
    "batch_view",
    "inbox",
    "replay",
    "show",
    "handle_mimebundle",
    "refresh_display",
    "display_handle",
    "view_for",
]

set_presenter(WidgetPresenter())  # live handles now display as their view
set_presenter(BatchPresenter(), kind="batch")  # and batch handles as their progress grid
