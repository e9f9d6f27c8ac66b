"""A steer typed into a running episode's view in JupyterLab: Send, and the step tree shows it heard."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from .lab import CHROMIUM, button, notebook, open_notebook, run_all, wait

pytestmark = [pytest.mark.browser, pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")]

CELLS = [
    "%load_ext noesis_nb",
    '''async def listener(task, ctx):
    """Waits for a person to say something, then acts on it."""
    ctx.emit("reason", {"text": "waiting to hear which database to use"})
    heard = await ctx.next_steer_async(timeout=120)
    ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=1200, output_tokens=80)
    return f"migrating {heard}"''',
    'h = %noesis run listener "Migrate the orders table" --runs-dir runs-steer',
]


def test_a_steer_sent_from_the_text_box_is_applied_in_the_timeline(lab: dict[str, Any], page: Any) -> None:
    (lab["root"] / "steer.ipynb").write_text(json.dumps(notebook(CELLS)))
    open_notebook(page, lab["base"], lab["token"], "steer.ipynb")
    run_all(page)
    view = page.locator(".noesis-nb-episode-view").first
    box = view.locator(".nnb-steer input")
    box.wait_for(timeout=60_000)
    box.fill("use staging, <b>not</b> production")
    button(view, "Send").click()
    view.get_by_text(re.compile("heard after")).first.wait_for(timeout=30_000)
    view.locator(".nnb-badge", has_text=re.compile(r"^\s*ok\s*$")).wait_for(timeout=30_000)
    assert "use staging, <b>not</b> production" in view.inner_text()  # shown as text, not markup
    # hidden once the episode ended: the badge and the box's layout are two widget messages, applied one after
    # the other by the page, so the box is waited for (a view that never hides it fails here after 10 s)
    view.locator(".nnb-steer input").wait_for(state="hidden", timeout=10_000)
    run_dir = wait(lambda: next(iter((lab["root"] / "runs-steer").glob("ep_*")), None), 30, "the run directory")
    wait(lambda: (run_dir / "manifest.json").exists(), 30, "the run to seal")
    steers = [json.loads(line) for line in (run_dir / "events.jsonl").read_text().splitlines() if '"steer"' in line]
    assert [e["payload"]["event_name"] for e in steers] == ["steer.sent", "steer.applied"]
    assert steers[0]["payload"]["text"] == "use staging, <b>not</b> production"
