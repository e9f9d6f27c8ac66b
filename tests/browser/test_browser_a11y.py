"""The views for a person on a keyboard or with a screen reader, in the Light, Dark and Dark High Contrast themes:
every text of an episode view, a replay comparison, a batch grid and its inbox reads at WCAG AA; every control can be
reached with Tab and shows where the focus is (a ring of 2px or more at 3:1 against what is around it); every control
has a name made of words (Chromium's own accessibility tree, not a ▸); a draft is approved with Enter, two drafts from
the inbox with Space and Enter, and each decision is a status a screen reader can find; and in a 640px window (200%
zoom) and a 320px one nothing runs past its view, is cut or lies over another control.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from .lab import ALL_RAN, CHROMIUM, DARK, HIGH_CONTRAST, LIGHT, contrast, notebook, open_notebook, run_all, set_theme

pytestmark = [pytest.mark.browser, pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")]

CELLS = [
    """%load_ext noesis_nb
import sys
import noesis_nb
noesis_nb.ns.set(runs_dir="a11y-runs")""",
    """async def deployer(task, ctx):
    return await ctx.tool_async("deploy.release", {"argv": [sys.executable, "-c", "pass"]}, effect="write", risk="high")

handle = noesis_nb.start("deploy release 1.2", using=deployer, approver="ask")
handle""",
    """def writer(task):
    return "written"

ep = noesis_nb.solve("write the notes", using=writer)
noesis_nb.replay(ep, compare=ep)""",
    """async def noter(task, ctx):
    await ctx.tool_async("notes.write", {"argv": [sys.executable, "-c", "pass"]}, effect="write", risk="high")
    return "noted"

b = noesis_nb.batch([f"ticket {i}" for i in range(2)], using=noter, approver="ask", root="a11y-batch")
b""",
]

VIEWS = ".noesis-nb-view"

# where the keyboard focus is and how it shows: the focused control's outline against the background around it
_FOCUS = """() => {
  const a = document.activeElement; if (!a || !a.closest('.noesis-nb-view')) return null;
  const canvas = document.createElement('canvas'); canvas.width = canvas.height = 1;
  const ctx = canvas.getContext('2d', {willReadFrequently: true});
  const rgba = (css) => { ctx.clearRect(0, 0, 1, 1); ctx.fillStyle = 'rgba(0,0,0,0)'; ctx.fillStyle = css;
    ctx.fillRect(0, 0, 1, 1); const d = ctx.getImageData(0, 0, 1, 1).data; return [d[0], d[1], d[2], d[3] / 255]; };
  const over = (t, u) => [0, 1, 2].map(i => t[i] * t[3] + u[i] * (1 - t[3])).concat([1]);
  const lum = (c) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]); };
  const ratio = (a, b) => { const x = lum(a), y = lum(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); };
  const s = getComputedStyle(a);
  // the ring sits outside the control when its offset is not negative, else over the control's own background; a
  // slider's handle: around it is mostly the widget's background (its 4px track crosses it)
  const from = a.closest('.noUi-target') ? a.closest('.widget-slider, .jupyter-widget-slider').parentElement
             : parseFloat(s.outlineOffset) >= 0 ? a.parentElement : a;
  const layers = [];
  for (let e = from; e; e = e.parentElement) { const c = rgba(getComputedStyle(e).backgroundColor); layers.push(c);
    if (c[3] === 1) break; }
  let bg = over(rgba(getComputedStyle(document.body).backgroundColor), [255, 255, 255, 1]);
  for (const layer of layers.reverse()) bg = over(layer, bg);
  const width = s.outlineStyle === 'none' ? 0 : parseFloat(s.outlineWidth);
  return {what: (a.title || a.textContent.trim() || a.placeholder || a.className).slice(0, 40), tag: a.tagName,
          width, ratio: width ? Math.round(ratio(over(rgba(s.outlineColor), bg), bg) * 100) / 100 : 0};
}"""

# every visible element of a view whose right edge runs past the view's, and buttons whose label is cut to "…"
_PAST = """() => [...document.querySelectorAll('.noesis-nb-view *')].filter(e => e.getClientRects().length
    && !e.closest('svg') && e.getBoundingClientRect().width > 0
    && e.getBoundingClientRect().right > e.closest('.noesis-nb-view').getBoundingClientRect().right + 1)
  .map(e => ({tag: e.tagName, cls: String(e.className), text: e.textContent.trim().slice(0, 40)}))"""
_CUT = """() => [...document.querySelectorAll('.noesis-nb-view button')]
  .filter(b => b.getClientRects().length && b.scrollWidth > b.clientWidth + 1).map(b => b.textContent.trim())"""
# two controls of one view drawn over each other
_OVERLAP = """() => { const out = [];
  for (const v of document.querySelectorAll('.noesis-nb-view')) {
    const cs = [...v.querySelectorAll('button, input')].filter(e => e.getClientRects().length)
      .map(e => [e, e.getBoundingClientRect()]);
    for (let i = 0; i < cs.length; i++) for (let j = i + 1; j < cs.length; j++) {
      const [a, r] = cs[i], [b, q] = cs[j];
      if (a.contains(b) || b.contains(a)) continue;
      if (r.left < q.right - 1 && q.left < r.right - 1 && r.top < q.bottom - 1 && q.top < r.bottom - 1)
        out.push([a.title || a.textContent.trim(), b.title || b.textContent.trim()]);
    }
  } return out; }"""


def _names(page: Any) -> list[dict[str, str]]:
    """Role and name of every visible control of the views, from Chromium's accessibility tree."""
    cdp = page.context.new_cdp_session(page)
    try:
        root = cdp.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
        ids = cdp.send("DOM.querySelectorAll", {"nodeId": root, "selector": f"{VIEWS} button, {VIEWS} input"})["nodeIds"]
        found = []
        for node in ids:
            ax = cdp.send("Accessibility.getPartialAXTree", {"nodeId": node, "fetchRelatives": False})["nodes"][0]
            if ax.get("ignored"):
                continue
            found.append({"role": ax["role"]["value"], "name": (ax.get("name") or {}).get("value", "")})
        return found
    finally:
        cdp.detach()


