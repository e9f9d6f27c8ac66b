"""What a screen reader hears of a view's controls follows their state, read from the live page in JupyterLab and
Notebook 7, in the Light and the Dark theme: a replay's slider handle is named by its label and says where it is
(``event 3 of 12``, as the clock line), the speed buttons say which one is pressed, a ▸ step toggle says whether it is
expanded, and a refused reason box is invalid and described by the refusal until a decision is accepted. A focused
Approve keeps a button's keys (Enter, Space) while Shift+Enter and Escape-then-letters on it run no cell, change no
cell and decide nothing; Shift+Enter on a cell still runs it."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .lab import (
    ALL_RAN,
    CHROMIUM,
    DARK,
    LIGHT,
    button,
    cell,
    chromium_page,
    jupyter_server,
    notebook,
    open_notebook,
    run_all,
    set_theme,
    wait,
)

pytestmark = [pytest.mark.browser, pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")]

CELLS = [
    """%load_ext noesis_nb
import sys
import noesis_nb
noesis_nb.ns.set(runs_dir="aria-runs")

async def deployer(task, ctx):  # two drafts, one after the other: one decided in each theme
    for tool in ("deploy.first", "deploy.second"):
        await ctx.tool_async(tool, {"argv": [sys.executable, "-c", "pass"]}, effect="write", risk="high")
    return "deployed"

def writer(task):
    return "written\"""",
    'handle = noesis_nb.start("deploy twice", using=deployer, approver="ask")\nhandle',
    'ep = noesis_nb.solve("write the notes", using=writer)\nnoesis_nb.replay(ep, compare=ep)',
    "ran_again = True",
]
PROMPTS = "() => [...document.querySelectorAll('.jp-CodeCell .jp-InputPrompt')].map(p => p.textContent.trim())"
CELL_COUNT = "() => document.querySelectorAll('.jp-Notebook .jp-Cell').length"
FOCUSED = "() => document.activeElement ? document.activeElement.textContent.trim() : null"
# what a notebook user presses from habit: each ran a cell, added, cut or retyped one, or clicked the button
HABITS = ["Shift+Enter", "Control+Enter", "Alt+Enter", "Escape", "a", "b", "d", "d", "m", "Shift+Enter"]


