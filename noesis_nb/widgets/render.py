"""Pure rendering of the live view: event dicts and view state to escaped HTML (no ipywidgets).

Every string that comes from an event, a payload, a task or a tool goes through :func:`esc`
before it becomes HTML; class names derived from event data are reduced to ``[a-z_]``. Text from
payloads, tasks, commands and reasons also goes through ``noesis_nb.secrets.shown`` first, so a view
never shows a secret, even of a run written by another program or detected after the event.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

import orjson

from ..runtime.gate import PendingApproval
from ..secrets import shown
from ..store.vocab import RUN_CHECKPOINT, RUN_INTERRUPT, TOOL_APPROVAL_PENDING

__all__ = [
    "esc",
    "event_name",
    "event_flag",
    "short_payload",
    "event_time",
    "full_json",
    "row_html",
    "block_html",
    "live_css",
    "header_html",
    "counts_html",
    "pending_html",
    "decision_html",
]

PHASE_COLOURS = {
    "start": "#57606a",
    "observe": "#57606a",
    "interpret": "#0969da",
    "plan": "#0969da",
    "direction": "#0969da",
    "intuition": "#8250df",
    "reason": "#8250df",
    "model": "#8250df",
    "integration": "#57606a",
    "action_candidate": "#9a6700",
    "governance": "#1a7f37",
    "act": "#bc4c00",
    "tool": "#bc4c00",
    "reflect": "#0550ae",
    "learn": "#0550ae",
    "runtime": "#953800",
    "terminate": "#24292f",
    "insight": "#57606a",
    "memory": "#57606a",
    "error": "#cf222e",
}
FLAG_MARKS = {"pause": "‖", "veto": "⊘", "error": "✖"}  # glyphs common fonts (DejaVu) have
FLAG_COLOURS = {"pause": "#fff8c5", "veto": "#ffebe9", "error": "#ffebe9"}
STATUS_COLOURS = {
    "running": "#0969da",
    "paused": "#9a6700",
    "ok": "#1a7f37",
    "error": "#cf222e",
    "vetoed": "#cf222e",
    "cancelled": "#57606a",
}
_PAUSE_NAMES = {TOOL_APPROVAL_PENDING, RUN_INTERRUPT, RUN_CHECKPOINT}
_SUMMARY_KEYS = (
    "status",
    "decision",
    "rule_id",
    "tool",
    "model",
    "draft_id",
    "reason_code",
    "reason",
    "message",
    "outcome",
    "input_excerpt",
    "task",
    "steps",
    "checkpoint_id",
    "input_tokens",
    "output_tokens",
    "error",
)
_CLASS_SAFE = re.compile(r"[^a-z_]")


def _dumps(value: Any, *, pretty: bool = False) -> str:
    """JSON text (orjson: fast enough for every redraw); anything unusual falls back to ``str``."""
    option = (orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) if pretty else 0
    try:
        return orjson.dumps(value, default=str, option=option | orjson.OPT_NON_STR_KEYS).decode()
    except (TypeError, orjson.JSONEncodeError):
        return json.dumps(value, ensure_ascii=False, default=str, indent=2 if pretty else None, sort_keys=pretty)


def esc(value: Any) -> str:
    """HTML-escape anything (quotes too, so the result is safe in attributes)."""
    return html.escape(value if isinstance(value, str) else str(value), quote=True)


def _esc_text(value: str) -> str:
    """Escape for a text node only (``&``, ``<``, ``>``): quotes are harmless there and common in JSON."""
    return html.escape(value, quote=False)


def _payload(event: Mapping[str, Any]) -> Mapping[str, Any]:
    payload = event.get("payload")
    return payload if type(payload) is dict or isinstance(payload, Mapping) else {}


def event_name(event: Mapping[str, Any]) -> str:
    """``payload.event_name`` (tool, model), else ``event_type`` (runtime), else the phase."""
    payload = _payload(event)
    name = payload.get("event_name") or event.get("event_type") or payload.get("kind") or event.get("phase")
    return str(name or "?")


def event_flag(event: Mapping[str, Any]) -> str | None:
    """``pause``, ``veto`` or ``error`` for events that must stand out, else None."""
    payload = _payload(event)
    phase, name = str(event.get("phase") or ""), event_name(event)
    status = str(payload.get("status") or "").lower()
    if phase == "error" or name.endswith(".failed") or payload.get("error") or (phase == "terminate" and status == "error"):
        return "error"
    if payload.get("decision") == "veto" or status == "vetoed" or (phase == "intuition" and payload.get("kind") == "veto"):
        return "veto"
    if name.startswith("tool.rejected") or name == "tool.execution.rejected":
        return "veto"
    if name in _PAUSE_NAMES or status in {"paused", "interrupted"}:
        return "pause"
    return None


def _short(value: Any, limit: int) -> str:
    if isinstance(value, str):
        text = value
    elif isinstance(value, (list, tuple)):
        text = ", ".join(_short(v, limit) for v in value)
    else:
        text = _dumps(value)
    text = " ".join(shown(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def short_payload(event: Mapping[str, Any], limit: int = 120) -> str:
    """One plain-text line: the payload's telling keys as ``k=v``, else its compact JSON."""
    payload = _payload(event)
    parts = [f"{k}={_short(payload[k], 60)}" for k in _SUMMARY_KEYS if payload.get(k) not in (None, "", [], {})]
    text = " ".join(parts) if parts else _short({k: v for k, v in payload.items() if k != "event_name"}, limit)
    return _short(text, limit)


