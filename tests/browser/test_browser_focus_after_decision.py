"""Where the keyboard focus goes after a draft is approved from the keyboard, in the Light and the Dark theme.

A person Tabs to Approve and presses Enter. The decided card's buttons go away, and the run's end re-renders the
view's whole output (so a saved notebook keeps how the run ended); either took the focus away to the page's body,
and a keyboard or screen-reader user had to Tab through the notebook again. Now, with two drafts waiting, the
next one's Approve takes the focus; once none waits, the decided card's outcome line (read by a screen reader, the ring
drawn round the card) holds it, also in the output re-rendered at the run's end.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .lab import ALL_RAN, CHROMIUM, DARK, LIGHT, button, notebook, open_notebook, run_all, set_theme, wait

pytestmark = [pytest.mark.browser, pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")]


def _cells(runs: Path) -> list[str]:
    return [
        f"""%load_ext noesis_nb
import asyncio, sys
import noesis_nb
RUNS = {str(runs)!r}

async def release(task, ctx):
    return await ctx.tool_async("git.tag", {{"argv": [sys.executable, "-c", "pass"]}}, effect="write", risk="high")

async def notes(task, ctx):  # two drafts waiting at once
    calls = [ctx.tool_async(f"notes.w{{i}}", {{"argv": [sys.executable, "-c", "pass"]}}, effect="write", risk="high")
             for i in range(2)]
    return await asyncio.gather(*calls)""",
        'one = noesis_nb.start("tag the release", using=release, approver="ask", runs_dir=RUNS)\none',
        'two = noesis_nb.start("write two notes", using=notes, approver="ask", runs_dir=RUNS)\ntwo',
    ]


# the focused element: where it is (which view and card, by their marks) and how its ring shows
_FOCUS = """() => {
  const a = document.activeElement, view = a && a.closest('.noesis-nb-episode-view'), card = a && a.closest('.nnb-card');
  const ringed = a && a.classList.contains('nnb-outcome') ? card : a;  // an outcome line's ring is its card's
  const s = ringed ? getComputedStyle(ringed) : null;
  return {tag: a ? a.tagName : null, text: a ? a.textContent.trim().slice(0, 80) : '',
          view: view ? view.dataset.probe || 'unmarked' : null, card: card ? card.dataset.probe || 'unmarked' : null,
          ring: s && s.outlineStyle !== 'none' ? parseFloat(s.outlineWidth) : 0};
}"""


def _focus(page: Any) -> dict[str, Any]:
    found: dict[str, Any] = page.evaluate(_FOCUS)
    return found


def _mark(view: Any, name: str) -> None:
    """Mark the view's element and each card's (a re-rendered output has new, unmarked elements)."""
    view.evaluate(
        "(v, name) => { v.dataset.probe = name;"
        " v.querySelectorAll('.nnb-card').forEach((c, i) => c.dataset.probe = 'card' + i); }",
        name,
    )


def _settled(page: Any, run_dir: Path, name: str) -> None:
    """Wait for the run to be sealed on disk and its output re-rendered (no element marked ``name`` is left)."""
    wait(lambda: (run_dir / "manifest.json").exists(), 60, "the run to seal")
    page.wait_for_function(
        "(name) => !document.querySelector(`.noesis-nb-episode-view[data-probe='${name}']`)", arg=name, timeout=60_000
    )
    fresh = page.locator(".noesis-nb-episode-view:not([data-probe])").filter(has_text=re.compile(r"approved by")).first
    fresh.locator(".nnb-badge", has_text=re.compile(r"^\s*ok\s*$")).first.wait_for(timeout=60_000)


def _lands_on_decision(page: Any, what: str) -> dict[str, Any]:
    """Wait (the focus is sent from the kernel) until the focus is on a decided card's heading in a view; return it."""

    def there() -> dict[str, Any] | None:
        focus = _focus(page)
        return focus if focus["view"] is not None and "approved by" in focus["text"] else None

    try:
        return dict(wait(there, 30, what))
    except AssertionError as exc:
        raise AssertionError(f"{exc}; the focus is on {_focus(page)}") from None


@pytest.fixture(params=[LIGHT, DARK])
def theme(page: Any, request: pytest.FixtureRequest) -> Iterator[str]:
    """The theme a test runs in; Light again afterwards (the theme is a setting of the session's JupyterLab)."""
    yield request.param
    if page.locator(".jp-Notebook").count():
        set_theme(page, LIGHT)


