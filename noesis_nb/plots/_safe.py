"""Untrusted text on its way into a figure: HTML-escaped, and never part of a hover template.

Plotly renders a subset of HTML (``<b>``, ``<a href>``, ``<br>``) in hover labels, legends,
tick labels and titles, and reads ``%{…}`` in a ``hovertemplate`` as a placeholder. Event text,
episode ids, model and tool names come from run files, so every such string goes through
``esc`` and reaches a template only as ``%{customdata[i]}``. It is redacted there too (``secrets.shown``):
a run noesis_nb did not write was never screened, and a frame may be one the user built.
"""

from __future__ import annotations

import html
from collections.abc import Iterable
from typing import Any

import numpy as np

from ..secrets import shown

__all__ = ["esc", "esc_all"]


def esc(value: Any) -> str:
    """``value`` as display text, its secrets redacted and ``<``, ``>``, ``&`` and quotes escaped (None → "")."""
    return "" if value is None else html.escape(shown(str(value)), quote=True)


def esc_all(values: Iterable[Any]) -> np.ndarray:
    """``esc`` of each value, as an object array ready for ``customdata``; NA becomes "".
    A text repeated (a tool or model name on every row) is redacted once."""
    done: dict[str, str] = {}
    out = [("" if v is None or (isinstance(v, float) and v != v) else _esc_once(v, done)) for v in values]
    arr = np.empty(len(out), dtype=object)
    arr[:] = out
    return arr


def _esc_once(value: Any, done: dict[str, str]) -> str:
    text = str(value)
    out = done.get(text)
    if out is None:
        out = done[text] = esc(text)
    return out
