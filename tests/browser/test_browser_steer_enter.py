"""Enter in a running episode's steer box sends the steer, in JupyterLab and in Notebook 7: once, never on a blur,
never for an empty box, and without running the cell that made the view."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .lab import CHROMIUM, chromium_page, jupyter_server, notebook, open_notebook, run_all, wait

pytestmark = [pytest.mark.browser, pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")]

CELLS = [
    "%load_ext noesis_nb",
    '''async def listener(task, ctx):
    """Waits for a person to say something, then for a second message a little while."""
    ctx.emit("reason", {"text": "waiting to hear which database to use"})
    heard = await ctx.next_steer_async(timeout=120)
    again = await ctx.next_steer_async(timeout=3)
    ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=1200, output_tokens=80)
    return f"migrating {heard.text}; again: {again.text if again else None}"''',
    'h = %noesis run listener "Migrate the orders table" --runs-dir runs-enter',
]
PROMPTS = "() => [...document.querySelectorAll('.jp-CodeCell .jp-InputPrompt')].map(p => p.textContent.trim())"


@pytest.fixture(scope="module")
def notebook7(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """``{"base", "token", "root"}`` of a Notebook 7 server (``jupyter notebook``)."""
    pytest.importorskip("playwright.sync_api")
    tmp = tmp_path_factory.mktemp("nb7")
    root = tmp / "root"
    root.mkdir()
    with jupyter_server("notebook", root, tmp) as (base, token):
        yield {"base": base, "token": token, "root": root}


def _steers(run_dir: Path) -> list[dict[str, Any]]:
    events = (run_dir / "events.jsonl").read_text().splitlines()
    return [e for e in map(json.loads, events) if e["payload"].get("event_name") == "steer.sent"]


@pytest.mark.parametrize("app", ["lab", "notebook"])
def test_enter_in_the_steer_box_sends_once_and_runs_no_cell(app: str, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    server = request.getfixturevalue("lab" if app == "lab" else "notebook7")
    root = server["root"]
    (root / f"enter-{app}.ipynb").write_text(json.dumps(notebook(CELLS)))
    with chromium_page(tmp_path, height=1400) as page:
        open_notebook(page, server["base"], server["token"], f"enter-{app}.ipynb", app)
        run_all(page)
        view = page.locator(".noesis-nb-episode-view").first
        box = view.locator(".nnb-steer input")
        box.wait_for(timeout=60_000)
        run_dir = wait(lambda: next(iter((root / "runs-enter").glob("ep_*")), None), 30, "the run directory")
        prompts = page.evaluate(PROMPTS)
        assert prompts[-1] not in ("[ ]:", "[*]:"), prompts  # the start cell ran and is done

        box.click()
        page.keyboard.press("Enter")  # an empty box: says so, sends nothing
        view.get_by_text("type a message for the agent in the box first").wait_for(timeout=10_000)
        page.keyboard.type("half typed")
        page.keyboard.press("Tab")  # leaving the box sends nothing either
        page.wait_for_timeout(1500)
        assert _steers(run_dir) == []
        assert box.input_value() == "half typed"

        box.click()
        box.press("Control+a")
        page.keyboard.type("use staging")
        page.keyboard.press("Enter")
        page.keyboard.press("Tab")  # the blur right after Enter sends nothing more
        view.get_by_text(re.compile("heard after")).first.wait_for(timeout=30_000)
        view.locator(".nnb-badge", has_text=re.compile(r"^\s*ok\s*$")).wait_for(timeout=30_000)
        wait(lambda: (run_dir / "manifest.json").exists(), 30, "the run to seal")
        assert [e["payload"]["text"] for e in _steers(run_dir)] == ["use staging"]
        # no key pressed in the box ran a cell: same prompts, one run
        assert page.evaluate(PROMPTS) == prompts
        assert len(list((root / "runs-enter").glob("ep_*"))) == 1