def _open(lab: dict[str, Any], page: Any, theme: str, case: str, cell: int) -> tuple[Any, Path]:
    """A notebook starting the episode of ``_cells(...)[cell]``, run in ``theme``; its view (a draft waiting) and run."""
    slug = f"{case}-{theme.split()[-1].lower()}"
    runs = lab["tmp"] / f"runs-{slug}"
    cells = _cells(runs)
    (lab["root"] / f"{slug}.ipynb").write_text(json.dumps(notebook([cells[0], cells[cell]])))
    open_notebook(page, lab["base"], lab["token"], f"{slug}.ipynb")
    set_theme(page, theme)
    run_all(page)
    page.wait_for_function(ALL_RAN, timeout=90_000)
    view = page.locator(".noesis-nb-episode-view").first
    button(view, "Approve").last.wait_for(timeout=60_000)
    return view, wait(lambda: next(iter(runs.glob("ep_*")), None), 30, "the run directory")


def test_one_draft_approved_from_the_keyboard_keeps_the_focus_in_the_view(lab: dict[str, Any], page: Any, theme: str) -> None:
    view, run_dir = _open(lab, page, theme, "focus-one", 1)
    _mark(view, "before")
    view.locator("input[placeholder='reason (optional)']").focus()  # Tab back from its reason field to Approve
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Shift+Tab")
    assert _focus(page)["text"] == "Approve"
    page.keyboard.press("Enter")
    _settled(page, run_dir, "before")
    focus = _lands_on_decision(page, "the focus on the decided card after the run's end")
    assert focus["tag"] != "BODY" and focus["view"] == "unmarked", focus  # in the re-rendered view
    assert "git.tag" in focus["text"], focus
    assert focus["ring"] >= 2, f"the decided card shows no ring in {theme}: {focus}"


def test_two_drafts_approved_from_the_keyboard_one_after_the_other(lab: dict[str, Any], page: Any, theme: str) -> None:
    view, run_dir = _open(lab, page, theme, "focus-two", 2)
    assert button(view, "Approve").count() == 2
    _mark(view, "before")
    first, second = button(view, "Approve").nth(0), button(view, "Approve").nth(1)
    first.focus()
    page.keyboard.press("Enter")
    view.get_by_text(re.compile(r"notes\.w0\s*✔\s*approved by")).first.wait_for(timeout=30_000)
    try:
        wait(lambda: _focus(page)["card"] == "card1" and _focus(page)["text"] == "Approve", 30, "the second draft's Approve")
    except AssertionError as exc:
        raise AssertionError(f"{exc}; the focus is on {_focus(page)}") from None
    assert second.evaluate("b => b === document.activeElement")
    assert _focus(page)["ring"] >= 2, f"the focused Approve shows no ring in {theme}: {_focus(page)}"
    page.keyboard.press("Enter")  # the keyboard decides the second draft from where the focus went
    _settled(page, run_dir, "before")
    focus = _lands_on_decision(page, "the focus on the last decided card after the run's end")
    assert focus["view"] == "unmarked" and "notes.w1" in focus["text"], focus
    assert focus["ring"] >= 2, f"the decided card shows no ring in {theme}: {focus}"


# the focused element in the inbox: its row (by its draft's tool), its text, how its ring shows
_INBOX_FOCUS = r"""() => {
  const a = document.activeElement, inbox = a && a.closest('.noesis-nb-inbox'), row = a && a.closest('.nnb-ib-row');
  const ringed = a && a.classList.contains('nnb-outcome') ? row : a;
  const s = ringed ? getComputedStyle(ringed) : null;
  return {tag: a ? a.tagName : null, text: a ? a.textContent.trim().slice(0, 120) : '', inbox: !!inbox,
          row: row ? (row.textContent.match(/notes\.w\d/) || [null])[0] : null,
          outcome: !!(a && a.classList.contains('nnb-outcome')),
          ring: s && s.outlineStyle !== 'none' ? parseFloat(s.outlineWidth) : 0};
}"""


def _inbox_focus_on(page: Any, what: str, ok: Any) -> dict[str, Any]:
    try:
        return dict(wait(lambda: (lambda f: f if ok(f) else None)(page.evaluate(_INBOX_FOCUS)), 30, what))
    except AssertionError as exc:
        raise AssertionError(f"{exc}; the focus is on {page.evaluate(_INBOX_FOCUS)}") from None


