"""Static output: the ``text/html`` snapshot, the stable ``text/plain`` line, text timelines, run tables.

These are what a saved notebook shows on GitHub or nbviewer (no widgets there); every string
from an event is escaped like in the live view.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .._safetext import visible
from ..secrets import shown
from ..secrets.quoted import quoted
from ..store.artifacts import read_summary
from .cards import decision_html, pending_html, veto_html
from .render import (
    _short,
    esc,
    event_name,
    event_time,
    header_html,
    label,
    live_css,
    phase_class,
    phase_label,
    says_rejected,
    short_payload,
    shown_status,
)
from .stepview import StepFacts, body_html, step_class, summary_html
from .textwidth import pad
from .theme import ROOT_CLASS

__all__ = [
    "snapshot_html",
    "text_summary",
    "timeline_text",
    "problems_text",
    "runs_table_html",
    "runs_table_text",
    "local_when",
    "EMPTY_RUNS_HINT",
]


def _step_html(step: Any, facts: StepFacts) -> str:
    return f'<details class="{step_class(step, facts)}"><summary>{summary_html(step, facts)}</summary>{body_html(step)}</details>'


def snapshot_html(state: Mapping[str, Any]) -> str:
    """Static HTML of the whole view (header, cards, the steps with their events) for saved notebooks.

    Carries the view's stylesheet (JupyterLab, nbviewer, VS Code apply it; GitHub drops it and
    the text still reads: pauses, vetoes and errors carry a mark and a word). What of the run
    could not be read (``problems``: event lines left out, a draft that is a FIFO…) is named under
    the header, every line of it: the live view shows the newest."""
    facts = state.get("facts") or StepFacts()
    decided = {str(d.get("draft_id")): d for d in state.get("decisions") or []}
    parts = [header_html(state["header"])]
    for problem in state.get("problems") or []:  # a view missing part of its run never looks whole
        parts.append(f'<div class="nnb-msg nnb-muted">{esc(shown(problem))}</div>')
    for p in state.get("pending") or []:
        parts.append(
            f'<div class="nnb-card">{pending_html(p)}'
            '<i class="nnb-muted">waiting for a decision: Approve / Reject in the live view, handle.approve() / '
            "handle.reject(), or %noesis approve</i></div>"
        )
    pending_ids = {p.draft_id for p in state.get("pending") or []}
    for draft_id, d in decided.items():
        if draft_id not in pending_ids:
            parts.append(f'<div class="nnb-card nnb-decided">{_decided_line(d, _tool_of(draft_id, state, facts))}</div>')
    veto = state.get("veto")
    if veto is not None:
        parts.append(f'<div class="nnb-card nnb-veto-card">{veto_html(veto[0], veto[1])}</div>')
    steps = list(state.get("steps") or [])
    if steps:
        hidden = int(state.get("hidden_steps") or 0)
        if hidden:
            parts.append(f'<div class="nnb-muted">{hidden:,} earlier steps not shown; full log in events.jsonl</div>')
        parts.append('<div class="nnb-steps">' + "".join(_step_html(step, facts) for step in steps) + "</div>")
    else:  # a state without steps (e.g. built by hand): the newest events as rows
        events = list(state.get("recent") or [])
        total = int(state.get("total") or 0)
        if total > len(events):
            parts.append(
                f'<div class="nnb-muted">{total - len(events):,} earlier events not shown; full log in events.jsonl</div>'
            )
        parts.append(_events_table(events))
    return f'<div class="{ROOT_CLASS} noesis-nb-snapshot">{live_css()}' + "".join(parts) + "</div>"


def _tool_of(draft_id: str, state: Mapping[str, Any], facts: StepFacts) -> str | None:
    """The tool a decided draft asked for, as its card names it (``fs.write_file``: the draft's file), else as its
    step does (``write_file``: the request's event)."""
    found = facts.tools(draft_id, False)
    if found is not None and found.tool:
        return found.tool
    steps = [s for s in state.get("steps") or () if s.draft_id == draft_id and s.tool]
    return str(steps[0].tool) if steps else None


def _decided_line(d: Mapping[str, Any], tool: str | None) -> str:
    """``fs.write_file ✔ approved by …`` as the live card says it once decided, the draft named under it in
    muted text; the draft's id alone when its tool is not known."""
    draft = label(d.get("draft_id") or "", 300)
    if not tool:
        return f"<b>{draft}</b> {decision_html(d)}"
    return f'<b>{label(tool)}</b> {decision_html(d)} <span class="nnb-muted">draft {draft}</span>'


def _events_table(events: Iterable[Mapping[str, Any]]) -> str:
    rows = "".join(
        f"<tr><td>{esc(event_time(e))}</td>"
        f'<td class="{phase_class(e.get("phase"))}">{label(phase_label(e.get("phase")), 60)}</td>'
        f"<td>{label(event_name(e))}</td><td>{label(e.get('agent_id') or '', 80)}</td><td>{esc(short_payload(e))}</td></tr>"
        for e in events
    )
    return (
        '<table class="nnb-table"><thead><tr><th>time</th><th>phase</th><th>event</th>'
        f"<th>agent</th><th>payload</th></tr></thead><tbody>{rows}</tbody></table>"
    )


def text_summary(kind: str, status: str, events: int, pending: int) -> str:
    """The stable ``text/plain`` line (no ids, addresses or times), e.g. ``EpisodeHandle(status='ok', events=23, pending=0)``;
    a status another program wrote is any text, so it is shown as a name is."""
    return f"{kind}(status={_short(status, 60, exact=True)!r}, events={events}, pending={pending})"


def timeline_text(events: Iterable[Mapping[str, Any]]) -> str:
    """One line per event for a terminal: every field one line, secrets removed, no control characters
    (a run's text must not move the cursor, clear the screen or retitle the window). Each field as the view's row
    shows it (``render.row_html``): the phase and the event's name as every name read from a run (``label``: each
    invisible character shown), the payload as prose (``short_payload``)."""
    return "\n".join(
        f"{pad(_short(event_time(e), 24), 12)} {pad(_short(phase_label(e.get('phase')), 40, exact=True), 10)} "
        f"{pad(_short(event_name(e), 120, exact=True), 28)} {short_payload(e, 160)}"
        for e in events
    )


def problems_text(problems: Iterable[str]) -> str:
    """What of a run could not be read, one line each (secrets removed, no control characters)."""
    return "\n".join(_short(p, 1000) for p in problems)


_RUN_COLUMNS = ("started_at", "episode_id", "status", "using", "task", "sealed")
_HEADINGS = {"started_at": "started"}


def local_when(value: Any) -> str:
    """A stored time in the kernel's local time, to the second (``2025-01-01 13:00:05``); anything else as it is.

    Tables of runs show this; the rows (and ``runs_df``) keep the stored value, microseconds and zone."""
    text = str(value)
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return _short(text, 40)
    if moment.tzinfo is None:  # a stored time without an offset is UTC (``store.instants``), as the clocks read it
        moment = moment.replace(tzinfo=UTC)
    try:
        moment = moment.astimezone()
    except (OverflowError, ValueError):  # by year 1 or 9999: no local time for it, shown in its stored zone
        pass
    return f"{moment.year:04d}-" + moment.strftime("%m-%d %H:%M:%S")  # the C library writes year 1 as "1"


def _cell(row: Mapping[str, Any], column: str) -> str:
    value = row.get(column)
    if value is None:
        return ""
    if column == "started_at":
        return local_when(value)
    if column == "status":
        value = shown_status(str(value), _rejected(row))  # as the view says it: 'rejected' for a rejected tool call
    return _short(value, 80, exact=column != "task")  # an id or a name: every invisible character shown


def _rejected(row: Mapping[str, Any]) -> bool:
    """Whether a listed ``vetoed`` run ended because a tool call was rejected (its summary's reasons say
    ``tool_rejected``): a table of runs says "rejected" for it, as the view does; the row keeps the stored status."""
    run_dir = row.get("run_dir")
    if row.get("status") != "vetoed" or not isinstance(run_dir, str):
        return False
    return says_rejected(read_summary(Path(run_dir)))


EMPTY_RUNS_HINT = (
    "no runs in {where} yet{note}: start one with noesis_nb.start(task, using=agent) or "
    '%noesis run <agent> "<task>", or point at other runs with %noesis list --runs-dir <folder> (%noesis runs-dir <folder> '
    "for every later call)"
)


def _where(where: str) -> str:
    """The runs root as the hint shows it: as typed, or quoted and escaped (``'runs\\u202egpj.exe'``) when it holds
    a control, bidi or invisible character (a U+202E shown raw reorders the line), as a usage error shows a word."""
    return where if where.isprintable() and visible(where, exact=True) == where else quoted(where, 200)


def runs_table_html(rows: Iterable[Mapping[str, Any]], *, where: str = "the runs dir", note: str = "") -> str:
    rows = list(rows)
    if not rows:
        return _utf8(f"<p>{esc(EMPTY_RUNS_HINT.format(where=_where(where), note=note))}</p>")  # plain words, like the other hints
    head = "".join(f"<th>{_HEADINGS.get(c, c)}</th>" for c in _RUN_COLUMNS)
    body = "".join("<tr>" + "".join(f"<td>{esc(_cell(r, c))}</td>" for c in _RUN_COLUMNS) + "</tr>" for r in rows)
    return _utf8(f'<table style="font-size:12px"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>')


def _utf8(text: str) -> str:
    """``text`` sendable to the browser: a folder named in another encoding (``ep_\\xff``) reaches a row as a lone
    surrogate, which no UTF-8 output can carry; it is shown escaped (``\\udcff``) instead of failing the display."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def runs_table_text(rows: Iterable[Mapping[str, Any]], *, where: str = "the runs dir", note: str = "") -> str:
    rows = list(rows)
    if not rows:
        return _utf8(EMPTY_RUNS_HINT.format(where=_where(where), note=note))
    lines = [f"{'STARTED':20} {'EPISODE_ID':30} {'STATUS':9} TASK"]
    for r in rows:
        lines.append(  # the id and status as any name read from a run's files: a terminal escape or bidi mark shown;
            # columns counted as drawn (a wide or combining character in an id would push the rest of its line)
            f"{pad(_cell(r, 'started_at'), 20)} {pad(_short(r.get('episode_id') or '', 80, exact=True), 30)} "
            f"{pad(_cell(r, 'status'), 9)} {_short(r.get('task') or '', 60)}"
        )
    return _utf8("\n".join(lines))
