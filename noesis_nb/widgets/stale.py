"""What a view says once its kernel is gone (restarted or shut down), written while the kernel still runs.

A restarted kernel can no longer change a view it drew, so the view keeps, hidden, the words that will be true
then, and the stylesheet swaps them in when ipywidgets marks the view disconnected (``theme.py``): the advice
fits the run's state as last drawn (decide and resume a paused run, settle a lost one, nothing to do for an
ended one), and a run this kernel was writing reads ``lost``, as ``%noesis list`` will say of it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..store.ownership import held_here, holder
from .reach import _starting_dir, batch_call, inbox_line, magic_line, show_call
from .render import badge_html, esc
from .state import TERMINAL

__all__ = [
    "REVIVE",
    "if_live",
    "if_stale",
    "written_here",
    "stale_notice_html",
    "stale_inbox_html",
    "stale_batch_html",
    "stale_batch_key",
    "status_badge_html",
]

_LEAD = "⚠ This view has lost its kernel (restarted or shut down): its buttons cannot act any more. "
# a restarted kernel knows nothing of noesis_nb: the commands each notice gives need both (the notebook's first cell)
REVIVE = (
    "A new kernel first needs <code>%load_ext noesis_nb</code> and <code>import noesis_nb</code> (as the notebook's "
    "first cell runs them). "
)


def if_live(html: str) -> str:
    """``html`` while the view has its kernel (hidden once it lost it)."""
    return f'<span class="nnb-if-live">{html}</span>'


def if_stale(html: str) -> str:
    """``html`` only once the view lost its kernel (``hidden`` too: a page without the stylesheet never shows it)."""
    return f'<span class="nnb-if-stale" hidden>{html}</span>'


def written_here(source: Any) -> bool:
    """Whether this kernel writes the run: its live episode, or a run from disk whose lock this process holds.
    Such a run, still running when the kernel stops, is lost (nothing writes it any more)."""
    if getattr(source, "summary_kind", None) == "EpisodeHandle":
        return True
    if getattr(source, "summary_kind", None) != "EpisodeRun":
        return False
    try:
        return held_here(holder(source.run_dir))
    except OSError:
        return False


def status_badge_html(status: str, *, lost_when_stale: bool) -> str:
    """The header's badge; a run this kernel writes that is still running reads ``lost`` once the kernel is gone."""
    if not lost_when_stale or status != "running":
        return badge_html(status)
    return if_live(badge_html(status)) + if_stale(badge_html("lost"))


def stale_notice_html(
    source: Any, status: str, pending: Sequence[Any], *, here: bool, vetoed: bool = False, shown: str | None = None
) -> str:
    """The notice for a view whose kernel is gone: what the run is then and the commands that act on it from a new cell.

    ``status`` and ``pending`` as the view last drew them; ``here``: this kernel writes the run (``written_here``);
    ``vetoed``: the run is paused on a governance veto no one has decided yet; ``shown``: the word the view's badge
    says for ``status`` (``render.shown_status``: ``rejected`` for a run vetoed by a rejected tool call)."""
    episode_id, run_dir = source.episode_id, source.run_dir
    show = f"<code>{esc(show_call(episode_id, run_dir))}</code>"
    resume = f"<code>{esc(magic_line('resume', episode_id, run_dir))}</code>"
    if getattr(source, "summary_kind", None) == "EpisodeReplay":  # a moment of the run, not the run as it is now
        said = f"This is a replay of the run; to see the run itself as it is now, in a new cell: {show}."
    elif status in TERMINAL:
        said = f"The run ended <b>{esc(shown or status)}</b>: nothing is left to decide. To see it again, in a new cell: {show}."
    elif status == "lost" or (status == "running" and here):
        why = "The run was running in this kernel, so it is" if status == "running" else "The run is"
        said = (
            f"{why} <b>lost</b> now (its process is gone). Settle it in a new cell "
            f"with {resume}, or with the “Settle lost run” button of {show}."
        )
    elif status == "running":
        said = f"The run goes on in the process that writes it; to follow it, in a new cell: {show}."
    elif status == "paused" and pending:
        draft = "" if len(pending) == 1 else " &lt;draft&gt;"  # more than one waits: each is named
        approve = f"<code>{esc(magic_line('approve', episode_id, run_dir))}{draft} --resume</code>"
        reject = f"<code>{esc(magic_line('reject', episode_id, run_dir))}{draft} --resume</code>"
        said = (
            f"The run stays paused on disk, waiting for a decision: in a new cell, {show} gives its cards and Resume, "
            f"or decide it with {approve} (or {reject}); decisions are kept on disk."
        )
    elif status == "paused" and vetoed:  # resuming it runs its adapter, which a new kernel has only if given it
        using = f"<code>{esc(show_call(episode_id, run_dir)[:-1] + ', using=<its adapter>)')}</code>"
        said = (
            "The run stays paused on disk, vetoed by governance and waiting for a person: in a new cell, "
            f"{using} gives its Override / Uphold card and Resume; decisions are kept on disk."
        )
    elif status == "paused":
        said = f"The run stays paused on disk: resume it in a new cell with {resume}, or see it with {show}."
    else:
        said = f"Show the run again in a new cell: {show}."
    return f'<div class="nnb-stale">{_LEAD}{REVIVE}{said}</div>'


