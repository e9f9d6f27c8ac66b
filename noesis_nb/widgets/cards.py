"""HTML of approval cards (pure): what a draft or a veto asks, and how it was decided.

Each detail is a label next to its value (a definition list), times are local and in the
timeline's format, and the wording follows the state: a pending draft "wants approval", a
decided one says who decided, when, and why. A command line whose quoting would hide what runs
(quotes or newlines inside arguments) is shown as its argument list instead.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from ..secrets import REDACTED_VALUE, is_secret_key, shown, shown_cut
from .render import _dumps, approver_words, esc, label, local_time, short, visible

__all__ = [
    "pending_html",
    "decision_html",
    "decision_words",
    "draft_heading",
    "draft_tail",
    "never_decided",
    "command_html",
    "veto_html",
    "veto_decision_html",
]

_SHELL_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_RISK_HUES = {"high": "red", "critical": "red", "medium": "orange"}
_REASON_MAX = 500  # a decision's line shows this much of its reason; the decision file keeps it whole
_PLAIN_MAX = 160  # a command line longer than this is shown as its argument list
_PART_SHOWN = 2000  # characters of one argument, variable or directory sent to the page
_ITEMS_SHOWN = 40  # arguments (and variables) sent to the page; the rest are counted
_LIST_SHOWN = 8000  # characters of all the arguments (or variables) together sent to the page
_PAYLOAD_SHOWN = 4000  # characters of a payload or command line sent to the page
_CWD_KEY, _ENV_KEY, _TIMEOUT_KEY = "['cwd']", "['env']", "['timeout_ms']"


def _time(value: Any) -> str:
    return local_time(str(value)) if value else "?"


def decision_words(decision: Mapping[str, Any], *, already: bool = False) -> str:
    """Plain text: ``approved by ana at 11:53:54.310 — reason`` (``already approved …`` for a stale click)."""
    status = str(decision.get("status") or "?")
    text = (
        f"{'already ' if already else ''}{status} {approver_words(short(decision.get('approver_id') or '?', 80, exact=True))} "
        f"at {_time(decision.get('decided_at'))}"
    )
    reason = _reason(decision)
    return text + (f" — {reason}" if reason else "")


def _reason(decision: Mapping[str, Any]) -> str:
    """The decision's reason, unless it only repeats which approver policy decided (``approved by approver policy 'auto'``):
    one line, secrets removed, control and reordering characters shown (a decision file another program wrote may hold
    a terminal escape, which a notebook's printed line would obey), cut at 500 characters."""
    reason = short(decision.get("reason"), _REASON_MAX) if decision.get("reason") else ""
    approver = str(decision.get("approver_id") or "")
    if approver.startswith("policy:") and reason.endswith(f"by approver policy '{approver.removeprefix('policy:')}'"):
        return ""
    return reason


def decision_html(decision: Mapping[str, Any], *, already: bool = False) -> str:
    """The decision line of a card, coloured by outcome (a word, not only a colour)."""
    approved = decision.get("status") == "approved"
    words = esc(decision_words(decision, already=already))
    status = esc(decision.get("status") or "?")
    words = words.replace(status, f"<b>{status}</b>", 1)
    return f'<span class="nnb-c-{"green" if approved else "red"}">{"✔" if approved else "⊘"} {words}</span>'


def never_decided(ended: str) -> str:
    """``— not decided (run cancelled)``: a card's heading once its run ended (or its folder went) with no decision,
    so it no longer says it waits for one (not escaped; ``ended`` is a status word or ``folder gone``)."""
    why = "the run's folder is gone" if ended == "folder gone" else f"run {ended}"
    return f"— not decided ({why})"


def draft_tail(draft_id: Any) -> str:
    """The end of a draft's id, enough to tell apart two drafts of one tool asked in the same millisecond (parallel
    calls), short enough to read out: ``…GV15W9`` (not escaped; the whole id is among the card's details)."""
    text = short(draft_id, 80, exact=True)
    return text if len(text) <= 8 else "…" + text[-6:]


def draft_heading(p: Any, decision: Mapping[str, Any] | None = None, ended: str | None = None) -> str:
    """``‖ fs.write_file wants approval`` while pending, ``fs.write_file`` plus the decision once decided, and
    ``fs.write_file — not decided (run cancelled)`` once its run ended (``ended``) before anyone decided."""
    if decision is None and ended:
        return f'<b>{label(p.tool)}</b> <span class="nnb-muted">{esc(never_decided(ended))}</span>'
    if decision is None:
        return f'<b class="nnb-c-orange">‖ {label(p.tool)}</b> <b>wants approval</b>'
    return f'<span role="status"><b>{label(p.tool)}</b> {decision_html(decision)}</span>'  # read out once decided


def _exact(text: Any, limit: int = 0, where: str = "") -> str:
    """Escaped text of a command's part: secrets removed, every invisible or reordering character shown, a
    line break kept as one (HTML would show it as a space) and a tab or carriage return shown as ``\ufffd``.

    ``limit``: at most that many characters are sent to the page (redacted before the cut, so no secret's head is
    left), then how many bytes more there are and ``where`` the whole value is in Python (a multi-MB argument
    stays in the kernel)."""
    raw = str(text)
    cut = limit and len(raw) > limit
    part = shown_cut(raw, limit) if cut else shown(raw)
    marked = visible(part, exact=True).replace("\r", "\ufffd").replace("\t", "\ufffd")
    html = esc(marked).replace("\n", "<br>")
    if cut:
        html += _more(len(raw[limit:].encode("utf-8", "surrogatepass")), where)
    return html


def _more(size: int, where: str) -> str:
    """The note after a value cut for the page: how much more there is, and where to read it whole."""
    return f' <i class="nnb-muted">… {size:,} bytes more, not shown here; the whole value is {esc(where)}</i>'


def _in_python(key: str, field: str = "redacted_payload") -> str:
    return f"in Python: the draft's {field}{key} (handle.pending, or DiskRun(run_dir).pending)"


def _env_lines(env: Any) -> list[str]:
    """``KEY=value`` of each variable the command runs with (the value redacted under a secret-looking name); an env a
    field policy replaced whole shows as ``env=[REDACTED]`` / ``env=sha256:…``, as the command line does."""
    if not isinstance(env, Mapping):
        return [] if env in (None, "", {}) else [f"env={env}"]
    return [f"{key}={REDACTED_VALUE if is_secret_key(str(key)) else value}" for key, value in env.items()]


def _items_html(values: list[str], key: str) -> str:
    """``<li>`` of each value while the list's budget lasts (``_ITEMS_SHOWN`` values, ``_LIST_SHOWN`` characters,
    each value cut at ``_PART_SHOWN``); then one line counting the values left out and their bytes."""
    items, budget = [], _LIST_SHOWN
    for i, value in enumerate(values[:_ITEMS_SHOWN]):
        if budget <= 0:
            break
        limit = min(_PART_SHOWN, budget)
        items.append(f"<li>{_exact(value, limit, _in_python(f'{key}[{i}]'))}</li>")
        budget -= min(len(value), limit)
    rest = values[len(items) :]
    if rest:
        size = sum(len(v.encode("utf-8", "surrogatepass")) for v in rest)
        items.append(f"<li>{_more(size, _in_python(key)).strip()} ({len(rest):,} more items)</li>")
    return "".join(items)


def command_html(p: Any) -> str:
    """``$ cmd`` when the line reads plainly, else the argument list, cwd and env, one item a line.

    The line reads plainly when no argument, variable or directory holds a quote, backslash or line break
    (shell quoting of those hides where one argument ends) and it is short; invisible and bidi characters
    are shown as ``\ufffd`` either way, so the card reads as what runs. What is sent to the page is bounded
    (a tool's argv may be megabytes): each part, the number of parts and the payload are cut, saying how much
    more there is and where it is whole."""
    payload = p.redacted_payload or {}
    argv = payload.get("argv")
    raw_line = p.command_line or None
    line = shown(raw_line) if raw_line and len(raw_line) <= _PLAIN_MAX * 4 else None  # longer never reads plainly
    if isinstance(argv, Sequence) and not isinstance(argv, str) and argv:
        args = [str(a) for a in argv]
        if args[0] == sys.executable:
            args[0] = "python"
        env = _env_lines(payload.get("env"))
        parts = [*args, *env, str(payload.get("cwd") or "")]
        variables = payload.get("env")
        names = list(variables) if isinstance(variables, Mapping) else []
        plain = (
            line is not None
            and len(line) <= _PLAIN_MAX
            and not any(c in a for a in parts for c in "'\"\n\r\\")
            and all(_SHELL_NAME.fullmatch(str(name)) for name in names)  # ``A B=1 cmd`` would read as running ``A``
        )
        if not plain:
            items = _items_html(args, "['argv']")
            cwd = payload.get("cwd")
            extra = f"<dt>cwd</dt><dd>{_exact(cwd, _PART_SHOWN, _in_python(_CWD_KEY))}</dd>" if cwd else ""
            if env:
                extra += f"<dt>env</dt><dd><ul>{_items_html(env, _ENV_KEY)}</ul></dd>"
            timeout = payload.get("timeout_ms")
            if isinstance(timeout, str):  # replaced whole by a field policy: shown, as a number is not
                extra += f"<dt>timeout</dt><dd>timeout_ms={_exact(timeout, _PART_SHOWN, _in_python(_TIMEOUT_KEY))}</dd>"
            return f"<dt>argv</dt><dd><ol>{items}</ol></dd>{extra}"
    if raw_line:
        return f"<dt>command</dt><dd><code>$ {_exact(raw_line, _PAYLOAD_SHOWN, _in_python('', 'command_line'))}</code></dd>"
    return f"<dt>payload</dt><dd><pre>{_exact(_dumps(payload, pretty=True), _PAYLOAD_SHOWN, _in_python(''))}</pre></dd>"


# what the card's ids and hashes are for, said once under each (and as the label's tooltip): sha256 values alone
# told a person nothing of what their click is bound to
HASH_WORDS = {
    "draft": "this request's id: its decision and the run's files name it",
    "fingerprint": "what you approve is bound to this exact request: a changed request has another fingerprint",
    "impact": "what the tool said this call will change: an approval holds only while that stays the same",
}


def _hashed(name: str, value_html: str) -> str:
    """``<dt>`` and ``<dd>`` of an id or hash, with what it is for (``HASH_WORDS``) as a tooltip and a muted line."""
    words = esc(HASH_WORDS[name])
    return f'<dt title="{words}">{name}</dt><dd>{value_html}<br><span class="nnb-muted nnb-why">{words}</span></dd>'


def pending_html(p: Any, decision: Mapping[str, Any] | None = None, ended: str | None = None) -> str:
    """A card's body: heading by state, then each detail labelled (effect, risk, command, draft, fingerprint, impact).

    ``ended``: how its run ended before anyone decided (the heading says it was never decided)."""
    risk_hue = _RISK_HUES.get(str(p.risk_tier), "grey")
    details = (
        f"<dt>effect</dt><dd>{label(p.effect_kind)}</dd>"
        f'<dt>risk</dt><dd><b class="nnb-c-{risk_hue}">{label(p.risk_tier)}</b></dd>'
        f"<dt>protocol</dt><dd>{label(p.protocol)}</dd>"
        f"{command_html(p)}"
        f"<dt>asked at</dt><dd>{esc(_time(p.requested_at))}</dd>"
        f"{_hashed('draft', label(p.draft_id, 300))}"
        f"{_hashed('fingerprint', label(p.fingerprint, 300))}"  # a draft's file may say anything here
        + (_hashed("impact", label(p.impact_hash, 300)) if p.impact_hash else "")
    )
    listing = f"<dl>{details}</dl>"
    if decision is not None:  # decided: the details stay one click away
        # named after its tool, time and the id's end: a page of decided cards is not a row of ▸ all called "what was
        # asked", nor of "draft draft:ep_…:req_…" (the whole id is inside, with the other details)
        summary = f"what {label(p.tool)} asked at {esc(_time(p.requested_at))} (draft {esc(draft_tail(p.draft_id))})"
        listing = f"<details><summary>{summary}</summary>{listing}</details>"
    return f"<div>{draft_heading(p, decision, ended)}{listing}</div>"


def veto_html(governance: Mapping[str, Any] | None, decision: Mapping[str, Any] | None = None, ended: str | None = None) -> str:
    """A veto pause's card: the rule and its message; what Override and Uphold do, how it was decided, or
    (``ended``) that its run ended before anyone decided."""
    payload = (governance or {}).get("payload") if isinstance((governance or {}).get("payload"), Mapping) else {}
    payload = payload or {}
    rule, message = payload.get("rule_id") or "?", short(payload.get("message") or "", 300)
    details = (
        f"<dl><dt>rule</dt><dd>{label(rule)}</dd><dt>message</dt><dd>{esc(message)}</dd>"
        f"<dt>vetoed at</dt><dd>{esc(_time((governance or {}).get('timestamp')))}</dd></dl>"
    )
    if decision is None and ended:
        return f'<div><b>governance veto</b> <span class="nnb-muted">{esc(never_decided(ended))}</span>{details}</div>'
    if decision is None:
        return (
            f'<div><b class="nnb-c-red">⊘ governance vetoed this run</b> <b>and paused it for a person</b>{details}'
            '<span class="nnb-muted">Override lets the adapter run; Uphold ends the run vetoed.</span></div>'
        )
    said = f'<span role="status"><b>governance veto</b> {veto_decision_html(decision)}</span>'  # read out once decided
    return f"<div>{said}<details><summary>the veto of rule {label(rule, 80)}</summary>{details}</details></div>"


def veto_decision_html(decision: Mapping[str, Any], *, already: bool = False) -> str:
    """``overridden by ana at 11:53:54.310 — reason`` / ``upheld by …`` (who, in words: :func:`approver_words`)."""
    override = decision.get("status") == "approved"
    word = "overridden" if override else "upheld"
    reason = _reason(decision)
    text = esc(
        f"{approver_words(short(decision.get('approver_id') or '?', 80, exact=True))} at {_time(decision.get('decided_at'))}"
        + (f" — {reason}" if reason else "")
    )
    prefix = "already " if already else ""
    return f'<span class="nnb-c-{"green" if override else "red"}">{"✔" if override else "⊘"} {prefix}<b>{word}</b> {text}</span>'
