"""Untrusted text on its way into a figure: HTML-escaped, and never part of a hover template.

Plotly renders a subset of HTML (``<b>``, ``<a href>``, ``<br>``) in hover labels, legends,
tick labels and titles, and reads ``%{…}`` in a ``hovertemplate`` as a placeholder. Event text,
episode ids, model and tool names come from run files, so every such string goes through
``esc`` and reaches a template only as ``%{customdata[i]}``. Control, invisible and bidi characters are
shown as ``\ufffd`` first, as the live view shows them: a tool name ``fs.read\u202e`` must not read as another.
"""

from __future__ import annotations

import html
from collections.abc import Iterable
from typing import Any

import numpy as np

from .._safetext import visible

__all__ = ["esc", "esc_all"]


def esc(value: Any) -> str:
    """``value`` as display text, nothing hidden (:func:`visible`), with ``<``, ``>``, ``&`` and quotes escaped (None → "")."""
    return "" if value is None else html.escape(visible(str(value)), quote=True)


def esc_all(values: Iterable[Any]) -> np.ndarray:
    """``esc`` of each value, as an object array ready for ``customdata``; NA becomes ""."""
    out = [("" if v is None or (isinstance(v, float) and v != v) else esc(v)) for v in values]
    arr = np.empty(len(out), dtype=object)
    arr[:] = out
    return arr