def stale_inbox_html(root: Any) -> str:
    """The notice of an inbox of the runs under ``root`` whose kernel is gone: they stay paused on disk with the
    decisions made; the command that lists them again from a new cell."""
    return (
        '<div class="nnb-stale">⚠ This inbox has lost its kernel (restarted or shut down): its buttons cannot act any '
        f"more. {REVIVE}The runs it lists stay paused on disk, with the decisions made: list them again in a new cell with "
        f"<code>{esc(inbox_line(root))}</code>.</div>"
    )


def stale_batch_key(handle: Any, counts: Mapping[str, int]) -> tuple[Any, ...]:
    """All that ``stale_batch_html`` shows: the notice reads the same while this is the same, so a grid rebuilds it
    only when this changes (the failed and cancelled count shows only once nothing is left to run or decide)."""
    running, queued, paused = (counts.get(s, 0) for s in ("running", "queued", "paused"))
    again = 0 if running or queued or paused else counts.get("error", 0) + counts.get("cancelled", 0)
    where = (handle.batch_id, handle.root, _starting_dir(), Path.cwd())  # a relative root is named from the folder
    return running, queued, paused, again, getattr(handle, "executor", None), where


def stale_batch_html(handle: Any, counts: Mapping[str, int]) -> str:
    """The notice of a batch's grid whose kernel is gone: what became of its episodes as the grid last counted them,
    and the calls that continue the batch (its record is on disk) and list its paused runs from a new cell."""
    running, queued, paused = (counts.get(s, 0) for s in ("running", "queued", "paused"))
    fates = []
    executor = getattr(handle, "executor", None)
    if running and executor:
        fates.append(
            f"{running:,} running on its executor ({esc(executor)}) go on where its workers outlived this kernel (a "
            "cluster of their own) and are <b>lost</b> where they ran in the kernel's own threads or processes"
        )
    elif running:
        fates.append(f"{running:,} running in this kernel are <b>lost</b> (their process is gone)")
    if queued:
        fates.append(f"{queued:,} queued never start")
    if paused:
        fates.append(f"{paused:,} paused stay paused on disk, with the decisions made")
    call = f"<code>{esc(batch_call(handle.batch_id, handle.root))}</code>"
    again = counts.get("error", 0) + counts.get("cancelled", 0)
    if fates:
        said = (
            f"Of its episodes, {'; '.join(fates)}. In a new cell, {call} with the same tasks and adapters continues the "
            "batch: it keeps the sealed runs, follows the paused ones"
            + (", runs the lost ones again" if running else "")
            + (", starts the queued ones" if queued else "")
            + "."
        )
    else:
        said = "Every episode of the batch ended: nothing is left to run or decide."
        if again:
            rerun = f"<code>{esc(batch_call(handle.batch_id, handle.root, rerun_failed=True))}</code>"
            said += f" In a new cell, {rerun} runs its {again:,} failed or cancelled ones again."
    if paused:
        said += f" The runs waiting for a decision are listed with <code>{esc(inbox_line(handle.root))}</code>."
    return (
        '<div class="nnb-stale">⚠ This grid has lost its kernel (restarted or shut down): its buttons cannot act any '
        f"more. {REVIVE}{said}</div>"
    )
