"""Optional integrations: run other agent systems as Noēsis episodes, or import their logs.

    from noesis_nb.integrations import start
    from noesis_nb.integrations.agui import AGUIAdapter, AGUIHttpAgent
    handle = start("summarise the report", using=AGUIAdapter(AGUIHttpAgent("http://127.0.0.1:8000/agent/run")))

Modules (each imports its third-party package only when used; a missing one raises
``MissingExtraError`` with the ``pip install 'noesis_nb[<extra>]'`` line):

- ``agui``      AG-UI agents, in process or over HTTP/SSE (extra ``agui``)
- ``noeta``     Noeta SDK agents, and a pure importer of saved envelopes (extra ``noeta``)
- ``langgraph`` compiled LangGraph graphs, ``interrupt()`` as approvals (extra ``langgraph``)
- ``crewai``    CrewAI crews (extra ``crewai``)
- ``noetic``, ``taisce``  recorded traces replayed as episodes (no extra needed)

Approvals: whatever the system calls an approval request (an AG-UI interrupt, a Noeta gated
tool call, a LangGraph ``interrupt()``) becomes a pending tool draft of the episode, so it
shows on the notebook's Approve/Reject buttons and on ``handle.pending``; the decision is
sent back the way that system resumes.

``start``/``solve``/``solve_async`` here are ``noesis_nb``'s own: an adapter with a ``source``
attribute gets ``tags={"source": …}``, so ``runs_df`` can tell which system a run came from.
"""

from __future__ import annotations

from ..runtime.api import solve, solve_async, start
from ._extras import MissingExtraError, require

__all__ = ["start", "solve", "solve_async", "MissingExtraError", "require"]