def _statuses(page: Any) -> list[str]:
    """The text of every status (live region) in the views, from Chromium's accessibility tree."""
    cdp = page.context.new_cdp_session(page)
    try:
        cdp.send("Accessibility.enable")
        nodes = cdp.send("Accessibility.getFullAXTree")["nodes"]
        by_id = {n["nodeId"]: n for n in nodes}

        def text(n: dict[str, Any]) -> str:
            own = (n.get("name") or {}).get("value", "") if n["role"]["value"] in ("StaticText", "text") else ""
            return own + "".join(text(by_id[c]) for c in n.get("childIds", []) if c in by_id)

        return [text(n) for n in nodes if n.get("role", {}).get("value") == "status"]
    finally:
        cdp.detach()


def _tab_through(page: Any) -> list[dict[str, Any]]:
    """Tab from the page's top through every control of the views; how each shows its focus."""
    page.locator(".jp-Notebook").first.click(position={"x": 5, "y": 5})  # command mode: Tab goes to the page's controls
    page.locator(VIEWS).first.locator("button").first.focus()
    page.keyboard.press("Shift+Tab")
    seen: list[dict[str, Any]] = []
    for _ in range(80):
        page.keyboard.press("Tab")
        focus = page.evaluate(_FOCUS)
        if focus is None:
            if seen:
                break
            continue
        seen.append(focus)
    return seen


