"""Keys typed in a view's text boxes stay in the box, in JupyterLab and in Notebook 7: Shift+Enter, Ctrl+Enter and
Alt+Enter run no cell (Notebook 7 ran the cell that made the view: a second episode), and Escape then letters neither
leaves the box nor edits the notebook. Shift+Enter on a cell still runs it. Where the guard's front end cannot load,
the view still shows, with no error box."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .lab import CHROMIUM, cell, chromium_page, jupyter_server, notebook, open_notebook, run_all, wait

pytestmark = [pytest.mark.browser, pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")]

CELLS = [
    "%load_ext noesis_nb",
    '''import noesis_nb

async def listener(task, ctx):
    """Runs, hearing what it is told until told "stop" (its view shows the steer box meanwhile)."""
    while (heard := await ctx.next_steer_async(timeout=600)) is not None and heard.text != "stop":
        ctx.emit("reason", {"text": f"heard {heard.text}"})
    return "stopped"

async def asker(task, ctx):
    """Waits for a person to approve a write (its view shows a card with a reason box; the inbox lists it)."""
    result = await ctx.tool_async("git.tag@1", {"argv": ["touch", "TAGGED"]}, effect="write", risk="high")
    return f"tagged (exit {result['returncode']})"''',
    'listening = %noesis run listener "Wait to be told" --runs-dir runs-keys',
    'asking = %noesis run asker "Tag the release" --runs-dir runs-keys',
    'await asking  # returns once the draft waits for a person\n_ = noesis_nb.inbox("runs-keys")',
    "ran_again = True",
]
PROMPTS = "() => [...document.querySelectorAll('.jp-CodeCell .jp-InputPrompt')].map(p => p.textContent.trim())"
CELL_COUNT = "() => document.querySelectorAll('.jp-Notebook .jp-Cell').length"
# what a person may press in a box: each ran or changed cells in Notebook 7 before the guard
KEYS = ["Shift+Enter", "Control+Enter", "Alt+Enter", "Escape", "a", "b", "d", "d", "m", "Shift+Enter"]


@pytest.fixture(scope="module")
def notebook7(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """``{"base", "token", "root"}`` of a Notebook 7 server (``jupyter notebook``)."""
    pytest.importorskip("playwright.sync_api")
    tmp = tmp_path_factory.mktemp("nb7keys")
    root = tmp / "root"
    root.mkdir()
    with jupyter_server("notebook", root, tmp) as (base, token):
        yield {"base": base, "token": token, "root": root}


def _episodes(root: Path) -> list[str]:
    return sorted(p.name for p in (root / "runs-keys").glob("ep_*"))


def _steers(root: Path, episodes: list[str]) -> list[str]:
    """The text of every steer the episodes under ``root`` recorded."""
    events = [json.loads(line) for e in episodes for line in (root / "runs-keys" / e / "events.jsonl").read_text().splitlines()]
    return [e["payload"]["text"] for e in events if e["payload"].get("event_name") == "steer.sent"]


@pytest.mark.parametrize("app", ["lab", "notebook"])
def test_keys_typed_in_a_views_boxes_run_no_cell(app: str, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    server = request.getfixturevalue("lab" if app == "lab" else "notebook7")
    root = server["root"]
    name = f"box-keys-{app}.ipynb"
    (root / name).write_text(json.dumps(notebook(CELLS)))
    with chromium_page(tmp_path, height=2400) as page:
        open_notebook(page, server["base"], server["token"], name, app)
        run_all(page)
        steer = page.locator(".noesis-nb-episode-view .nnb-steer input").first
        card_reason = page.locator(".noesis-nb-episode-view input[placeholder='reason (optional)']").first
        inbox_reason = page.locator(".noesis-nb-inbox").first.get_by_role("textbox", name="reason for the selection", exact=True)
        for box in (steer, card_reason, inbox_reason):
            box.wait_for(timeout=90_000)
        page.wait_for_function(f"() => ({PROMPTS})().every(p => /\\[\\d+\\]/.test(p))", timeout=60_000)
        episodes, prompts, cells = _episodes(root), page.evaluate(PROMPTS), page.evaluate(CELL_COUNT)
        assert len(episodes) == 2, episodes

        def unchanged(what: str) -> None:
            page.wait_for_timeout(2000)  # a cell run, had one started, shows [*] or a new number by then
            assert page.evaluate(PROMPTS) == prompts, what  # no cell ran
            assert page.evaluate(CELL_COUNT) == cells, what  # none was added, cut or turned to markdown
            assert _episodes(root) == episodes, what  # so no second episode started

        steer.click()  # Shift+Enter in the steer box sends, as Enter does (the box's own key, as in JupyterLab)
        page.keyboard.type("use staging")
        page.keyboard.press("Shift+Enter")
        unchanged("Shift+Enter in the steer box")
        assert steer.input_value() == ""
        wait(lambda: _steers(root, episodes) == ["use staging"], 15, "the steer on disk")
        for what, box in (("steer box", steer), ("card's reason box", card_reason), ("inbox's reason box", inbox_reason)):
            box.click()
            page.keyboard.type("k")
            for key in KEYS if box is not steer else KEYS[1:-1]:
                page.keyboard.press(key)
            unchanged(what)
            assert box.input_value() == "kabddm", what  # every letter reached the box: Escape did not leave it
        assert _steers(root, episodes) == ["use staging"]  # Ctrl+Enter and Alt+Enter send nothing
        assert page.evaluate("() => document.activeElement.tagName") == "INPUT"

        last = cell(page, len(CELLS) - 1)  # Shift+Enter on a cell still runs it
        last.locator(".cm-content").click()
        page.keyboard.press("Shift+Enter")
        before = int(prompts[-1].strip("[]:"))
        wait(lambda: re.fullmatch(rf"\[(?!{before}\])\d+\]:", page.evaluate(PROMPTS)[len(CELLS) - 1]), 30, "the cell to run")
        assert _episodes(root) == episodes


@pytest.fixture(scope="module")
def lab_without_anywidget(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A JupyterLab whose page config disables anywidget's extension: the guard's front end cannot load."""
    pytest.importorskip("playwright.sync_api")
    tmp = tmp_path_factory.mktemp("labnoaw")
    root = tmp / "root"
    root.mkdir()
    labconfig = tmp / "config" / "labconfig"
    labconfig.mkdir(parents=True)
    (labconfig / "page_config.json").write_text(json.dumps({"disabledExtensions": {"anywidget": True}}))
    with jupyter_server("lab", root, tmp) as (base, token):
        yield {"base": base, "token": token, "root": root}


