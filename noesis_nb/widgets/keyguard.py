"""Keeps the notebook's shortcuts out of a view's controls and says their state to screen readers (an anywidget
placed, hidden, inside each view).

Notebook 7 starts Lumino without ``bubblingKeydown``: its shortcuts are matched as a key goes down, before the control
has it, so Shift+Enter typed in the steer box ran the cell that made the view (a second episode), and Shift+Enter on a
focused Approve ran the cell in JupyterLab too. Lumino skips every shortcut for a key whose target, or an ancestor of it
below the shortcut's element, has ``data-lm-suppress-shortcuts``; ipywidgets gives Python no way to set an attribute,
so this small front-end module sets it on the view's text boxes, buttons, toggles, slider handles and checkboxes. A
button then keeps a native button's keys (Enter and Space click it); Shift+, Ctrl+ or Alt+Enter on it is swallowed,
as the notebook's "run this cell" reflex must neither run a cell nor decide a draft.

It also mirrors state ipywidgets draws only for the eye into ARIA (and hides a button's icon, a private-use glyph, from
its name: ``Approve``, not ``\uf00c Approve``): a slider handle's name (its label, else tooltip)
and ``aria-valuetext`` (``event 3 of 12``: the unit a ``nnb-unit-<word>`` class names, see :func:`count_unit`); a
toggle's ``mod-active`` as ``aria-pressed``, or as ``aria-expanded`` on a ▸ toggle (``nnb-toggle``); a reason box the
kernel marked ``nnb-invalid`` as ``aria-invalid`` described by the refusal (``role="alert"``) of its card, or of the
box around it marked ``nnb-refusal-scope`` (the inbox's shared reason, in its toolbar). A
MutationObserver on the view's outermost root keeps all of it in step with every change and with controls added later
(a replay's own bar sits outside the episode view that holds the guard); it is dropped when the guard's view goes.

It also tells the widget manager when the kernel is gone for good, as ipywidgets does itself only for a restart: after
Kernel → Shut Down Kernel, a kernel deleted through the server (the Running panel, culling) or one that died and was
restarted by the server, the views looked live and their buttons took clicks that reached nothing. The guard watches
the kernel connection (disposed, status ``dead`` or ``autorestarting``) and calls the manager's ``disconnect()``, what
a restart calls: every view then says it lost its kernel (``stale.py``) and its controls go inert (``theme.py``).

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

__all__ = [
    "EXPAND_CLASS",
    "GUARD_CLASS",
    "INVALID_CLASS",
    "REFUSAL_SCOPE_CLASS",
    "SUPPRESS_ATTRIBUTE",
    "count_unit",
    "key_guard",
]

GUARD_CLASS = "nnb-keyguard"
SUPPRESS_ATTRIBUTE = "data-lm-suppress-shortcuts"  # read by Lumino's CommandRegistry (target and its ancestors)
INVALID_CLASS = "nnb-invalid"  # on a Text the kernel refused the value of
REFUSAL_SCOPE_CLASS = "nnb-refusal-scope"  # a box outside any card holding a Text and the refusal that describes it
EXPAND_CLASS = "nnb-toggle"  # on a ToggleButton that shows or hides something (▸/▾), not a pressed/unpressed choice
_UNIT_PREFIX = "nnb-unit-"

_ESM = """
const MARK = '@MARK@', ROOT = '.@ROOT@', UNIT = '@UNIT@', ALERT_ID = 'nnb-alert-';
const KEYED = 'textarea, input:not([type]), input[type="text"], input[type="search"], input[type="checkbox"], '
  + 'button, select, [role="slider"], [contenteditable="true"]';
