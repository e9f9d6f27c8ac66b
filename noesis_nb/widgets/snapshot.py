"""Static output: the ``text/html`` snapshot, the stable ``text/plain`` line, text timelines, run tables.

These are what a saved notebook shows on GitHub or nbviewer (no widgets there); every string
from an event is escaped like in the live view.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .render import (
    FLAG_COLOURS,
    FLAG_MARKS,
    PHASE_COLOURS,
    _phase_class,
    _short,
    decision_html,
    esc,
    event_flag,
    event_name,
    event_time,
    header_html,
    pending_html,
    short_payload,
)

__all__ = ["snapshot_html", "text_summary", "timeline_text", "runs_table_html", "runs_table_text"]


def _snapshot_row(event: Mapping[str, Any]) -> str:
    flag = event_flag(event)
    colour = PHASE_COLOURS.get(_phase_class(event), "#24292f")
    bg = f' style="background:{FLAG_COLOURS[flag]}"' if flag else ""
    return (
        f'<tr{bg}><td>{esc(event_time(event))}</td><td style="color:{colour}">{esc(event.get("phase") or "?")}</td>'
        f"<td>{FLAG_MARKS[flag] + ' ' if flag else ''}{esc(event_name(event))}</td><td>{esc(event.get('agent_id') or '')}</td>"
        f"<td>{esc(short_payload(event))}</td></tr>"
    )


def snapshot_html(state: Mapping[str, Any]) -> str:
    """Static HTML of the whole view (header, pending drafts, decisions, last rows) for saved notebooks."""
    events = list(state.get("recent") or [])
    total = int(state.get("total") or 0)
    parts = [header_html(state["header"])]
    for p in state.get("pending") or []:
        parts.append(
            f'<div style="border:1px solid #d4a72c;padding:4px;margin:4px 0">{pending_html(p)}'
            "<i>waiting for a decision: handle.approve() / handle.reject() or %noesis approve</i></div>"
        )
    for d in state.get("decisions") or []:
        parts.append(f"<div>{esc(d.get('draft_id') or '')}: {decision_html(d)}</div>")
    if total > len(events):
        parts.append(f"<div><i>{total - len(events):,} earlier events not shown; full log in events.jsonl</i></div>")
    rows = "".join(_snapshot_row(e) for e in events)
    parts.append(
        '<table style="font-size:12px;border-collapse:collapse"><thead><tr><th>time</th><th>phase</th><th>event</th>'
        f"<th>agent</th><th>payload</th></tr></thead><tbody>{rows}</tbody></table>"
    )
    return '<div class="noesis-nb-snapshot">' + "".join(parts) + "</div>"


def text_summary(kind: str, status: str, events: int, pending: int) -> str:
    """The stable ``text/plain`` line (no ids, addresses or times), e.g. ``EpisodeHandle(status='ok', events=23, pending=0)``."""
    return f"{kind}(status={status!r}, events={events}, pending={pending})"


def timeline_text(events: Iterable[Mapping[str, Any]]) -> str:
    return "\n".join(
        f"{event_time(e):12} {str(e.get('phase') or '?'):10} {event_name(e):28} {short_payload(e, 90)}" for e in events
    )


_RUN_COLUMNS = ("started_at", "episode_id", "status", "using", "task", "sealed")


def runs_table_html(rows: Iterable[Mapping[str, Any]]) -> str:
    head = "".join(f"<th>{c}</th>" for c in _RUN_COLUMNS)
    body = "".join(
        "<tr>" + "".join(f"<td>{esc(_short(r.get(c), 80) if r.get(c) is not None else '')}</td>" for c in _RUN_COLUMNS) + "</tr>"
        for r in rows
    )
    return f'<table style="font-size:12px"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def runs_table_text(rows: Iterable[Mapping[str, Any]]) -> str:
    lines = [f"{'STARTED_AT':20} {'EPISODE_ID':30} {'STATUS':9} TASK"]
    for r in rows:
        lines.append(
            f"{str(r.get('started_at') or '')[:19]:20} {str(r.get('episode_id') or ''):30} "
            f"{str(r.get('status') or ''):9} {_short(r.get('task') or '', 60)}"
        )
    return "\n".join(lines)
