"""AG-UI (extra ``agui``): any AG-UI agent as an episode, in process or over HTTP/SSE.

    from noesis_nb.integrations import start
    from noesis_nb.integrations.agui import AGUIAdapter, AGUIHttpAgent
    handle = start("book a table", using=AGUIAdapter(AGUIHttpAgent("http://127.0.0.1:8000/agent/run")))

``agui_rows`` and ``parse_sse`` read recorded streams without running anything.
"""

from ._adapter import AGUIAdapter, AGUIRunCancelled, AGUIRunError, default_answer
from ._events import AGUIFolder, agui_rows
from ._http import AGUIHttpAgent
from ._sse import AGUIStreamError, parse_sse

__all__ = [
    "AGUIAdapter",
    "AGUIHttpAgent",
    "AGUIRunCancelled",
    "AGUIRunError",
    "AGUIStreamError",
    "AGUIFolder",
    "agui_rows",
    "parse_sse",
    "default_answer",
]