def event_time(event: Mapping[str, Any]) -> str:
    """``HH:MM:SS.mmm`` from the ISO timestamp (UTC as written), or the raw value."""
    ts = str(event.get("timestamp") or "")
    match = re.match(r"\d{4}-\d\d-\d\dT(\d\d:\d\d:\d\d)(\.\d{1,3})?", ts)
    return match.group(1) + (match.group(2) or "") if match else ts[:12]


def _phase_class(event: Mapping[str, Any]) -> str:
    phase = _CLASS_SAFE.sub("", str(event.get("phase") or "").lower())[:24]
    return phase if phase in PHASE_COLOURS else "other"


def full_json(event: Mapping[str, Any], limit: int = 4000) -> str:
    """The expanded row: lineage on one line, then the whole payload (cut at ``limit`` characters)."""
    meta = {k: event.get(k) for k in ("id", "caused_by", "event_type") if event.get(k)}
    duration = (event.get("metrics") or {}).get("duration_ms") if isinstance(event.get("metrics"), Mapping) else None
    if duration is not None:
        meta["duration_ms"] = duration
    head = " ".join(f"{k}={v}" for k, v in meta.items())
    body = shown(_dumps(event.get("payload"), pretty=True))
    text = f"{head}\n{body}" if head else body
    if len(text) > limit:
        text = text[:limit] + f"\n… {len(text) - limit} more characters; the whole event is in events.jsonl"
    return text


def row_html(event: Mapping[str, Any], *, detail_limit: int = 4000) -> str:
    """One live timeline row: a ``<details>`` whose summary is the row and whose body is the event."""
    flag = event_flag(event)
    cls = f"nnb-r nnb-{_phase_class(event)}" + (f" nnb-{flag}" if flag else "")
    mark = FLAG_MARKS[flag] + " " if flag else ""
    return (
        f'<details class="{cls}"><summary><span class="nnb-t">{esc(event_time(event))}</span> '
        f'<span class="nnb-p">{esc(event.get("phase") or "?")}</span> {mark}<b>{esc(event_name(event))}</b> '
        f'<span class="nnb-a">{esc(event.get("agent_id") or "")}</span> '
        f"{esc(short_payload(event))}</summary><pre>{_esc_text(full_json(event, detail_limit))}</pre></details>"
    )


def block_html(rows_newest_first: Iterable[str]) -> str:
    rows = "".join(rows_newest_first)
    return f'<div class="nnb-b">{rows}</div>' if rows else ""


