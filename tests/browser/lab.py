"""Shared by the browser tests and ``scripts/screenshots.py``: an isolated Jupyter server, Debian's
chromium driven by Playwright (never ``playwright install``), and notebook copies with papermill-style
parameters.

The server gets its own config, data, runtime, settings and workspace directories and an environment
without any ``NOESIS_*`` variable, so a notebook decides everything from its own parameters (e.g. the
quickstart's ``APPROVER`` stays ``"ask"``: a person clicks).
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
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
CHROMIUM = shutil.which("chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
NOT_LOCAL = re.compile(r"^(https?|wss?)://(?!127\.0\.0\.1[:/]|localhost[:/])")  # CDNs etc.: aborted at once, offline


# -- notebooks ---------------------------------------------------------------------------------
def notebook(cells: list[str]) -> dict[str, Any]:
    """A notebook of code cells (python3 kernel)."""
    return {
        "cells": [
            {"cell_type": "code", "execution_count": None, "id": f"c{i}", "metadata": {}, "outputs": [], "source": src}
            for i, src in enumerate(cells)
        ],
        "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def cell_index(nb: Path | dict[str, Any], marker: str) -> int:
    """Index of the first cell whose source contains ``marker`` (markdown cells count, as in the page)."""
    data = json.loads(Path(nb).read_text()) if not isinstance(nb, dict) else nb
    for i, cell in enumerate(data["cells"]):
        if marker in "".join(cell["source"]):
            return i
    raise LookupError(f"no cell contains {marker!r}")


def copy_notebook(src: Path, dest: Path, *, upto: str | None = None, **parameters: Any) -> Path:
    """Copy ``src`` to ``dest`` with outputs cleared and ``parameters`` injected the way papermill does
    (a cell tagged ``injected-parameters`` right after the one tagged ``parameters``). With ``upto``,
    the copy ends with the first cell containing that text."""
    data = json.loads(src.read_text())
    if upto is not None:
        data["cells"] = data["cells"][: cell_index(data, upto) + 1]
    for cell in data["cells"]:
        if cell["cell_type"] == "code":
            cell["outputs"], cell["execution_count"] = [], None
    if parameters:
        at = next((i for i, c in enumerate(data["cells"]) if "parameters" in c["metadata"].get("tags", [])), None)
        if at is None:
            raise LookupError(f"{src.name} has no cell tagged 'parameters'")
        source = "# Injected parameters\n" + "".join(f"{k} = {v!r}\n" for k, v in parameters.items())
        data["cells"].insert(
            at + 1,
            {
                "cell_type": "code",
                "execution_count": None,
                "id": "injected-parameters",
                "metadata": {"tags": ["injected-parameters"]},
                "outputs": [],
                "source": source,
            },
        )
    dest.write_text(json.dumps(data, indent=1))
    return dest


# -- server ------------------------------------------------------------------------------------
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def jupyter_server(app: str, root: Path, tmp: Path, *options: str) -> Iterator[tuple[str, str]]:
    """``jupyter lab`` (or ``notebook``) serving ``root``, isolated under ``tmp``, given ``options`` besides; yields
    (base url, token). On an error inside the block the tail of the server log is printed."""
    token, port = secrets.token_hex(16), free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("NOESIS_")}
    env.update(
        JUPYTER_CONFIG_DIR=str(tmp / "config"),
        JUPYTER_DATA_DIR=str(tmp / "data"),
        JUPYTER_RUNTIME_DIR=str(tmp / "runtime"),
        IPYTHONDIR=str(tmp / "ipython"),
        PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    )
    expose = "--LabApp.expose_app_in_browser=True" if app == "lab" else "--JupyterNotebookApp.expose_app_in_browser=True"
    cmd = [
        sys.executable,
        "-m",
        "jupyter",
        app,
        "--no-browser",
        "--allow-root",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={root}",
        f"--LabApp.user_settings_dir={tmp / 'settings'}",
        f"--LabApp.workspaces_dir={tmp / 'workspaces'}",
        "--LabApp.news_url=None",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        expose,
        *options,
    ]
    notifications = tmp / "settings" / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings"
    notifications.parent.mkdir(parents=True, exist_ok=True)  # no "get Jupyter news?" toast over the page
    notifications.write_text(json.dumps({"fetchNews": "false", "checkForUpdates": False}))
    log_path = tmp / f"{app}.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_for_status(proc, base, token, log_path)
        try:
            yield base, token
        except BaseException:
            print(log_path.read_text(errors="replace")[-4000:])
            raise
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()


def _wait_for_status(proc: subprocess.Popen[bytes], base: str, token: str, log_path: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the Jupyter server exited: {log_path.read_text(errors='replace')[-2000:]}")
        try:
            request = urllib.request.Request(f"{base}/api/status", headers={"Authorization": f"token {token}"})
            with urllib.request.urlopen(request, timeout=2):
                return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError("the Jupyter server did not answer in 60 s")


# -- browser -----------------------------------------------------------------------------------
@contextmanager
def chromium_page(failures: Path | None = None, *, width: int = 1280, height: int = 1000) -> Iterator[Any]:
    """A Playwright page in Debian's chromium, offline (requests to other hosts are aborted). On an
    error inside the block, saves ``failures/failure.png`` and prints the notebook's text."""
    from playwright.sync_api import sync_playwright

    if CHROMIUM is None:
        raise RuntimeError("Debian's chromium is not installed (apt-get install chromium)")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": width, "height": height}, device_scale_factor=1)
            page.route(NOT_LOCAL, lambda route: route.abort())
            try:
                yield page
            except BaseException:
                if failures is not None:
                    page.screenshot(path=str(failures / "failure.png"), full_page=True)
                notebook_text = page.locator(".jp-Notebook")
                if notebook_text.count():
                    print(notebook_text.first.inner_text()[-4000:])
                raise
        finally:
            browser.close()


