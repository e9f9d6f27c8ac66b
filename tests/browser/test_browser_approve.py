"""A real browser: JupyterLab (and Notebook 7 when installed) in Debian's chromium via Playwright.

Runs a notebook that starts an episode needing approval, clicks Approve in the page, then checks
the decision and the execution on disk and the view's new state. Saves a screenshot in the
test's temp dir (the README's images come from ``scripts/screenshots.py``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .lab import (
    CHROMIUM,
    approve_draft_of,
    button,
    chromium_page,
    jupyter_server,
    notebook,
    open_notebook,
    run_all,
    step_toggle,
    wait,
    wait_until_settled,
)

pytestmark = [pytest.mark.browser, pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")]


CELLS = [
    "%load_ext noesis_nb",
    '''import asyncio

async def release_agent(task, ctx):
    """A scripted agent: reads, thinks, then asks to run a write tool (which needs a human)."""
    ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=1850, output_tokens=240)
    ctx.emit("reason", {"text": "All checks are green; tagging the release needs approval."})
    await asyncio.sleep(0.2)
    result = await ctx.tool_async("git.tag@1", {"argv": ["touch", "RELEASED-v1.2.0"]}, effect="write", risk="high")
    ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=2100, output_tokens=60)
    return f"tagged (exit {result['returncode']})"''',
    'h = %noesis run release_agent "Tag release v1.2.0 once the checks pass" --runs-dir runs',
]


def _apps() -> list[Any]:
    apps = [pytest.param("lab", id="jupyterlab4")]
    try:
        import notebook  # noqa: F401

        apps.append(pytest.param("notebook", id="notebook7"))
    except ImportError:
        apps.append(pytest.param("notebook", id="notebook7", marks=pytest.mark.skip(reason="Notebook 7 is not installed")))
    return apps


@pytest.mark.parametrize("app", _apps())
def test_click_approve_in_the_browser(app: str, tmp_path: Path) -> None:
    pytest.importorskip("playwright.sync_api")
    root = tmp_path / "root"
    root.mkdir()
    (root / "release.ipynb").write_text(json.dumps(notebook(CELLS)))
    shot = tmp_path / f"episode-view-{app}.png"  # README images come from scripts/screenshots.py
    with jupyter_server(app, root, tmp_path) as (base, token), chromium_page(tmp_path) as page:
        open_notebook(page, base, token, "release.ipynb", app)
        run_all(page)
        view = approve_draft_of(page, "git.tag@1")

        # Disk first (the decision and the execution), then the view's new state; then the screenshot.
        runs = root / "runs"
        run_dir = wait(lambda: next(iter(runs.glob("ep_*")), None), 30, "the run directory")
        decision_file = wait(
            lambda: next(iter((run_dir / "tool_invocations" / "approvals").glob("*.json")), None), 30, "the decision file"
        )
        decision = json.loads(decision_file.read_text())
        assert decision["status"] == "approved" and decision["approver_id"] == "human"
        wait(lambda: (run_dir / "manifest.json").exists(), 30, "the run to seal")
        events = [json.loads(line) for line in (run_dir / "events.jsonl").read_text().splitlines()]
        assert "tool.execution.succeeded" in [(e.get("payload") or {}).get("event_name") for e in events]
        assert (root / "RELEASED-v1.2.0").exists()

        wait_until_settled(view, "ok", "approved")
        view.get_by_text("approved by human").first.wait_for(timeout=30_000)
        assert button(view, "Approve").is_disabled() and button(view, "Reject").is_disabled()
        step_toggle(view, "approved by human").click()  # expand the tool step: its contract events, one click from payloads
        view.get_by_text("tool.approval.pending").first.wait_for(timeout=30_000)
        shot.parent.mkdir(parents=True, exist_ok=True)
        view.screenshot(path=str(shot))
    assert shot.stat().st_size > 10_000