def test_views_read_in_every_theme_and_work_from_the_keyboard(lab: dict[str, Any], page: Any) -> None:
    (lab["root"] / "a11y.ipynb").write_text(json.dumps(notebook(CELLS)))
    open_notebook(page, lab["base"], lab["token"], "a11y.ipynb")
    set_theme(page, LIGHT)
    run_all(page)
    page.wait_for_function(ALL_RAN, timeout=90_000)
    episode = page.locator(".noesis-nb-episode-view").first
    episode.get_by_role("button", name="Approve").wait_for(timeout=60_000)
    page.locator(".noesis-nb-batch .nnb-ib-row").nth(1).wait_for(timeout=60_000)
    page.wait_for_timeout(500)

    problems = []  # all said at once: each is its own defect
    for theme in (LIGHT, DARK, HIGH_CONTRAST):
        set_theme(page, theme)
        read = contrast(page, VIEWS)
        if read["checked"] < 100 or read["failures"]:
            problems.append(f"{theme}: {read['checked']} texts, below 4.5:1: {read['failures'][:6]}")
        rings = _tab_through(page)
        tags = {r["tag"] for r in rings}
        if len(rings) < 20 or not {"BUTTON", "INPUT"} <= tags:
            problems.append(f"{theme}: Tab reached only {len(rings)} controls of the views: {rings}")
        faint = [r for r in rings if r["width"] < 2 or r["ratio"] < 3]
        if faint:
            problems.append(f"{theme}: focus rings under 2px or 3:1: {faint[:8]}")
    set_theme(page, LIGHT)

    nameless = [n for n in _names(page) if not re.search(r"[A-Za-z0-9]", n["name"])]
    if nameless:
        problems.append(f"controls without a name in words: {nameless}")

    # a step's ▸ from the keyboard: Space opens it, and its name says what a second press does
    toggle = episode.locator("button.nnb-toggle").last
    toggle.focus()
    page.keyboard.press("Space")
    episode.get_by_text("tool.approval.pending").first.wait_for(timeout=15_000)
    name = toggle.get_attribute("title") or ""
    if not name.startswith("hide"):
        problems.append(f"an opened step's toggle is called {name!r}")

    # approve from the keyboard: Tab to Approve, Enter; the decision is a status a screen reader finds
    episode.locator("input[placeholder='reason (optional)']").focus()
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Shift+Tab")
    assert page.evaluate("document.activeElement.textContent.trim()") == "Approve"
    page.keyboard.press("Enter")
    episode.get_by_text(re.compile(r"approved by ")).first.wait_for(timeout=30_000)
    statuses = _statuses(page)
    if not any("approved by" in s for s in statuses):
        problems.append(f"the decision is no status a screen reader finds: {statuses}")

    # the batch's inbox from the keyboard: Space ticks both rows, Enter asks and confirms; what it did is a status
    inbox = page.locator(".noesis-nb-batch .noesis-nb-inbox")
    for box in inbox.locator(".nnb-ib-row input[type=checkbox]").all():
        box.focus()
        page.keyboard.press("Space")
    inbox.get_by_role("button", name="Approve selected…").focus()
    page.keyboard.press("Enter")
    inbox.get_by_role("button", name="Confirm: approve 2").focus()
    page.keyboard.press("Enter")
    inbox.get_by_text("approved 2 drafts").wait_for(timeout=30_000)
    statuses = _statuses(page)
    focused = page.evaluate("document.activeElement.textContent.trim()")  # read out as it takes the focus
    if not any("approved 2 drafts" in s for s in statuses) and focused != "approved 2 drafts":
        problems.append(f"what the inbox did is neither a status nor focused: {statuses}, the focus on {focused!r}")

    # 200% zoom of a 640px window, and a 320px one: nothing past its view, no label cut, no controls on each other
    page.evaluate("""() => { const shell = window.jupyterapp.shell;
        if (!shell.leftCollapsed) window.jupyterapp.commands.execute('application:toggle-left-area'); }""")
    for width in (640, 320):
        page.set_viewport_size({"width": width, "height": 1400})
        page.wait_for_timeout(500)
        past, cut, overlap = page.evaluate(_PAST), page.evaluate(_CUT), page.evaluate(_OVERLAP)
        if past or cut or overlap:
            problems.append(f"{width}px: past the view {past[:6]}; cut {cut}; on each other {overlap[:6]}")
    assert problems == [], "\n".join(problems)