@pytest.fixture(scope="module")
def notebook7(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """``{"base", "token", "root"}`` of a Notebook 7 server (``jupyter notebook``)."""
    pytest.importorskip("playwright.sync_api")
    tmp = tmp_path_factory.mktemp("nb7aria")
    root = tmp / "root"
    root.mkdir()
    with jupyter_server("notebook", root, tmp) as (base, token):
        yield {"base": base, "token": token, "root": root}


def _aria(locator: Any, name: str) -> str | None:
    value: str | None = locator.get_attribute(name)
    return value


def _becomes(locator: Any, name: str, value: str | None, what: str) -> None:
    wait(lambda: _aria(locator, name) == value, 15, f"{what}: {name}={value!r} (it is {_aria(locator, name)!r})")


def _check_slider(page: Any, compare: Any) -> None:
    """Each slider handle is named by its visible label and says its place as the view writes it."""
    replay = compare.locator(".noesis-nb-replay").first
    handle = replay.locator(".widget-slider [role=slider]").first
    label = replay.locator(".widget-slider .widget-label").first.text_content().strip()
    assert label and _aria(handle, "aria-label") == label
    handle.focus()
    page.keyboard.press("ArrowLeft")  # the handle has the key (no cell is selected instead)
    clock = replay.locator(".nnb-muted", has_text=re.compile(r"^event \d")).first

    def same() -> bool:
        said = clock.text_content().strip().split(" · ")[0]
        return bool(re.fullmatch(r"event \d+ of \d+", said)) and _aria(handle, "aria-valuetext") == said

    wait(same, 15, f"the handle's value text as the clock ({_aria(handle, 'aria-valuetext')!r} vs {clock.text_content()!r})")
    k, n = (int(x) for x in re.findall(r"\d+", clock.text_content().split(" · ")[0]))
    assert k == n - 1, clock.text_content()  # ArrowLeft moved it one event back
    step = compare.locator(".nnb-unit-step [role=slider]").first
    assert _aria(step, "aria-label") == "step"
    now, top = (round(float(_aria(step, a) or "nan")) for a in ("aria-valuenow", "aria-valuemax"))
    assert _aria(step, "aria-valuetext") == f"step {now} of {top}"


def _check_speed(compare: Any, choose: str) -> None:
    """Pressing a speed makes it the one pressed, and only it."""
    speeds = compare.locator(".noesis-nb-replay").first.locator(".widget-toggle-buttons", has_text="speed").locator("button")
    speeds.filter(has_text=re.compile(rf"^\s*{re.escape(choose)}\s*$")).click()
    for i in range(speeds.count()):
        one = speeds.nth(i)
        _becomes(one, "aria-pressed", "true" if one.text_content().strip() == choose else "false", f"speed {choose}")


def _check_toggle(page: Any, view: Any) -> None:
    """A ▸ toggle says it is expanded, pressed with Space, and collapsed again, pressed with Enter."""
    toggle = view.locator(".nnb-steps .nnb-toggle").first
    _becomes(toggle, "aria-expanded", "false", "a collapsed step")
    assert _aria(toggle, "aria-pressed") is None  # a disclosure, not an on/off choice
    toggle.focus()
    page.keyboard.press("Space")
    _becomes(toggle, "aria-expanded", "true", "the step expanded with Space")
    page.keyboard.press("Enter")
    _becomes(toggle, "aria-expanded", "false", "the step collapsed with Enter")


def _deployer_run(runs: Path) -> Path | None:
    return next((p for p in runs.glob("ep_*") if "deploy.first" in (p / "events.jsonl").read_text()), None)


def _decisions(run_dir: Path) -> list[str]:
    return sorted(p.name for p in (run_dir / "tool_invocations" / "approvals").glob("*.json"))


def _refuse_then_decide(page: Any, view: Any, run_dir: Path, tool: str, key: str) -> None:
    """Refuse ``tool``'s card's reason, press the habits on its focused Approve (nothing happens), then ``key``."""
    card = view.locator(".nnb-card", has_text=tool).last
    approve = button(card, "Approve")
    approve.wait_for(timeout=60_000)
    box = card.locator("input[type=text]").first
    assert _aria(box, "aria-invalid") is None
    box.fill("fine \u202eevil")
    approve.click()
    _becomes(box, "aria-invalid", "true", "the refused reason")
    alert = card.locator("[role=alert]").first
    alert.wait_for(timeout=15_000)
    assert alert.text_content().startswith("could not approve")
    _becomes(box, "aria-describedby", alert.get_attribute("id"), "the box described by its refusal")
    assert alert.get_attribute("id")

    box.fill("")
    prompts, cells, episodes = page.evaluate(PROMPTS), page.evaluate(CELL_COUNT), sorted(run_dir.parent.iterdir())
    events, decisions = (run_dir / "events.jsonl").read_bytes(), _decisions(run_dir)
    approve.focus()
    for habit in HABITS:
        page.keyboard.press(habit)
    page.wait_for_timeout(2000)  # a cell run, had one started, shows [*] or a new number by then
    assert page.evaluate(PROMPTS) == prompts  # no cell ran
    assert page.evaluate(CELL_COUNT) == cells  # none was added, cut or turned to markdown
    assert sorted(run_dir.parent.iterdir()) == episodes  # no second episode
    assert _decisions(run_dir) == decisions and (run_dir / "events.jsonl").read_bytes() == events  # nothing decided
    assert page.evaluate(FOCUSED) == "Approve"  # the focus stayed on the button
    assert _aria(box, "aria-invalid") == "true"  # still refused: nothing was accepted since

    page.keyboard.press(key)  # a button's own key clicks it
    wait(lambda: len(_decisions(run_dir)) == len(decisions) + 1, 30, f"{key} on Approve to decide")
    decision = json.loads((run_dir / "tool_invocations" / "approvals" / _decisions(run_dir)[-1]).read_text())
    assert decision["status"] == "approved"


@pytest.mark.parametrize("app", ["lab", "notebook"])
def test_controls_say_their_state_and_keep_their_keys(app: str, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    server = request.getfixturevalue("lab" if app == "lab" else "notebook7")
    root = server["root"]
    name = f"aria-{app}.ipynb"
    (root / name).write_text(json.dumps(notebook(CELLS)))
    with chromium_page(tmp_path, height=2400) as page:
        open_notebook(page, server["base"], server["token"], name, app)
        set_theme(page, LIGHT)
        run_all(page)
        page.wait_for_function(ALL_RAN, timeout=120_000)
        view = page.locator(".noesis-nb-episode-view").first
        compare = page.locator(".noesis-nb-compare").first
        compare.locator(".widget-slider [role=slider]").first.wait_for(timeout=60_000)
        run_dir = wait(lambda: _deployer_run(root / "aria-runs"), 30, "the deployer's run directory")

        play = compare.locator(".noesis-nb-replay").first.locator("button.widget-toggle-button", has_text="Play")
        assert _aria(play, "aria-pressed") == "false"
        _check_speed(compare, "max")
        _check_toggle(page, compare.locator(".noesis-nb-replay").first)
        _check_slider(page, compare)
        _refuse_then_decide(page, view, run_dir, "deploy.first", "Enter")
        box = view.locator(".nnb-card", has_text="deploy.first").last.locator("input[type=text]").first
        assert box.count() == 1  # the decided card keeps its (hidden) box: no longer invalid, the decision accepted
        _becomes(box, "aria-invalid", None, "the accepted reason")
        assert _aria(box, "aria-describedby") is None

        set_theme(page, DARK)
        _check_speed(compare, "1×")
        _check_toggle(page, compare.locator(".noesis-nb-replay").last)
        _refuse_then_decide(page, view, run_dir, "deploy.second", "Space")

        prompts = page.evaluate(PROMPTS)  # outside the view the notebook's keys work: Shift+Enter on a cell runs it
        last = cell(page, len(CELLS) - 1)
        last.locator(".cm-content").click()
        page.keyboard.press("Shift+Enter")
        ran = len(CELLS) - 1  # (run-and-advance then adds an empty cell under it)
        wait(
            lambda: re.fullmatch(rf"\[(?!{prompts[ran].strip('[]:')}\])\d+\]:", page.evaluate(PROMPTS)[ran]),
            30,
            "the cell to run",
        )
        set_theme(page, LIGHT)  # the theme is a setting of the server, shared with later tests