_READY = """() => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  const s = w && w.sessionContext, k = s && s.isReady && s.session && s.session.kernel;
  return !!(k && k.connectionStatus === 'connected' && k.status === 'idle'
            && window.jupyterapp.commands.hasCommand('notebook:run-all-cells')); }"""
_STARTED = """() => [...document.querySelectorAll('.jp-CodeCell .jp-InputPrompt')]
                      .some(p => /\\[(\\*|\\d+)\\]/.test(p.textContent))"""


def open_notebook(page: Any, base: str, token: str, name: str, app: str = "lab") -> None:
    """Open ``name`` in a fresh workspace; wait until its kernel is connected and idle (before that,
    Run All can be dropped silently)."""
    path = f"lab/tree/{name}" if app == "lab" else f"notebooks/{name}"
    page.goto(f"{base}/{path}?token={token}&reset", timeout=60_000)
    page.wait_for_selector(".jp-Notebook", timeout=60_000)
    page.wait_for_function(_READY, timeout=60_000)


def run_all(page: Any) -> None:
    """Run All, and check that a cell started within 10 s."""
    page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")
    page.wait_for_function(_STARTED, timeout=10_000)


def cell(page: Any, index: int) -> Any:
    """The ``index``-th cell of the open notebook (JupyterLab, Notebook 7 or nbconvert's HTML)."""
    return page.locator(".jp-Cell").nth(index)


def button(scope: Any, label: str) -> Any:
    """The widget buttons in ``scope`` (an episode view, a card) with exactly this label."""
    return scope.locator("button.widget-button", has_text=re.compile(rf"^\s*{label}\s*$"))


def approve_draft_of(page: Any, tool: str, timeout: float = 60) -> Any:
    """Wait for the Approve button on the card of ``tool``'s draft in the first episode view, click it;
    return that view."""
    view = page.locator(".noesis-nb-episode-view").first
    card = view.locator(".widget-vbox", has_text=f"{tool} wants approval").last
    approve = button(card, "Approve")
    approve.wait_for(timeout=timeout * 1000)
    approve.click()
    return view


def wait_until_settled(view: Any, status: str, decision: str, timeout: float = 30) -> None:
    """Wait until the view's status badge reads ``status`` and a card shows ``decision``."""
    view.locator(".nnb-badge", has_text=re.compile(rf"^\s*{status}\s*$")).first.wait_for(timeout=timeout * 1000)
    view.get_by_text(re.compile(rf"(^|\s){decision} by ")).first.wait_for(timeout=timeout * 1000)


def wait(predicate: Callable[[], Any], timeout: float, what: str) -> Any:
    """Poll ``predicate`` until it returns something truthy (returned) or raise after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


# -- themes and contrast -------------------------------------------------------------------------
LIGHT, DARK, HIGH_CONTRAST = "JupyterLab Light", "JupyterLab Dark", "JupyterLab Dark High Contrast"
ALL_RAN = """() => [...document.querySelectorAll('.jp-CodeCell .jp-InputPrompt')]
                     .every(p => /\\[\\d+\\]/.test(p.textContent))"""


def set_theme(page: Any, theme: str) -> None:
    """Switch JupyterLab's theme and wait until the page says it is applied."""
    page.evaluate(f"window.jupyterapp.commands.execute('apputils:change-theme', {{theme: {theme!r}}})")
    page.wait_for_function(f"() => document.body.dataset.jpThemeName === {theme!r}", timeout=30_000)
    page.wait_for_timeout(300)  # the new stylesheet's variables reach computed styles on the next frame


