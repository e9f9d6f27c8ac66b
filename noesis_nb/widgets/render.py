"""Pure rendering of the live view: event dicts and view state to escaped HTML (no ipywidgets).

Every string that comes from an event, a payload, a task or a tool goes through :func:`esc`
before it becomes HTML; class names derived from event data are reduced to known names. Text
from payloads, tasks, commands and reasons also goes through ``noesis_nb.secrets.shown`` first,
so a view never shows a secret, even of a run written by another program or detected after the
event. Colours come from classes (``theme.py``), never from inline styles, so every theme applies.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

import orjson

from .._safetext import capped_marks, safe_repr, visible
from ..frames.waits import line_pause_kind, pauses_for_a_person
from ..secrets import SCAN_MARGIN, shown_cut, shown_start
from ..store.facts import call_row
from ..store.vocab import MODEL_CALL, TOKEN_FIELDS, TOOL_APPROVAL_PENDING
from .theme import PHASE_HUES, STATUS_HUES

__all__ = [
    "UNKNOWN_SIGN",
    "esc",
    "as_label",
    "label",
    "visible",
    "event_name",
    "event_flag",
    "short_payload",
    "event_time",
    "local_time",
    "full_json",
    "row_html",
    "block_html",
    "live_css",
    "header_html",
    "counts_html",
    "badge_html",
    "phase_class",
    "phase_label",
    "approver_words",
    "dot_join",
    "FLAG_MARKS",
    "FLAG_WORDS",
    "by_rejection",
    "says_rejected",
    "shown_status",
    "ending_word",
    "refusal_html",
]

# glyphs common fonts (DejaVu) have; a person's rejection is marked as a veto is (⊘), and said apart from one; a tool
# call the adapter gave up while it waited for approval (``tool.approval.abandoned``) is passed by (↷), no alarm
FLAG_MARKS = {"pause": "‖", "veto": "⊘", "rejection": "⊘", "error": "✖", "abandoned": "↷"}
FLAG_WORDS = {"pause": "pause", "veto": "veto event", "rejection": "rejection event", "error": "error event"}
# stored phase names a newcomer would not read as words (the stored field stays as it is; only its label changes)
PHASE_LABELS = {"action_candidate": "proposal"}
#: what every view writes for a figure that is unknown (a token count a call did not report, a total with such a call
#: in it): the header's ``— out``, a model call's step ``— out``, the batch grid's ``— in``, the text line's
#: ``output_tokens=—``; never 0, never ``?``
UNKNOWN_SIGN = "—"
_CALL_TOTALS = ("input_tokens", "output_tokens")  # a model call's totals: said unknown when not counts, never left out
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
    "text",
    "outcome",
    "input_excerpt",
    "task",
    "steps",
    "checkpoint_id",
    *TOKEN_FIELDS,  # every part of a call's tokens the step's meter shows too (cached, cache writes, reasoning)
    "error",
)


def _dumps(value: Any, *, pretty: bool = False) -> str:
    """JSON text (orjson: fast enough for every redraw); anything unusual falls back to ``str``, and what no JSON
    encoder takes (nested deeper than it goes: a run's file may hold a line nested a thousand deep) to a bounded
    ``repr``. Never raises: one odd payload must not stop the view's redraws."""
    option = (orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) if pretty else 0
    try:
        return orjson.dumps(value, default=str, option=option | orjson.OPT_NON_STR_KEYS).decode()
    except (TypeError, orjson.JSONEncodeError):
        pass
    try:
        return json.dumps(value, ensure_ascii=False, default=str, indent=2 if pretty else None, sort_keys=pretty)
    except (RecursionError, ValueError, TypeError):
        return safe_repr(value, 100_000)


def refusal_html(inner: str) -> str:
    """A refused action's message (``inner``: escaped HTML), said in red and announced at once: an ipywidgets HTML
    widget sets its value as the element's content, so the live region (``role="alert"``) is in the HTML itself."""
    return f'<span class="nnb-c-red" role="alert">{inner}</span>'


def esc(value: Any) -> str:
    """HTML-escape anything (quotes too, so the result is safe in attributes), with no pile of combining marks
    (:func:`capped_marks`: a Zalgo name or message would draw over the rows around it)."""
    return html.escape(capped_marks(value if isinstance(value, str) else str(value)), quote=True)


_NO_MATH = str.maketrans({"$": "\uff04", "\\": "\u29f5"})  # a Label's text goes through MathJax in JupyterLab


def as_label(value: str) -> str:
    """Text for a ``Label`` (set as text, then typeset): ``$…$``, ``\\(…\\)`` and ``\\[…\\]`` in a tool name or a
    reason would read as math, so ``$`` and ``\\`` become their look-alikes (＄, ⧵), read the same."""
    return capped_marks(value).translate(_NO_MATH)


def _esc_text(value: str) -> str:
    """Escape for a text node only (``&``, ``<``, ``>``): quotes are harmless there and common in JSON."""
    return html.escape(capped_marks(value), quote=False)


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
    if phase == "act" and "vetoed" in {status, str(payload.get("outcome") or "").lower()}:
        return "veto"  # a tool call a person rejected ends the act vetoed: its ``error`` (ToolRejected) is no failure
    if phase == "error" or name.endswith(".failed") or payload.get("error") or (phase == "terminate" and status == "error"):
        return "error"
    if payload.get("decision") == "veto" or status == "vetoed" or (phase == "intuition" and payload.get("kind") == "veto"):
        return "veto"
    if name.startswith("tool.rejected") or name == "tool.execution.rejected":
        return "veto"
    if phase == "tool" and name == TOOL_APPROVAL_PENDING:
        return "pause"
    if pauses_for_a_person(line_pause_kind(event), payload):  # the rule of runs_df.waiting_s: the episode's own lines
        return "pause"
    return None


def by_rejection(event: Mapping[str, Any]) -> bool:
    """Whether a ``veto`` event comes from a tool call a person (or an approver policy) rejected, not from governance:
    its ``tool.rejected.*`` decision, or the act and ``terminate`` whose reasons say ``tool_rejected``. Noēsis writes
    such a run ``vetoed``; the view says "rejected", as the README keeps vetoes (governance) apart from rejections."""
    payload = _payload(event)
    if event_name(event).startswith("tool.rejected"):
        return bool(payload.get("draft_id"))
    return says_rejected(payload)


def says_rejected(record: Mapping[str, Any] | None) -> bool:
    """Whether a ``terminate`` payload or a ``summary.json`` (its ``reasons``, or those under ``x-noesis_nb``) says
    the run ended because a tool call was rejected (``tool_rejected``)."""
    if not isinstance(record, Mapping):
        return False
    extension = record.get("x-noesis_nb")
    reasons = record.get("reasons") or (extension.get("reasons") if isinstance(extension, Mapping) else None)
    return isinstance(reasons, list) and "tool_rejected" in reasons


def shown_status(status: str, rejected: bool) -> str:
    """The word every view shows for a run's status (the one rule): ``rejected`` for a run ``vetoed`` because a tool
    call was rejected (:func:`by_rejection` of its ``terminate``, :func:`says_rejected` of its summary), else its own
    status. Tables (``runs_df``, ``list_runs`` rows) keep the status as stored."""
    return "rejected" if rejected and status == "vetoed" else status


def ending_word(status: str, events: Sequence[Mapping[str, Any]]) -> str:
    """:func:`shown_status` of a run from its events (its last ``terminate``)."""
    if status != "vetoed":
        return status
    end = next((e for e in reversed(events) if e.get("phase") == "terminate"), None)
    return shown_status(status, end is not None and by_rejection(end))


def short(value: Any, limit: int, *, redact: bool = True, exact: bool = False) -> str:
    """One line of at most ``limit`` characters (secrets removed unless already done; not escaped; ``exact``: see
    :func:`visible`)."""
    if isinstance(value, str):
        text = value
    elif isinstance(value, (list, tuple)):  # side by side, no more items than could show, each cut (never recursive)
        text = ", ".join((v if isinstance(v, str) else _dumps(v))[: limit + SCAN_MARGIN] for v in value[:limit])
    else:
        text = _dumps(value)
    text = visible(" ".join((shown_start(text, limit) if redact else text[: limit + SCAN_MARGIN]).split()), exact=exact)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def label(value: Any, limit: int = 200) -> str:
    """A name read from a run (tool, agent, approver, rule, id) as HTML: one line, secrets removed, every invisible
    character shown, escaped."""
    return esc(short("" if value is None else value, limit, exact=True))


_short = short  # the name older callers use


def short_payload(event: Mapping[str, Any], limit: int = 120, *, omit: tuple[str, ...] = ()) -> str:
    """One plain-text line: the payload's telling keys as ``k=v``, else its compact JSON (without ``omit`` keys)."""
    payload = _payload(event)
    totals = call_row(payload) if payload.get("event_name") == MODEL_CALL else None  # a call's, as the frames read them
    parts = []
    for k in _SUMMARY_KEYS:
        if k in omit:
            continue
        if totals is not None and k in _CALL_TOTALS:  # never left out: unknown is said, as the view's step says it
            parts.append(f"{k}={UNKNOWN_SIGN if totals[k] is None else totals[k]}")
        elif payload.get(k) not in (None, "", [], {}):
            parts.append(f"{k}={short(payload[k], 60)}")
    if not parts:
        return short({k: v for k, v in payload.items() if k != "event_name" and k not in omit}, limit)
    return short(" ".join(parts), limit, redact=False)  # each part is redacted whole: a cut-off id must not look random


def dot_join(parts: Iterable[str]) -> str:
    """HTML parts side by side, `` · `` between them, leaving out the ones that show nothing (``""``, ``<b></b>``, an
    empty field's label): a line never ends, starts or doubles a separator for a field that is not there."""
    return " · ".join(p for p in parts if _shows(p))


def _shows(part: str) -> bool:
    text = part.strip()
    return bool(text) and ("<" not in text or bool(_TAG.sub("", text).strip()))  # tags are looked into only if any


_TAG = re.compile(r"<[^>]*>")  # escaped text holds no "<": what is left once tags are gone is what shows


def local_time(timestamp: str) -> str:
    """``HH:MM:SS.mmm`` in the kernel's local time zone from an ISO-8601 time; anything else its first 12 characters,
    redacted before the cut (a run's file may hold a key where its time should be)."""
    moment = _local_time(timestamp)
    return moment if moment is not None else shown_cut(timestamp, 12)


@lru_cache(maxsize=4096)
def _local_time(timestamp: str) -> str | None:
    try:
        moment = datetime.fromisoformat(timestamp.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:  # a stored time without an offset is UTC (``store.instants``), as the clocks read it
        moment = moment.replace(tzinfo=UTC)
    try:
        moment = moment.astimezone()
    except (OverflowError, ValueError):  # a time by year 1 or 9999 has no local time east or west of it: as stored
        pass
    return moment.strftime("%H:%M:%S.") + f"{moment.microsecond // 1000:03d}"


def event_time(event: Mapping[str, Any]) -> str:
    """The event's local time, ``HH:MM:SS.mmm`` (the format of every time the view shows)."""
    return local_time(str(event.get("timestamp") or ""))


def phase_class(phase: Any) -> str:
    """The colour class of a phase (``nnb-c-<hue>``); unknown phases are grey."""
    return "nnb-c-" + PHASE_HUES.get(str(phase or ""), "grey")


_RELABELLED = frozenset(PHASE_LABELS.values())


def phase_label(phase: Any) -> str:
    """The word shown for a phase: ``proposal`` for ``action_candidate``, others as stored; a phase an adapter named
    like one of those words (``proposal``, or it quoted) is shown quoted, so no two phases ever read the same."""
    text = str(phase or "?")
    # the quotes around it, in one pass (a crafted phase of a million quotes took seconds, peeled a pair at a time)
    k = min(len(text) - len(text.lstrip("'")), len(text) - len(text.rstrip("'")))
    bare = text[k : len(text) - k] if k else text
    if bare in _RELABELLED:  # quoted once more than stored: ``proposal`` reads 'proposal', ``'proposal'`` ''proposal''
        return f"'{text}'"
    return PHASE_LABELS.get(text, text)


def _phase_title(phase: Any) -> str:
    return f' title="stored as phase {esc(phase)}"' if str(phase or "") in PHASE_LABELS else ""


def approver_words(approver_id: Any) -> str:
    """Who decided, as words after the status: ``by ana``, ``automatically by the approver policy 'auto'``.

    ``policy:<name>`` is what a policy approver is stored as; ``resume_run`` is stored when a veto is
    overridden by resuming the run without a decision file, so no person is named."""
    who = str(approver_id or "?")
    if who.startswith("policy:"):
        return f"automatically by the approver policy '{who.removeprefix('policy:')}'"
    if who == "resume_run":
        return "by resuming the run (no approver named)"
    return f"by {who}"


def full_json(event: Mapping[str, Any], limit: int = 4000) -> str:
    """The expanded row: lineage on one line, then the whole payload (cut at ``limit`` characters)."""
    meta = {k: event.get(k) for k in ("id", "caused_by", "event_type", "agent_id") if event.get(k)}
    duration = (event.get("metrics") or {}).get("duration_ms") if isinstance(event.get("metrics"), Mapping) else None
    if duration is not None:
        meta["duration_ms"] = duration
    raw_head, raw_body = " ".join(f"{k}={v}" for k, v in meta.items()), _dumps(event.get("payload"), pretty=True)
    head, body = shown_start(raw_head, limit), shown_start(raw_body, limit)
    unscanned = sum(max(0, len(raw) - limit - SCAN_MARGIN) for raw in (raw_head, raw_body))  # never redacted, never shown
    text = visible(f"{head}\n{body}" if head else body)
    if len(text) > limit:
        more = len(text) - limit + unscanned
        text = text[:limit] + f"\n… {more} more characters; the whole event is in events.jsonl"
    return text


def row_html(event: Mapping[str, Any], *, detail_limit: int = 4000, omit: tuple[str, ...] = ()) -> str:
    """One raw event: a ``<details>`` whose summary is the row (without ``omit`` keys) and whose body is the whole event."""
    flag = event_flag(event)
    cls = "nnb-r" + (f" nnb-f-{flag}" if flag else "")
    mark = f"{FLAG_MARKS[flag]} " if flag else ""
    return (
        f'<details class="{cls}"><summary><span class="nnb-t">{esc(event_time(event))}</span> '
        f'<span class="nnb-line"><span class="nnb-p {phase_class(event.get("phase"))}"{_phase_title(event.get("phase"))}>'
        f"{label(phase_label(event.get('phase')), 60)}</span> "
        f"{mark}<b>{label(event_name(event))}</b> "
        f'<span class="nnb-a">{label(event.get("agent_id") or "")}</span> '
        f"{esc(short_payload(event, omit=omit))}</span></summary><pre>{_esc_text(full_json(event, detail_limit))}</pre></details>"
    )


def block_html(rows_newest_first: Iterable[str]) -> str:
    rows = "".join(rows_newest_first)
    return f'<div class="nnb-b">{rows}</div>' if rows else ""


def live_css() -> str:
    """The view's ``<style>`` (sent once per view; see ``theme.py``)."""
    from .theme import stylesheet

    return stylesheet()


def badge_html(status: str) -> str:
    """A run's status as a badge; a status word another program wrote is any text, so it is shown as a name is."""
    hue = STATUS_HUES.get(status, "grey")
    return f'<span class="nnb-badge nnb-c-{hue}">{label(status, 60)}</span>'


_USING_SHOWN = 80  # characters of the adapter's name in the header (a run folder can say anything there)


def header_html(info: Mapping[str, Any], badge: str | None = None) -> str:
    """Episode id, status badge, adapter, task, running time, tokens and cost (``info`` from ``view_state``); the
    adapter's name and the id as every name is shown (:func:`label`: one line, secrets removed, nothing hidden).
    ``badge``: the badge's HTML when not the status's own (a live view's, see ``stale.status_badge_html``)."""
    task = short(info.get("task") or "", 200)
    waited = f" (+ {esc(info['waited'])} waiting for people)" if info.get("waited") else ""
    return (
        f'<div class="nnb-h"><b>{label(info.get("episode_id") or "")}</b> {badge or badge_html(str(info.get("status") or "?"))} '
        f'<span class="nnb-muted">{label(info.get("using") or "", _USING_SHOWN)}</span><br>'
        f"<span>{esc(task)}</span><br>"
        f'<span class="nnb-muted">running time {esc(info.get("elapsed") or "—")}{waited} · '
        f"tokens {esc(info.get('tokens') or '—')} · cost {esc(info.get('cost') or '—')}</span></div>"
    )


def counts_html(total: int, steps: int, counts: Mapping[str, int], flags: Mapping[str, int], *, mode: str = "steps") -> str:
    """One muted line: how many steps and events, the events of each phase (``7 steps from 31 events (by phase: 11 tool
    · 4 runtime …)``), how many pauses, vetoes and errors, where the full log is.
    A phase is a name read from the run (:func:`label`): a run another program wrote may name one anything."""
    ranked = sorted(counts.items(), key=lambda kv: -kv[1])
    # the count before its phase and the line saying what is counted: "tool 11" read as eleven tools, not as eleven
    # events of the tool phase
    by_phase = " · ".join(f"{v:,} {label(phase_label(k), 60)}" for k, v in ranked[:6])
    if len(ranked) > 6:  # the phases left out, counted, so the line adds up to the events it names
        by_phase += f" · {sum(v for _, v in ranked[6:]):,} in other phases"
    # pauses are the times the run stopped for a person (``Tally``), vetoes and errors the events flagged so
    marks = " · ".join(f"{FLAG_MARKS[f]} {n:,} {FLAG_WORDS[f]}{'' if n == 1 else 's'}" for f, n in flags.items() if n)
    shown_as = f"{steps:,} steps from {total:,} events" if mode == "steps" else f"{total:,} events, newest first"
    return (
        f'<div class="nnb-muted nnb-counts">{shown_as}{f" (by phase: {by_phase})" if by_phase else ""}'
        f"{' · ' + marks if marks else ''}"
        " · full log in events.jsonl</div>"
    )