const set = (e, name, value) => { if (e.getAttribute(name) !== value) e.setAttribute(name, value); };
const drop = (e, name) => { if (e.hasAttribute(name)) e.removeAttribute(name); };
let ids = 0;
const sliders = (root) => {
  for (const handle of root.querySelectorAll('.widget-slider [role="slider"]')) {
    const widget = handle.closest('.widget-slider'), label = widget.querySelector('.widget-label');
    const name = (label && (label.textContent.trim() || label.title.trim())) || '';
    if (name) set(handle, 'aria-label', name);
    const unit = [...widget.classList].find(c => c.startsWith(UNIT));
    const number = (a) => handle.hasAttribute(a) ? Math.round(Number(handle.getAttribute(a))) : NaN;
    const now = number('aria-valuenow'), max = number('aria-valuemax'), said = (n) => n.toLocaleString('en-US');
    if (Number.isFinite(now) && Number.isFinite(max))  // as the view writes it: "event 1,234 of 5,000"
      set(handle, 'aria-valuetext', `${unit ? unit.slice(UNIT.length) : name} ${said(now)} of ${said(max)}`);
  }
};
const toggles = (root) => {
  for (const b of root.querySelectorAll('button.widget-toggle-button')) {
    const on = b.classList.contains('mod-active') ? 'true' : 'false';
    set(b, b.classList.contains('@EXPAND@') ? 'aria-expanded' : 'aria-pressed', on);
  }
};
const reasons = (root) => {
  for (const box of root.querySelectorAll('.widget-text input')) {
    if (box.closest('.@INVALID@') !== null) {
      set(box, 'aria-invalid', 'true');
      const card = box.closest('.nnb-card, .@SCOPE@'), alert = card && card.querySelector('[role="alert"]');
      if (alert !== null) {
        if (!alert.id) alert.id = ALERT_ID + Date.now().toString(36) + '-' + (++ids);
        set(box, 'aria-describedby', alert.id);
      }
    } else if (box.hasAttribute('aria-invalid')) {
      drop(box, 'aria-invalid');
      if ((box.getAttribute('aria-describedby') || '').startsWith(ALERT_ID)) drop(box, 'aria-describedby');
    }
  }
};
const mark = (root) => {
  for (const e of root.querySelectorAll(KEYED)) if (!e.hasAttribute(MARK)) e.setAttribute(MARK, 'true');
  // a button's FontAwesome icon is a private-use glyph a screen reader read as the start of its name ('\\uf00c Approve')
  for (const i of root.querySelectorAll('button > i.fa')) set(i, 'aria-hidden', 'true');
  sliders(root); toggles(root); reasons(root);
};
const swallow = (event) => {  // Shift/Ctrl/Alt+Enter on a button would click it (Chromium): the run reflex decides nothing
  if (event.key === 'Enter' && (event.shiftKey || event.ctrlKey || event.altKey || event.metaKey)
      && event.target instanceof Element && event.target.closest('button') !== null) event.preventDefault();
};
// ipywidgets marks its views disconnected when the kernel restarts, and not when it is shut down (Kernel menu),
// deleted through the server (Running panel, culling) or dies and is restarted by the server: the views then looked
// live and took clicks that went nowhere. The kernel connection says each (disposed, status dead or autorestarting):
// the widget manager is then told what a restart tells it, so every view of the notebook says it lost its kernel.
const LOST = new Set(['dead', 'autorestarting']);
const watchKernel = (model, root) => {
  const manager = model && model.widget_manager, kernel = manager && manager.kernel;
  if (!kernel || !kernel.disposed || !kernel.statusChanged) return () => {};
  const gone = () => {
    if (typeof manager.disconnect === 'function') manager.disconnect();
    else root.classList.add('jupyter-widgets-disconnected');
  };
  const status = (_, now) => { if (LOST.has(now)) gone(); };
  if (kernel.isDisposed || LOST.has(kernel.status)) { gone(); return () => {}; }
  kernel.disposed.connect(gone); kernel.statusChanged.connect(status);
  return () => { kernel.disposed.disconnect(gone); kernel.statusChanged.disconnect(status); };
};
const outermost = (el) => {
  let root = null;
  for (let e = el.closest(ROOT); e !== null; e = e.parentElement && e.parentElement.closest(ROOT)) root = e;
  return root;
};
export default {
  render({ model, el }) {
    let observer = null, timer = null, tries = 0, root = null, unwatch = () => {};
    const attach = () => {  // once ipywidgets has put the guard, and every view around it, in the page
      root = el.isConnected ? outermost(el) : null;
      if (root === null) {
        if (++tries < 600) timer = setTimeout(attach, 50);
        return;
      }
      mark(root);
      observer = new MutationObserver(() => mark(root));
      observer.observe(root, { childList: true, subtree: true, attributes: true,
                               attributeFilter: ['class', 'title', 'aria-valuenow', 'aria-valuemax'] });
      root.addEventListener('keydown', swallow);
      unwatch = watchKernel(model, root);
    };
    attach();
    return () => {
      clearTimeout(timer);
      if (observer !== null) observer.disconnect();
      if (root !== null) root.removeEventListener('keydown', swallow);
      unwatch();
    };
  },
};
"""
for _name, _value in {
    "@MARK@": SUPPRESS_ATTRIBUTE,
    "@ROOT@": ROOT_CLASS,
    "@UNIT@": _UNIT_PREFIX,
    "@EXPAND@": EXPAND_CLASS,
    "@INVALID@": INVALID_CLASS,
    "@SCOPE@": REFUSAL_SCOPE_CLASS,
}.items():
    _ESM = _ESM.replace(_name, _value)

if anywidget is not None:

    class KeyGuard(anywidget.AnyWidget):
        """Keeps the notebook's shortcuts out of the controls of the view it is placed in, and names their state."""

        _esm = _ESM


def count_unit(slider: Any, unit: str) -> None:
    """Say a slider's value to a screen reader as ``<unit> k of n`` (``event 3 of 12``), as the view writes it."""
    slider.add_class(f"{_UNIT_PREFIX}{unit}")


def key_guard() -> Any | None:
    """A hidden box holding the guard, to put among a view's children; None without the ``anywidget`` package."""
    if anywidget is None:
        return None
    box = w.Box([KeyGuard()], layout=w.Layout(display="none"))
    box.add_class(GUARD_CLASS)
    return box
