"""A cell run again: which episodes its earlier run showed are still going, out of sight.

Running a cell again replaces its outputs, so the view of an episode the cell started before goes
away while that episode goes on in this kernel (waiting for a decision, or running). The new view
names them and says how to reach them, and what is true of them once the kernel is gone. The front
end says which cell runs (JupyterLab, Notebook 7 and VS Code put ``cellId`` in the request's
metadata); without it nothing is said.
"""

from __future__ import annotations

from typing import Any

from ..runtime.registry import live_handles
from .reach import magic_line, show_call
from .render import esc
from .stale import REVIVE, if_live, if_stale

__all__ = ["running_cell", "left_behind", "left_behind_html", "SHOWN_MAX"]

SHOWN_MAX = 3  # earlier episodes the note names, newest first; the rest are counted (30 Run Alls named 30, 17 KB)

# cell id -> (request id of its latest run, ids of the episodes it showed): ids only, so an ended episode's
# handle (and its events) is not kept alive by a cell that never runs again
_SHOWN: dict[str, tuple[str, list[str]]] = {}


def running_cell() -> tuple[str, str] | None:
    """(cell id, request id) of the cell running now, when the front end names the cell; else None."""
    from IPython import get_ipython

    kernel = getattr(get_ipython(), "kernel", None)
    try:
        parent = kernel.get_parent() if kernel is not None else None
    except Exception:  # a kernel without per-request parents: no cell to tell apart
        return None
    if not isinstance(parent, dict):
        return None
    cell = (parent.get("metadata") or {}).get("cellId")
    request = (parent.get("header") or {}).get("msg_id")
    if not isinstance(cell, str) or not cell or not request:
        return None
    return cell, str(request)


def left_behind(source: Any) -> list[Any]:
    """Record that the running cell shows ``source``; return the live episodes an earlier run of this cell
    showed (their views are gone now) that have not ended. Once per cell run: a second view in the same run
    adds to the list and returns nothing."""
    where = running_cell()
    if where is None:
        return []
    cell, request = where
    before = _SHOWN.get(cell)
    if before is not None and before[0] == request:
        before[1].append(source.episode_id)
        return []
    live = live_handles()
    shown_before = dict.fromkeys(before[1] if before else [])
    earlier = [live[e] for e in shown_before if e != source.episode_id and e in live]
    # still out of sight at the next run, unless shown again
    _SHOWN[cell] = (request, [source.episode_id, *(s.episode_id for s in earlier)])
    return earlier


def left_behind_html(sources: list[Any]) -> str:
    """The note the new view shows: the newest earlier episodes (``SHOWN_MAX``; the rest counted, with the command that
    lists them), what each waits for and how to reach it, and one ``%noesis stop`` line for them all; with the words that
    replace it once the kernel is gone (``stale.py``): the episodes no longer go on, a paused one waits on disk and a
    running one is lost."""
    if not sources:
        return ""
    lines = []
    for source in sources[:SHOWN_MAX]:  # newest first: ``left_behind`` puts each run's episode before the earlier ones
        episode_id = esc(source.episode_id)
        show = f"<code>{esc(show_call(source.episode_id, source.run_dir))}</code>"
        if source.pending:
            live = f"still waits for a decision: decide it in {show}, or stop it with <code>%noesis stop {episode_id}</code>"
            gone = f"was paused waiting for a decision when the kernel stopped, and stays paused on disk: decide it in {show}"
        else:
            live = f"is still running: follow it in {show}, or stop it with <code>%noesis stop {episode_id}</code>"
            resume = f"<code>{esc(magic_line('resume', source.episode_id, source.run_dir))}</code>"
            gone = f"was running when the kernel stopped, so it is lost: settle it with {resume}, or see it in {show}"
        lines.append(f"<li><code>{episode_id}</code> {if_live(live)}{if_stale(gone)}</li>")
    if len(sources) > SHOWN_MAX:
        lines.append(f"<li>and {len(sources) - SHOWN_MAX} more: <code>%noesis list</code></li>")
    head = if_live("⚠ This cell ran again; what its earlier run started goes on in the background (its view was replaced):")
    gone_head = if_stale(
        f"⚠ This cell ran again before the kernel stopped; what its earlier run started goes on no more. {REVIVE}Then:"
    )
    stop_all = ""
    if len(sources) > 1:  # one line that stops every one of them
        ids = " ".join(esc(s.episode_id) for s in sources)
        stop_all = if_live(f"Stop all {len(sources)} with <code>%noesis stop {ids}</code>")
    return f'<div class="nnb-msg nnb-c-orange">{head}{gone_head}<ul>{"".join(lines)}</ul>{stop_all}</div>'
