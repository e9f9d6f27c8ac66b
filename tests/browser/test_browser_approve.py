"""A real browser: JupyterLab (and Notebook 7 when installed) in Debian's chromium via Playwright.

Runs a notebook that starts an episode needing approval, clicks Approve in the page, then checks
the decision and the execution on disk and the view's new state. Saves a screenshot to
``docs/images/episode-view.png`` when ``NOESIS_NB_SCREENSHOTS=1`` (else to a temp dir).
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian's chromium is not installed")]

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = os.environ.get("NOESIS_NB_SCREENSHOTS") == "1"  # read at import: tests clear NOESIS_* variables
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]

CELLS = [
    "%load_ext noesis_nb",
    '''import asyncio

async def release_agent(task, ctx):
    """A scripted agent: reads, thinks, then asks to run a write tool (which needs a human)."""
    ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=1850, output_tokens=240)
    ctx.emit("reason", {"text": "All checks are green; tagging the release needs approval."})
    await asyncio.sleep(0.2)
    result = await ctx.atool("git.tag@1", {"argv": ["touch", "RELEASED-v1.2.0"]}, effect="write", risk="high")
    ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=2100, output_tokens=60)
    return f"tagged (exit {result['returncode']})"''',
    'h = %noesis run release_agent "Tag release v1.2.0 once the checks pass" --runs-dir runs',
]


def _notebook(cells: list[str]) -> dict[str, Any]:
    return {
        "cells": [{"cell_type": "code", "execution_count": None, "id": f"c{i}", "metadata": {}, "outputs": [], "source": src}
                  for i, src in enumerate(cells)],
        "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}},
        "nbformat": 4, "nbformat_minor": 5,
    }


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _server(app: str, root: Path, tmp: Path) -> tuple[subprocess.Popen[bytes], str, str]:
    token, port = secrets.token_hex(16), _free_port()
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(tmp / "config"), JUPYTER_DATA_DIR=str(tmp / "data"),
               JUPYTER_RUNTIME_DIR=str(tmp / "runtime"), IPYTHONDIR=str(tmp / "ipython"),
               PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    env.pop("NOESIS_RUNS_DIR", None)
    expose = "--LabApp.expose_app_in_browser=True" if app == "lab" else "--JupyterNotebookApp.expose_app_in_browser=True"
    cmd = [sys.executable, "-m", "jupyter", app, "--no-browser", "--allow-root", "--ServerApp.ip=127.0.0.1",
           f"--ServerApp.port={port}", "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}",
           f"--ServerApp.root_dir={root}", f"--LabApp.user_settings_dir={tmp / 'settings'}",
           f"--LabApp.workspaces_dir={tmp / 'workspaces'}", "--LabApp.news_url=None",
           "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate", expose]
    log = open(tmp / f"{app}.log", "wb")
    proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"jupyter {app} exited: {(tmp / f'{app}.log').read_text()[-2000:]}")
        try:
            request = urllib.request.Request(f"{base}/api/status", headers={"Authorization": f"token {token}"})
            with urllib.request.urlopen(request, timeout=2):
                return proc, base, token
        except OSError:
            time.sleep(0.3)
    proc.terminate()
    raise RuntimeError(f"jupyter {app} did not answer in 60 s")


def _apps() -> list[Any]:
    apps = [pytest.param("lab", id="jupyterlab4")]
    try:
        import notebook  # noqa: F401

        apps.append(pytest.param("notebook", id="notebook7"))
    except ImportError:
        apps.append(pytest.param("notebook", id="notebook7", marks=pytest.mark.skip(reason="Notebook 7 is not installed")))
    return apps


def _button(page: Any, label: str) -> Any:
    """A button of the episode view by its label (not the file browser's "release.ipynb" entry)."""
    return page.locator(".noesis-nb-episode-view button.widget-button", has_text=re.compile(rf"^\s*{label}\s*$"))


def _wait(predicate: Any, timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


@pytest.mark.parametrize("app", _apps())
def test_click_approve_in_the_browser(app: str, tmp_path: Path) -> None:
    playwright = pytest.importorskip("playwright.sync_api")
    root = tmp_path / "root"
    root.mkdir()
    (root / "release.ipynb").write_text(json.dumps(_notebook(CELLS)))
    proc, base, token = _server(app, root, tmp_path)
    shot = (ROOT / "docs" / "images" / "episode-view.png" if SCREENSHOTS and app == "lab"
            else tmp_path / f"episode-view-{app}.png")
    try:
        with playwright.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1280, "height": 1000})
            path = "lab/tree/release.ipynb" if app == "lab" else "notebooks/release.ipynb"
            page.goto(f"{base}/{path}?token={token}&reset", timeout=60_000)
            page.wait_for_selector(".jp-Notebook", timeout=60_000)
            page.wait_for_function("() => window.jupyterapp && window.jupyterapp.commands.hasCommand('notebook:run-all-cells')",
                                   timeout=60_000)
            page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle'], .jp-mod-idle", timeout=60_000) \
                if app == "lab" else None
            time.sleep(1.0)  # let the kernel session settle before running
            page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")
            approve = _button(page, "Approve")
            approve.wait_for(timeout=60_000)
            approve.click()

            try:
                _check(page, root, shot)
            except BaseException:
                page.screenshot(path=str(tmp_path / "failure.png"), full_page=True)
                print(page.locator(".jp-Notebook").inner_text()[-4000:])
                print((tmp_path / f"{app}.log").read_text()[-4000:])
                raise
            browser.close()
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
    assert shot.stat().st_size > 10_000


def _check(page: Any, root: Path, shot: Path) -> None:
    """Disk first (the decision and the execution), then the view's new state; then the screenshot."""
    approve = _button(page, "Approve")
    if True:
        if True:
            runs = root / "runs"
            run_dir = _wait(lambda: next(iter(runs.glob("ep_*")), None), 30, "the run directory")
            decision_file = _wait(lambda: next(iter((run_dir / "tool_invocations" / "approvals").glob("*.json")), None), 30,
                                  "the decision file")
            decision = json.loads(decision_file.read_text())
            assert decision["status"] == "approved" and decision["approver_id"] == "human"
            _wait(lambda: (run_dir / "manifest.json").exists(), 30, "the run to seal")
            events = [json.loads(line) for line in (run_dir / "events.jsonl").read_text().splitlines()]
            assert "tool.execution.succeeded" in [(e.get("payload") or {}).get("event_name") for e in events]
            assert (root / "RELEASED-v1.2.0").exists()

            view = page.locator(".noesis-nb-episode-view")
            view.get_by_text("approved by human").wait_for(timeout=30_000)
            view.locator(".nnb-badge", has_text="ok").first.wait_for(timeout=30_000)
            assert approve.is_disabled() and _button(page, "Reject").is_disabled()
            view.get_by_text("tool.approval.pending").first.click()  # expand one row to show its payload
            shot.parent.mkdir(parents=True, exist_ok=True)
            view.screenshot(path=str(shot))