def test_the_view_works_without_the_guards_front_end(lab_without_anywidget: dict[str, Any], tmp_path: Path) -> None:
    server, root = lab_without_anywidget, lab_without_anywidget["root"]
    (root / "no-guard.ipynb").write_text(json.dumps(notebook(CELLS[:3])))
    with chromium_page(tmp_path, height=1400) as page:
        open_notebook(page, server["base"], server["token"], "no-guard.ipynb")
        run_all(page)
        view = page.locator(".noesis-nb-episode-view").first
        steer = view.locator(".nnb-steer input")
        steer.wait_for(timeout=90_000)
        guard = view.locator(".nnb-keyguard")
        error_box = guard.locator(".jupyter-widgets-error-widget")  # what ipywidgets draws for a module it cannot load
        error_box.wait_for(state="attached", timeout=30_000)
        assert not error_box.is_visible() and guard.bounding_box() is None  # it takes no space and shows nothing
        assert "error" not in view.inner_text().lower()
        assert steer.get_attribute("data-lm-suppress-shortcuts") is None  # no guard here: the box is as before
        steer.click()
        page.keyboard.type("use staging")
        page.keyboard.press("Enter")  # the view works: Enter still sends
        wait(lambda: _steers(root, _episodes(root)) == ["use staging"], 30, "the steer on disk")