def test_two_drafts_approved_from_the_keyboard_in_the_inbox(lab: dict[str, Any], page: Any) -> None:
    """The inbox's rows, as the view's cards: the first row's Enter takes the focus to the second's Approve, whose
    Enter takes it to that row's outcome line (a decided row leaves the waiting list, its buttons with it)."""
    runs = lab["tmp"] / "runs-focus-inbox"
    cells = _cells(runs)
    paused = 'two = noesis_nb.start("write two notes", using=notes, approver="ask", runs_dir=RUNS)\nawait two'
    (lab["root"] / "focus-inbox.ipynb").write_text(json.dumps(notebook([cells[0], paused, "ib = noesis_nb.inbox(RUNS)"])))
    open_notebook(page, lab["base"], lab["token"], "focus-inbox.ipynb")
    set_theme(page, LIGHT)
    run_all(page)
    page.wait_for_function(ALL_RAN, timeout=90_000)
    inbox = page.locator(".noesis-nb-inbox").first
    inbox.get_by_text("2 drafts waiting in 1 run").wait_for(timeout=60_000)
    rows = inbox.locator(".nnb-ib-row")
    first, second = (re.search(r"notes\.w\d", rows.nth(i).inner_text()).group(0) for i in range(2))  # type: ignore[union-attr]
    button(rows.nth(0), "Approve").focus()
    page.keyboard.press("Enter")
    focus = _inbox_focus_on(page, "the second row's Approve", lambda f: f["row"] == second and f["text"] == "Approve")
    assert focus["ring"] >= 2, f"the focused Approve shows no ring: {focus}"
    page.keyboard.press("Enter")  # the keyboard decides the second draft from where the focus went
    focus = _inbox_focus_on(page, "the decided row's outcome line", lambda f: f["outcome"] and "approved by" in f["text"])
    assert focus["inbox"] and focus["row"] == second and second in focus["text"], focus
    assert first != second
    assert focus["ring"] >= 2, f"the decided row shows no ring: {focus}"
    inbox.get_by_text("nothing waits for a decision").wait_for(timeout=30_000)
    assert page.evaluate(_INBOX_FOCUS)["outcome"], page.evaluate(_INBOX_FOCUS)  # still there once the inbox settled


def test_stop_pressed_from_the_keyboard_keeps_the_focus_in_the_view(lab: dict[str, Any], page: Any) -> None:
    """Stop, pressed with Enter on a running episode: the run ends cancelled and its output is re-rendered; the focus
    is on the view's line saying so (it fell to the page's body before)."""
    runs = lab["tmp"] / "runs-focus-stop"
    setup = f"""%load_ext noesis_nb
import asyncio
import noesis_nb
RUNS = {str(runs)!r}

async def waits(task, ctx):  # a long step: only Stop ends it
    await asyncio.sleep(3600)"""
    (lab["root"] / "focus-stop.ipynb").write_text(
        json.dumps(notebook([setup, 'run = noesis_nb.start("wait", using=waits, runs_dir=RUNS)\nrun']))
    )
    open_notebook(page, lab["base"], lab["token"], "focus-stop.ipynb")
    set_theme(page, LIGHT)
    run_all(page)
    page.wait_for_function(ALL_RAN, timeout=90_000)
    view = page.locator(".noesis-nb-episode-view").first
    stop = button(view, "Stop")
    stop.wait_for(timeout=60_000)
    run_dir = wait(lambda: next(iter(runs.glob("ep_*")), None), 30, "the run directory")
    _mark(view, "before")
    stop.focus()
    assert _focus(page)["text"] == "Stop"
    page.keyboard.press("Enter")
    wait(lambda: (run_dir / "manifest.json").exists(), 60, "the run to seal")
    page.wait_for_function("() => !document.querySelector(`.noesis-nb-episode-view[data-probe='before']`)", timeout=60_000)
    page.locator(".noesis-nb-episode-view:not([data-probe]) .nnb-badge", has_text="cancelled").first.wait_for(timeout=60_000)

    def there() -> dict[str, Any] | None:
        found = _focus(page)
        return found if found["view"] == "unmarked" and "cancelled" in found["text"] else None

    try:
        focus = dict(wait(there, 30, "the focus on the stopped view's line"))
    except AssertionError as exc:
        raise AssertionError(f"{exc}; the focus is on {_focus(page)}") from None
    assert focus["tag"] != "BODY" and focus["text"] == "the run ended cancelled", focus
