"""Live OTLP exports at interpreter exit: one last look each, within a bounded time, and a warning for what was left.

An export's thread is a daemon (it never holds a script or a kernel open), so the interpreter's exit killed it between
two looks: a script that ended with ``await handle`` (no ``await live``) left the spans its episode had finished, the
root span too, unsent and its ``path=`` unwritten, and said nothing. As the OpenTelemetry SDK's batch processor flushes
at exit, each live export still following an episode takes one last look when the interpreter exits: it sends what is
final by its usual rules (the root span only when the episode ended) and writes its file (as far as the episode got),
waiting at most ``EXIT_WAIT_S`` (less when its ``timeout`` is shorter). A span is still sent once at most. What could not
be sent or written in that time, and an episode still running, is said in a ``TraceIncomplete`` warning on stderr; so
are spans left unsent by an export nobody waited for (``await live``, ``wait()``, ``stop()``: those read ``errors``).
A process killed outright (SIGKILL) runs nothing: span ids derive from the episode and event ids, so a later
``export_otel(run_dir, endpoint=...)`` sends the same spans with the same ids.
"""

from __future__ import annotations

import atexit
import threading
import time
import warnings
from typing import Any, Protocol

from ..secrets import shown
from ..secrets.quoted import quoted, quoted_text
from .otel_spans import TraceIncomplete

__all__ = ["EXIT_WAIT_S", "follow", "unfollow", "at_exit"]

EXIT_WAIT_S = 5.0  # the longest the interpreter's exit waits for the live exports' last looks, all together


class _Following(Protocol):
    timeout: float

    def look_at_exit(self) -> None: ...
    def join(self, timeout: float) -> bool: ...
    def left_at_exit(self, waited: float) -> str | None: ...


_FOLLOWING: set[Any] = set()
_LOCK = threading.Lock()
_REGISTERED: list[bool] = []  # one ``atexit`` registration for the process, made by the first live export


def follow(export: _Following) -> None:
    """Give ``export`` its last look at exit (unless its thread ended before)."""
    with _LOCK:
        if not _REGISTERED:
            atexit.register(at_exit)
            _REGISTERED.append(True)
        _FOLLOWING.add(export)


def unfollow(export: _Following) -> None:
    """``export``'s thread has ended: nothing is left for the exit."""
    with _LOCK:
        _FOLLOWING.discard(export)


def at_exit() -> None:
    """Wake every live export still following, wait for their last looks (bounded), warn about what was left."""
    with _LOCK:
        exports = list(_FOLLOWING)
    if not exports:
        return
    for export in exports:
        export.look_at_exit()
    waited = min(EXIT_WAIT_S, max(export.timeout for export in exports))
    deadline = time.monotonic() + waited
    for export in exports:
        export.join(max(0.0, deadline - time.monotonic()))
    for export in exports:
        said = export.left_at_exit(waited)
        if said is not None:
            warnings.warn(said, TraceIncomplete, stacklevel=1)


def left_words(
    episode: str, url: str, *, unsent: int, why: str | None, path: Any, unfinished: int | None, run_dir: Any
) -> str | None:
    """The warning for what a live export left at exit: ``unsent`` final spans (``why``: the last problem met, or
    the time waited), ``path`` not written, ``unfinished`` spans of an episode still running (None: it had ended)."""
    parts = []
    if unsent:
        parts.append(f"{unsent} finished span(s) were not taken by {quoted(shown(url))} ({quoted_text(why or 'no answer', 300)})")
    if path is not None:
        parts.append(f"{quoted(str(path))} was not written")
    if unfinished is not None:
        parts.append(f"the episode was still running: its root span and {unfinished - 1} unfinished span(s) were not sent")
    if not parts:
        return None
    return (
        f"at exit, the live OTLP export of episode {episode}: " + "; ".join(parts) + ". Send the run later with "
        f"noesis_nb.export_otel({quoted(str(run_dir))}, endpoint=...): the same spans with the same ids, so a "
        "collector keeps one copy of those sent already"
    )
