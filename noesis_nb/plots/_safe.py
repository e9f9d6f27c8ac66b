"""Untrusted text on its way into a figure: HTML-escaped, and never part of a hover template.

Plotly renders a subset of HTML (``<b>``, ``<a href>``, ``<br>``) in hover labels, legends,
tick labels and titles, and reads ``%{…}`` in a ``hovertemplate`` as a placeholder. Event text,
episode ids, model and tool names come from run files, so every such string goes through
``esc`` and reaches a template only as ``%{customdata[i]}`` or ``%{hovertext}``. Control, invisible and bidi characters are
shown as ``\ufffd`` first, as the live view shows them: a tool name ``fs.read\u202e`` must not read as another.

A name is also bounded where it is drawn: plotly never wraps a legend entry or a tick label, so one 400-character
model name would take the whole figure. Legends and ticks show ``short`` labels (distinct names stay distinct);
the full name, wrapped, is what the category holds and the hover shows (``categories``).
"""

from __future__ import annotations

import html
from collections.abc import Iterable
from typing import Any

import numpy as np

from .._safetext import visible

__all__ = ["LABEL_LIMIT", "esc", "esc_all", "short", "wrapped", "categories", "label_ticks"]

LABEL_LIMIT = 40  # characters of a name in a legend or under a tick
_HOVER_WIDTH = 80  # characters of a hover line
_HOVER_LIMIT = 480  # characters of a name in a hover (six lines)


def esc(value: Any) -> str:
    """``value`` as display text, nothing hidden (:func:`visible`), with ``<``, ``>``, ``&`` and quotes escaped (None → "")."""
    return "" if value is None else html.escape(visible(str(value)), quote=True)


def esc_all(values: Iterable[Any]) -> np.ndarray:
    """``wrapped`` of each value (escaped, in lines, bounded), as an object array ready for ``customdata``; NA is ""."""
    out = [wrapped(v) for v in values]
    arr = np.empty(len(out), dtype=object)
    arr[:] = out
    return arr


def _text(value: Any, *, exact: bool = False) -> str:
    """``value`` as text, NA as ""; ``exact``: every invisible character shown (a name: ``gpt-4o\u2060`` is not ``gpt-4o``)."""
    return "" if value is None or (isinstance(value, float) and value != value) else visible(str(value), exact=exact)


def short(value: Any, limit: int = LABEL_LIMIT) -> str:
    """``esc(value)`` of at most ``limit`` characters: a legend entry, a tick label, a title's name. A longer one
    keeps its start and its end around "…" (``gpt-4o-…-2024-08-06``, ``tool:fs.…ite #2``): names often differ last."""
    text = _text(value, exact=True)
    if len(text) > limit:
        tail = (limit - 1) // 3
        text = text[: limit - 1 - tail] + "…" + text[len(text) - tail :]
    return html.escape(text, quote=True)


def wrapped(value: Any, width: int = _HOVER_WIDTH, limit: int = _HOVER_LIMIT, *, exact: bool = False) -> str:
    """``esc(value)`` in lines of ``width`` characters (``<br>`` between), cut at ``limit``: a text in a hover
    (``exact`` for a name, as ``_text``)."""
    text = _text(value, exact=exact)
    text = text if len(text) <= limit else text[: limit - 1] + "…"
    return "<br>".join(html.escape(text[i : i + width], quote=True) for i in range(0, len(text), width)) or ""


def _distinct(labels: list[str], keys: list[Any]) -> list[str]:
    """``labels`` with " (2)", " (3)"… after a label that two different keys share (cut alike), so none merge."""
    seen: dict[str, list[Any]] = {}
    for label, key in zip(labels, keys):
        owners = seen.setdefault(label, [])
        if key not in owners:
            owners.append(key)
    return [label if len(seen[label]) == 1 else f"{label} ({seen[label].index(key) + 1})" for label, key in zip(labels, keys)]


def categories(values: Iterable[Any]) -> tuple[np.ndarray, list[str], list[str]]:
    """What an axis of names needs: per value, its category (wrapped, for the hover); and, per distinct value in
    first-seen order, its category and its tick label (``short``). Distinct values keep distinct categories, and
    names read apart: an invisible character in one (a zero-width joiner, a bidi mark) is shown, as in the view."""
    keys = ["" if v is None or (isinstance(v, float) and v != v) else str(v) for v in values]
    unique = list(dict.fromkeys(keys))  # as given: two names shown alike ("a\u200c", "a\u200d") stay two
    full = dict(zip(unique, _distinct([wrapped(k, exact=True) for k in unique], unique)))
    ticks = _distinct([short(k) for k in unique], unique)
    out = np.empty(len(keys), dtype=object)
    out[:] = [full[k] for k in keys]
    return out, [full[k] for k in unique], ticks


def label_ticks(fig: Any, axis: str, shown: list[str], ticks: list[str], **where: Any) -> None:
    """Show ``ticks`` under the categories ``shown`` on ``axis`` ("x" or "y") of ``fig``."""
    update = fig.update_xaxes if axis == "x" else fig.update_yaxes
    update(tickmode="array", tickvals=shown, ticktext=ticks, **where)
