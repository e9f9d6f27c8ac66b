"""Keeps the notebook's shortcuts out of a view's text boxes (an anywidget placed, hidden, inside each view).

Notebook 7 starts Lumino without ``bubblingKeydown``: its shortcuts are matched as a key goes down, before the box
has it, so Shift+Enter typed in the steer box ran the cell that made the view (a second episode). Lumino skips every
shortcut for a key whose target, or an ancestor of it below the shortcut's element, has ``data-lm-suppress-shortcuts``;
ipywidgets gives Python no way to set an attribute, so this small front-end module sets it on the view's text boxes,
and on boxes the view adds later (a MutationObserver on the view's root, dropped when the guard's view goes).

The guard sits in a ``display: none`` box: it takes no space, and where its front end cannot load (anywidget's
extension missing from the Jupyter server) ipywidgets' error box stays hidden in it; the view works as before, only
without the guard. Without the ``anywidget`` package in the kernel there is no guard at all.
"""

from __future__ import annotations

from typing import Any

import ipywidgets as w

from .theme import ROOT_CLASS

try:
    import anywidget
except ImportError:  # a kernel without it: the views are drawn without the guard
    anywidget = None  # type: ignore[assignment]

__all__ = ["GUARD_CLASS", "SUPPRESS_ATTRIBUTE", "key_guard"]

GUARD_CLASS = "nnb-keyguard"
SUPPRESS_ATTRIBUTE = "data-lm-suppress-shortcuts"  # read by Lumino's CommandRegistry (target and its ancestors)

_ESM = """
const BOXES = 'textarea, input:not([type]), input[type="text"], input[type="search"]';
const MARK = '@MARK@';
const mark = (root) => {
  for (const box of root.querySelectorAll(BOXES)) if (!box.hasAttribute(MARK)) box.setAttribute(MARK, 'true');
};
export default {
  render({ el }) {
    let observer = null, timer = null, tries = 0;
    const attach = () => {  // the view's root holds this element once ipywidgets has put it in the page
      const root = el.closest('.@ROOT@');
      if (root === null) {
        if (++tries < 600) timer = setTimeout(attach, 50);
        return;
      }
      mark(root);
      observer = new MutationObserver(() => mark(root));
      observer.observe(root, { childList: true, subtree: true });
    };
    attach();
    return () => { clearTimeout(timer); if (observer !== null) observer.disconnect(); };
  },
};
""".replace("@MARK@", SUPPRESS_ATTRIBUTE).replace("@ROOT@", ROOT_CLASS)

if anywidget is not None:

    class KeyGuard(anywidget.AnyWidget):
        """Sets ``data-lm-suppress-shortcuts`` on the text boxes of the view it is placed in."""

        _esm = _ESM


def key_guard() -> Any | None:
    """A hidden box holding the guard, to put among a view's children; None without the ``anywidget`` package."""
    if anywidget is None:
        return None
    box = w.Box([KeyGuard()], layout=w.Layout(display="none"))
    box.add_class(GUARD_CLASS)
    return box
