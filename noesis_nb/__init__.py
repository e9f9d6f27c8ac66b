"""noesis_nb: run, watch, govern and analyse AI-agent episodes in Jupyter.

``import noesis_nb`` stays light: pandas, plotly, ipywidgets and IPython load only when a
frame, plot, view or magic is first used.
"""

from __future__ import annotations

import sys
from importlib import import_module
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_LAZY = {
    # running episodes
    "start": "noesis_nb.runtime.api",
    "solve": "noesis_nb.runtime.api",
    "solve_async": "noesis_nb.runtime.api",
    "resume_run": "noesis_nb.runtime.api",
    "resume_run_async": "noesis_nb.runtime.api",
    "approve_draft": "noesis_nb.runtime.api",
    "reject_draft": "noesis_nb.runtime.api",
    "EpisodeHandle": "noesis_nb.runtime.handle",
    "DiskRun": "noesis_nb.runtime.diskrun",
    "EpisodeContext": "noesis_nb.runtime.context",
    "PendingApproval": "noesis_nb.runtime.gate",
    "list_runs": "noesis_nb.store",
    # many episodes
    "batch": "noesis_nb.batch",
    "BatchHandle": "noesis_nb.batch",
    # analysis
    "runs_df": "noesis_nb.frames",
    "events_df": "noesis_nb.frames",
    "tools_df": "noesis_nb.frames",
    "usage_df": "noesis_nb.frames",
    "batch_summary": "noesis_nb.frames",
    "runs_ddf": "noesis_nb.frames",
    "events_ddf": "noesis_nb.frames",
    "compare_batches": "noesis_nb.frames",
    # OpenTelemetry out (extra ``otel``)
    "export_otel": "noesis_nb.integrations.otel",
    # notebook
    "show": "noesis_nb.widgets",
    "replay": "noesis_nb.widgets",
    "EpisodeView": "noesis_nb.widgets",
    "inbox": "noesis_nb.widgets",
    "InboxView": "noesis_nb.widgets",
}

__all__ = sorted([*_LAZY, "ns", "plots", "load_ipython_extension", "unload_ipython_extension", "__version__"])


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    if name in {"ns", "plots", "errors", "tools", "store", "frames", "widgets", "secrets", "capture"}:
        return import_module(f"noesis_nb.{name}")
    raise _no_such_name(name)


#: the public modules a name missing at the top level may live in, named by its AttributeError
_HOMES = ("frames", "errors", "ns", "config", "plots", "widgets", "tools")


def _no_such_name(name: str) -> AttributeError:
    """``noesis_nb.<name>`` that is not there: where it is instead (``noesis_nb.frames.clear_cache``), or the
    top-level name it is a slip of. Only modules already imported are looked in: this runs for every
    ``from noesis_nb import <submodule>`` before that submodule is imported, so it must import nothing."""
    message = f"module 'noesis_nb' has no attribute {name!r}"
    if not name.startswith("_"):
        loaded = [sys.modules.get(f"noesis_nb.{home}") for home in _HOMES]
        homes = [m.__name__ for m in loaded if m is not None and name in getattr(m, "__all__", ())]
        if homes:
            message += f"; it is {' or '.join(f'{home}.{name}' for home in homes)}"
        else:
            import difflib

            close = difflib.get_close_matches(name, __all__, n=1, cutoff=0.75)
            message += f" (did you mean noesis_nb.{close[0]}?)" if close else ""
    return AttributeError(message, name=name, obj=sys.modules[__name__])


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext noesis_nb``: register the ``%noesis`` magics (IPython imported only now)."""
    from .magics import load_ipython_extension as _load

    _load(ipython)


def unload_ipython_extension(ipython: Any) -> None:
    from .magics import unload_ipython_extension as _unload

    _unload(ipython)


# The top level wires the layers: a handle displayed in IPython loads the widgets (the runtime never imports them).
import_module("noesis_nb.runtime.presenter").set_loader(lambda: import_module("noesis_nb.widgets"))
# a drain report prices its finished model calls with the analysis price table (loaded when first asked)
import_module("noesis_nb.runtime.drain").set_pricer(lambda calls: import_module("noesis_nb.cost").price_calls(calls))

if TYPE_CHECKING:  # pragma: no cover
    from .batch import BatchHandle as BatchHandle
    from .batch import batch as batch
    from .frames import batch_summary as batch_summary
    from .frames import compare_batches as compare_batches
    from .frames import events_ddf as events_ddf
    from .frames import events_df as events_df
    from .frames import runs_ddf as runs_ddf
    from .frames import runs_df as runs_df
    from .frames import tools_df as tools_df
    from .frames import usage_df as usage_df
    from .integrations.otel import export_otel as export_otel
    from .runtime.api import (
        approve_draft as approve_draft,
    )
    from .runtime.api import (
        reject_draft as reject_draft,
    )
    from .runtime.api import (
        resume_run as resume_run,
    )
    from .runtime.api import (
        resume_run_async as resume_run_async,
    )
    from .runtime.api import (
        solve as solve,
    )
    from .runtime.api import (
        solve_async as solve_async,
    )
    from .runtime.api import (
        start as start,
    )
    from .runtime.context import EpisodeContext as EpisodeContext
    from .runtime.diskrun import DiskRun as DiskRun
    from .runtime.gate import PendingApproval as PendingApproval
    from .runtime.handle import EpisodeHandle as EpisodeHandle
    from .store import list_runs as list_runs
    from .widgets import EpisodeView as EpisodeView
    from .widgets import InboxView as InboxView
    from .widgets import inbox as inbox
    from .widgets import replay as replay
    from .widgets import show as show