_CONTRAST = """
(selectors) => {
  const canvas = document.createElement('canvas'); canvas.width = canvas.height = 1;
  const ctx = canvas.getContext('2d', {willReadFrequently: true});
  const rgba = (css) => {  // any CSS colour (rgb, color(srgb ...), color-mix ...) as [r, g, b, a] via the canvas
    ctx.clearRect(0, 0, 1, 1); ctx.fillStyle = 'rgba(0,0,0,0)'; ctx.fillStyle = css; ctx.fillRect(0, 0, 1, 1);
    const d = ctx.getImageData(0, 0, 1, 1).data; return [d[0], d[1], d[2], d[3] / 255];
  };
  const over = (top, under) => { const a = top[3];
    return [0, 1, 2].map(i => top[i] * a + under[i] * (1 - a)).concat([1]); };
  const lum = (c) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]); };
  const ratio = (a, b) => { const x = lum(a), y = lum(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); };
  const base = over(rgba(getComputedStyle(document.body).backgroundColor), [255, 255, 255, 1]);
  const background = (el) => {  // composite every ancestor's background, outermost first
    const layers = []; let opacity = 1;
    for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
      const s = getComputedStyle(e); layers.push(rgba(s.backgroundColor)); opacity *= parseFloat(s.opacity);
      if (layers[layers.length - 1][3] === 1) break;
    }
    let bg = base; for (const layer of layers.reverse()) bg = over(layer, bg); return [bg, opacity];
  };
  const visible = (el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility === 'visible';
  const failures = []; let checked = 0;
  const check = (el, css, text, bgEl) => {
    const [bg, opacity] = background(bgEl || el); const fg = rgba(css); fg[3] *= opacity;
    const r = ratio(over(fg, bg), bg); checked += 1;
    if (r < 4.5) failures.push({text: text.slice(0, 60), ratio: Math.round(r * 100) / 100, color: css,
                                background: 'rgb(' + bg.slice(0, 3).map(Math.round).join(',') + ')'});
  };
  for (const root of document.querySelectorAll(selectors)) {
    for (const el of [root, ...root.querySelectorAll('*')]) {
      if (!visible(el)) continue;
      if (el instanceof SVGTextElement) {  // plotly text: over the figure's own paper (the svg's background)
        if (!el.textContent.trim()) continue;
        const fill = rgba(getComputedStyle(el).fill); fill[3] *= parseFloat(getComputedStyle(el).fillOpacity || '1');
        // plotly stacks several svgs in one container; the first carries the paper colour under all of them
        const container = el.closest('.svg-container'); const paper = container && container.querySelector('svg.main-svg');
        let [bg, opacity] = background(el);
        if (paper) { const [under] = background(container); bg = over(rgba(getComputedStyle(paper).backgroundColor), under); }
        fill[3] *= opacity;
        const r = ratio(over(fill, bg), bg); checked += 1;
        if (r < 4.5) failures.push({text: el.textContent.slice(0, 60), ratio: Math.round(r * 100) / 100,
                                    color: getComputedStyle(el).fill});
        continue;
      }
      if (el.closest('svg')) continue;
      const own = [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
      if (own) check(el, getComputedStyle(el).color, el.textContent.trim());
      if (el.tagName === 'INPUT' && !el.value && el.placeholder) {
        check(el, getComputedStyle(el, '::placeholder').color, el.placeholder);
      }
    }
  }
  return {checked, failures};
}
"""


def contrast(page: Any, selectors: str = ".noesis-nb-episode-view, .jp-RenderedPlotly") -> dict[str, Any]:
    """WCAG contrast of every visible text in ``selectors`` against its composited background:
    ``{"checked": n, "failures": [{text, ratio, color, background}, ...]}`` (failures: ratio < 4.5)."""
    result: dict[str, Any] = page.evaluate(_CONTRAST, selectors)
    return result


def step_toggle(view: Any, text: str) -> Any:
    """The ▸ toggle of the step whose summary line contains ``text`` (toggle and line sit side by side in a grid)."""
    line = view.locator(".nnb-steps .widget-html", has=view.page.locator(".nnb-sum", has_text=text)).first
    return line.locator("xpath=preceding-sibling::*[1]")


_LINE_BOXES = """(selector) => [...document.querySelectorAll(selector)].filter(e => e.getClientRects().length).map(e => {
  const s = getComputedStyle(e);
  return {text: e.textContent.trim().slice(0, 60), line: parseFloat(s.lineHeight), font: parseFloat(s.fontSize),
          inner: e.clientHeight}; })"""


def line_boxes(page: Any, selector: str) -> list[dict[str, Any]]:
    """For each visible element of ``selector``: its text, computed line height and font size (px) and the
    height inside its border (``clientHeight``): a line taller than its button pushes the label off centre,
    a 28px line under 12px text leaves a gap between wrapped lines."""
    result: list[dict[str, Any]] = page.evaluate(_LINE_BOXES, selector)
    return result
