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

from ..secrets import REDACTED_VALUE, is_secret_key, shown
from .render import _dumps, approver_words, esc, label, local_time, short, visible

__all__ = ["pending_html", "decision_html", "decision_words", "draft_heading", "command_html", "veto_html", "veto_decision_html"]

_SHELL_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_RISK_HUES = {"high": "red", "critical": "red", "medium": "orange"}
_REASON_MAX = 500  # a decision's line shows this much of its reason; the decision file keeps it whole


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
    return f'<span class="nnb-c-{"green" if approved else "red"}">{"✔" if approved else "✖"} {words}</span>'


def draft_heading(p: Any, decision: Mapping[str, Any] | None = None) -> str:
    """``‖ fs.write_file wants approval`` while pending, ``fs.write_file`` plus the decision once decided."""
    if decision is None:
        return f'<b class="nnb-c-orange">‖ {label(p.tool)}</b> <b>wants approval</b>'
    return f'<span role="status"><b>{label(p.tool)}</b> {decision_html(decision)}</span>'  # read out once decided


def _exact(text: Any) -> str:
    """Escaped text of a command's part: secrets removed, every invisible or reordering character shown, a
    line break kept as one (HTML would show it as a space) and a tab or carriage return shown as ``\ufffd``."""
    marked = visible(shown(str(text)), exact=True).replace("\r", "\ufffd").replace("\t", "\ufffd")
    return esc(marked).replace("\n", "<br>")


def _env_lines(env: Any) -> list[str]:
    """``KEY=value`` of each variable the command runs with (the value redacted under a secret-looking name)."""
    if not isinstance(env, Mapping):
        return [] if env in (None, "", {}) else [str(env)]
    return [f"{key}={REDACTED_VALUE if is_secret_key(str(key)) else value}" for key, value in env.items()]


def command_html(p: Any) -> str:
    """``$ cmd`` when the line reads plainly, else the argument list, cwd and env, one item a line.

    The line reads plainly when no argument, variable or directory holds a quote, backslash or line break
    (shell quoting of those hides where one argument ends) and it is short; invisible and bidi characters
    are shown as ``\ufffd`` either way, so the card reads as what runs."""
    payload = p.redacted_payload or {}
    argv = payload.get("argv")
    line = shown(p.command_line) if p.command_line else None
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
            and len(line) <= 160
            and not any(c in a for a in parts for c in "'\"\n\r\\")
            and all(_SHELL_NAME.fullmatch(str(name)) for name in names)  # ``A B=1 cmd`` would read as running ``A``
        )
        if not plain:
            items = "".join(f"<li>{_exact(a)}</li>" for a in args)
            extra = f"<dt>cwd</dt><dd>{_exact(payload['cwd'])}</dd>" if payload.get("cwd") else ""
            if env:
                extra += "<dt>env</dt><dd><ul>" + "".join(f"<li>{_exact(v)}</li>" for v in env) + "</ul></dd>"
            return f"<dt>argv</dt><dd><ol>{items}</ol></dd>{extra}"
    if line:
        return f"<dt>command</dt><dd><code>$ {esc(visible(line, exact=True))}</code></dd>"
    return f"<dt>payload</dt><dd><pre>{esc(visible(shown(_dumps(payload, pretty=True)), exact=True))}</pre></dd>"


def pending_html(p: Any, decision: Mapping[str, Any] | None = None) -> str:
    """A card's body: heading by state, then each detail labelled (effect, risk, command, draft, fingerprint, impact)."""
    risk_hue = _RISK_HUES.get(str(p.risk_tier), "grey")
    details = (
        f"<dt>effect</dt><dd>{label(p.effect_kind)}</dd>"
        f'<dt>risk</dt><dd><b class="nnb-c-{risk_hue}">{label(p.risk_tier)}</b></dd>'
        f"<dt>protocol</dt><dd>{label(p.protocol)}</dd>"
        f"{command_html(p)}"
        f"<dt>asked at</dt><dd>{esc(_time(p.requested_at))}</dd>"
        f"<dt>draft</dt><dd>{label(p.draft_id, 300)}</dd>"
        f"<dt>fingerprint</dt><dd>{esc(p.fingerprint)}</dd>"
        + (f"<dt>impact</dt><dd>{esc(p.impact_hash)}</dd>" if p.impact_hash else "")
    )
    listing = f"<dl>{details}</dl>"
    if decision is not None:  # decided: the details stay one click away
        listing = f"<details><summary>what was asked</summary>{listing}</details>"
    return f"<div>{draft_heading(p, decision)}{listing}</div>"


def veto_html(governance: Mapping[str, Any] | None, decision: Mapping[str, Any] | None = None) -> str:
    """A veto pause's card: the rule and its message; what Override and Uphold do, or how it was decided."""
    payload = (governance or {}).get("payload") if isinstance((governance or {}).get("payload"), Mapping) else {}
    payload = payload or {}
    rule, message = payload.get("rule_id") or "?", short(payload.get("message") or "", 300)
    details = (
        f"<dl><dt>rule</dt><dd>{label(rule)}</dd><dt>message</dt><dd>{esc(message)}</dd>"
        f"<dt>vetoed at</dt><dd>{esc(_time((governance or {}).get('timestamp')))}</dd></dl>"
    )
    if decision is None:
        return (
            f'<div><b class="nnb-c-red">⊘ governance vetoed this run</b> <b>and paused it for a person</b>{details}'
            '<span class="nnb-muted">Override lets the adapter run; Uphold ends the run vetoed.</span></div>'
        )
    said = f'<span role="status"><b>governance veto</b> {veto_decision_html(decision)}</span>'  # read out once decided
    return f"<div>{said}<details><summary>the veto</summary>{details}</details></div>"


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
    return f'<span class="nnb-c-{"green" if override else "red"}">{"✔" if override else "✖"} {prefix}<b>{word}</b> {text}</span>'