def live_css() -> str:
    """The one ``<style>`` of the live view (sent once); classes keep every row small."""
    phases = "".join(f".nnb-{p} .nnb-p{{color:{c}}}" for p, c in PHASE_COLOURS.items())
    flags = "".join(f".nnb-{f}{{background:{c}}}" for f, c in FLAG_COLOURS.items())
    return (
        "<style>.nnb-r{font:12px/1.5 var(--jp-code-font-family,monospace);border-bottom:1px solid #eaeef2}"
        ".nnb-r summary{cursor:pointer;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}"
        ".nnb-r pre{margin:2px 0 4px 16px;white-space:pre-wrap;font-size:11px;max-height:240px;overflow:auto}"
        ".nnb-t,.nnb-a{color:#6e7781}.nnb-p{display:inline-block;min-width:7em;font-weight:600}"
        f".nnb-badge{{color:#fff;border-radius:8px;padding:1px 8px;font-size:12px}}{phases}{flags}</style>"
    )


def _badge(status: str) -> str:
    colour = STATUS_COLOURS.get(status, "#57606a")
    return (
        f'<span class="nnb-badge" style="background:{colour};color:#fff;border-radius:8px;padding:1px 8px">{esc(status)}</span>'
    )


def header_html(info: Mapping[str, Any]) -> str:
    """Episode id, task, status badge, elapsed time, tokens and cost (``info`` from ``ViewState.header``)."""
    task = _short(info.get("task") or "", 200)
    return (
        f'<div class="nnb-h"><b>{esc(info.get("episode_id") or "")}</b> {_badge(str(info.get("status") or "?"))} '
        f'<span style="color:#6e7781">{esc(info.get("using") or "")}</span><br>'
        f"<span>{esc(task)}</span><br>"
        f'<span style="color:#6e7781">elapsed {esc(info.get("elapsed") or "—")} · tokens {esc(info.get("tokens") or "—")}'
        f" · cost {esc(info.get('cost') or '—')}</span></div>"
    )


def counts_html(total: int, shown: int, counts: Mapping[str, int], flags: Mapping[str, int]) -> str:
    by_phase = " · ".join(f"{esc(k)} {v:,}" for k, v in sorted(counts.items(), key=lambda kv: -kv[1])[:8])
    marks = " ".join(f"{FLAG_MARKS[f]} {n:,}" for f, n in flags.items() if n)
    more = f"newest {shown:,} of {total:,} events, newest first" if total > shown else f"{total:,} events, newest first"
    return f'<div style="color:#6e7781;font-size:12px">{more} · {by_phase} {marks} · full log in events.jsonl</div>'


def pending_html(p: PendingApproval) -> str:
    """The card body of one pending draft: tool, effect, risk, command line or payload, fingerprint."""
    command = shown(p.command_line) if p.command_line else None
    payload = shown(_dumps(p.redacted_payload or {}, pretty=True))
    body = f"<code>$ {esc(command)}</code>" if command else f"<pre style='margin:0'>{esc(payload)}</pre>"
    risk_colour = {"high": "#cf222e", "critical": "#cf222e", "medium": "#9a6700"}.get(p.risk_tier, "#57606a")
    return (
        f"<div><b>‖ {esc(p.tool)}</b> wants approval · effect <b>{esc(p.effect_kind)}</b>"
        f' · risk <b style="color:{risk_colour}">{esc(p.risk_tier)}</b> · {esc(p.protocol)}<br>{body}<br>'
        f'<span style="color:#6e7781;font-size:11px">draft {esc(p.draft_id)} · fingerprint '
        f"{esc(p.fingerprint)}" + (f" · impact {esc(p.impact_hash)}" if p.impact_hash else "") + "</span></div>"
    )


def decision_html(decision: Mapping[str, Any]) -> str:
    status = str(decision.get("status") or "?")
    colour = "#1a7f37" if status == "approved" else "#cf222e"
    reason = shown(decision.get("reason"))
    return (
        f'<span style="color:{colour}"><b>{esc(status)}</b> by {esc(decision.get("approver_id") or "?")}'
        f" at {esc(decision.get('decided_at') or '?')}" + (f" — {esc(reason)}" if reason else "") + "</span>"
    )
