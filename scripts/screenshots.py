#!/usr/bin/env python
"""Render key outputs of the notebooks to PNGs in docs/images/ for the README.

Uses the browser tests' setup (``tests/browser/lab.py``): an isolated JupyterLab and Debian's
chromium driven by Playwright, offline (requests to other hosts are aborted; never
``playwright install``). Notebooks are copied (outputs cleared, ``RUNS_DIR`` injected as a papermill
parameter) and run in JupyterLab, so widgets are live and plotly figures use JupyterLab's local
plotly extension rather than the CDN the ``notebook_connected`` renderer points at:

- quickstart-view.png      the quickstart's live view after a click on Approve (APPROVER stays "ask"), its tool
                           step expanded, in JupyterLab's Light theme
- quickstart-view-dark.png the same in the Dark theme
- analysis-cost.png        the analysis notebook's cost-over-time plot
- analysis-compare.png     the analysis notebook's comparison of two episodes
- governance-paused.png    the view of a run paused on disk, with its pending draft's card
- governance-veto.png      the view of a run paused by a governance veto, with Override / Uphold (Dark theme)
- messages.png             ordinary outcomes as one line: a decided draft, a sealed run, a rejected tool
- replay.png               the steer-and-replay tour's replay, scrubbed to just after the agent heard a steer
- replay-dark.png          the same in the Dark theme
- batch-grid.png           the batches tour's progress grid with its inbox: eight writes approved one by one, two
                           ticked and asked to confirm (Light theme)

The integrations notebook needs no kernel: its committed outputs are enough, so its nbconvert HTML
is opened in chromium for

- integrations-frames.png  the runs frame with its ``source`` column (the cell and its table)

Usage: python scripts/screenshots.py [--out docs/images] [NAME ...]   (NAME: quickstart, analysis,
governance, messages, replay, batches, integrations; default all). Each PNG must stay under 250 KB: outputs are cropped.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.browser.lab import (
    DARK,
    LIGHT,
    NOTEBOOKS,
    approve_draft_of,
    button,
    cell,
    cell_index,
    chromium_page,
    copy_notebook,
    jupyter_server,
    notebook,
    open_notebook,
    run_all,
    set_theme,
    step_toggle,
    wait_until_settled,
)

MAX_BYTES = 250_000
_ALL_RUN = """() => [...document.querySelectorAll('.jp-CodeCell .jp-InputPrompt')]
                     .every(p => /\\[\\d+\\]/.test(p.textContent))"""
WIDTH = 1100  # viewport width: the notebook fills it once the left sidebar is closed


def _prepare(page: Any, base: str, token: str, name: str) -> None:
    """Open a notebook copy with the left sidebar closed (wider outputs), then Run All."""
    open_notebook(page, base, token, name)
    page.evaluate("""() => { const shell = window.jupyterapp.shell;
        if (!shell.leftCollapsed) window.jupyterapp.commands.execute('application:toggle-left-area'); }""")
    run_all(page)


def _shoot(page: Any, element: Any, path: Path, max_height: int | None = None) -> Path:
    """Screenshot ``element`` (scrolled into view), at most ``max_height`` px of its top."""
    element.scroll_into_view_if_needed()
    time.sleep(0.5)  # let scrolling and re-layout settle
    box = element.bounding_box()
    if box is None:
        raise RuntimeError(f"{path.name}: the element is not visible")
    if max_height is not None and box["height"] > max_height:
        element.evaluate("e => e.scrollIntoView({block: 'start'})")
        time.sleep(0.3)
        box = element.bounding_box()
        page.screenshot(path=str(path), clip={**box, "height": float(max_height)})
    else:
        element.screenshot(path=str(path))
    size = path.stat().st_size
    print(f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}: {size / 1000:.0f} KB")
    if size > MAX_BYTES:
        raise RuntimeError(f"{path.name} is {size} bytes (> {MAX_BYTES}): crop it further")
    return path


def quickstart(page: Any, base: str, token: str, root: Path, tmp: Path, out: Path) -> None:
    copy_notebook(NOTEBOOKS / "quickstart.ipynb", root / "quickstart.ipynb", RUNS_DIR=str(tmp / "quickstart-runs"))
    _prepare(page, base, token, "quickstart.ipynb")
    set_theme(page, LIGHT)
    view = approve_draft_of(page, "fs.write_file")
    wait_until_settled(view, "ok", "approved")
    step_toggle(view, "approved by human").click()  # the tool step, expanded: its contract events inside
    view.get_by_text("tool.execution.succeeded").first.wait_for(timeout=30_000)
    _shoot(page, view, out / "quickstart-view.png", max_height=900)
    set_theme(page, DARK)
    _shoot(page, view, out / "quickstart-view-dark.png", max_height=900)
    set_theme(page, LIGHT)


def analysis(page: Any, base: str, token: str, root: Path, tmp: Path, out: Path) -> None:
    nb = copy_notebook(NOTEBOOKS / "analysis.ipynb", root / "analysis.ipynb", RUNS_DIR=str(tmp / "analysis-runs"))
    _prepare(page, base, token, "analysis.ipynb")
    page.wait_for_function(_ALL_RUN, timeout=120_000)
    for marker, name in [("plots.cost_over_time(", "analysis-cost.png"), ("plots.compare_episodes(", "analysis-compare.png")]:
        plot = cell(page, cell_index(nb, marker)).locator(".jp-OutputArea-output.js-plotly-plot")  # jupyterlab-plotly
        plot.locator(".main-svg").first.wait_for(timeout=30_000)
        _shoot(page, plot, out / name)


def governance(page: Any, base: str, token: str, root: Path, tmp: Path, out: Path) -> None:
    marker = 'solve("deploy release 1.2"'  # the cell that pauses a run on disk and shows it; the copy ends there
    nb = copy_notebook(
        NOTEBOOKS / "governance-and-resume.ipynb", root / "governance.ipynb", upto=marker, RUNS_DIR=str(tmp / "governance-runs")
    )
    _prepare(page, base, token, "governance.ipynb")
    view = cell(page, cell_index(nb, marker)).locator(".noesis-nb-episode-view")
    view.locator("button.widget-button", has_text="Approve").wait_for(timeout=60_000)
    view.locator(".nnb-badge", has_text="paused").wait_for(timeout=30_000)
    _shoot(page, view, out / "governance-paused.png", max_height=700)
    paused = "noesis_nb.show(paused"  # the veto pause, before the next cell resumes it: a copy that ends there
    nb = copy_notebook(
        NOTEBOOKS / "governance-and-resume.ipynb", root / "veto.ipynb", upto=paused, RUNS_DIR=str(tmp / "veto-runs")
    )
    _prepare(page, base, token, "veto.ipynb")
    veto = cell(page, cell_index(nb, paused)).locator(".noesis-nb-episode-view")
    veto.locator("button.widget-button", has_text="Override").wait_for(timeout=60_000)
    set_theme(page, DARK)
    _shoot(page, veto, out / "governance-veto.png", max_height=700)
    set_theme(page, LIGHT)


MESSAGES = [
    "%load_ext noesis_nb\nimport noesis_nb\nRUNS = {runs!r}",
    """async def tagger(task, ctx):
    return await ctx.tool_async("git.tag@1", {{"argv": ["true"]}}, effect="write", risk="high")

ep = noesis_nb.solve("Tag release v1.2.0", using=tagger, runs_dir=RUNS, approver="ask")
noesis_nb.approve_draft(ep, runs_dir=RUNS, approver_id="ana", reason="checks are green")
noesis_nb.resume_run(ep, runs_dir=RUNS)""",
    "%noesis approve $ep --runs-dir $RUNS --approver-id bob",
    "%noesis resume $ep --runs-dir $RUNS",
    "%noesis list --runs-dir no-runs-yet",
    '%noesis run taggr "Tag release v1.2.1" --runs-dir $RUNS',  # an error: Run All stops here
    """h = noesis_nb.start("Tag release v1.2.2", using=tagger, runs_dir=RUNS, approver="deny")
await h.wait()
h.result()""",  # run on its own, after
]


def messages(page: Any, base: str, token: str, root: Path, tmp: Path, out: Path) -> None:
    cells = [c.format(runs="messages-runs") for c in MESSAGES]  # relative to the notebook: no machine path in the image
    (root / "messages.ipynb").write_text(json.dumps(notebook(cells)))
    _prepare(page, base, token, "messages.ipynb")
    cell(page, len(cells) - 2).locator(".jp-OutputArea-output").first.wait_for(timeout=120_000)
    page.evaluate(f"""() => {{ const panel = window.jupyterapp.shell.currentWidget;
        panel.content.activeCellIndex = {len(cells) - 1};
        return window.jupyterapp.commands.execute('notebook:run-cell'); }}""")
    last = cell(page, len(cells) - 1)
    last.locator(".jp-OutputArea-output").first.wait_for(timeout=120_000)
    time.sleep(1.0)
    first = cell(page, 2)
    first.evaluate("e => e.scrollIntoView({block: 'start'})")
    time.sleep(0.5)
    box, end = first.bounding_box(), last.bounding_box()
    if box is None or end is None:
        raise RuntimeError("messages.png: the cells are not visible")
    path = out / "messages.png"
    page.screenshot(path=str(path), clip={**box, "height": end["y"] + end["height"] - box["y"]})
    print(f"{path.name}: {path.stat().st_size / 1000:.0f} KB")


def replay(page: Any, base: str, token: str, root: Path, tmp: Path, out: Path) -> None:
    nb = copy_notebook(NOTEBOOKS / "steer-and-replay.ipynb", root / "replay.ipynb", RUNS_DIR=str(tmp / "replay-runs"))
    _prepare(page, base, token, "replay.ipynb")
    set_theme(page, LIGHT)
    page.wait_for_function(_ALL_RUN, timeout=120_000)
    moment = cell(page, cell_index(nb, "replay.seek(12)")).locator(".noesis-nb-replay").first
    moment.get_by_text("event 12 of").first.wait_for(timeout=30_000)
    _shoot(page, moment, out / "replay.png", max_height=900)
    set_theme(page, DARK)
    _shoot(page, moment, out / "replay-dark.png", max_height=900)
    set_theme(page, LIGHT)


def integrations(page: Any, tmp: Path, out: Path) -> None:
    src = NOTEBOOKS / "integrations.ipynb"
    subprocess.run(
        [sys.executable, "-m", "jupyter", "nbconvert", "--to", "html", "--output-dir", str(tmp), str(src)],
        check=True,
        capture_output=True,
    )
    page.goto((tmp / "integrations.html").as_uri(), timeout=60_000)
    frames = cell(page, cell_index(src, 'runs[["source"'))
    frames.locator("table").first.wait_for(timeout=30_000)
    _shoot(page, frames, out / "integrations-frames.png")


def batches(page: Any, base: str, token: str, root: Path, tmp: Path, out: Path) -> None:
    marker = "await b\nb.counts()"  # the batch waits for people: the copy ends there
    nb = copy_notebook(NOTEBOOKS / "batches.ipynb", root / "batches.ipynb", upto=marker, RUNS_DIR=str(tmp / "batch-runs"))
    _prepare(page, base, token, "batches.ipynb")
    set_theme(page, LIGHT)
    grid = cell(page, cell_index(nb, "b = noesis_nb.batch(")).locator(".noesis-nb-batch")
    inbox = grid.locator(".noesis-nb-inbox")
    inbox.get_by_text("10 drafts waiting").wait_for(timeout=120_000)
    for waiting in range(10, 2, -1):  # decide eight one by one, then two at once (the question is in the picture)
        inbox.get_by_text(f"{waiting} drafts waiting").wait_for(timeout=15_000)
        button(inbox.locator(".nnb-ib-row").first, "Approve").click()
    inbox.get_by_text("2 drafts waiting").wait_for(timeout=15_000)
    for i in range(2):
        inbox.locator(".nnb-ib-row input[type=checkbox]").nth(i).check()
    button(inbox, "Approve selected…").click()
    inbox.get_by_text("Approve 2 drafts?").wait_for(timeout=15_000)
    _shoot(page, grid, out / "batch-grid.png", max_height=1150)


LIVE = {
    "quickstart": quickstart,
    "analysis": analysis,
    "governance": governance,
    "messages": messages,
    "replay": replay,
    "batches": batches,
}
ALL = [*LIVE, "integrations"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", metavar="NAME", help=f"any of {', '.join(ALL)} (default: all)")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images")
    args = parser.parse_args(argv)
    names = args.names or ALL
    if set(names) - set(ALL):
        parser.error(f"unknown: {', '.join(sorted(set(names) - set(ALL)))}")
    failures = Path(tempfile.gettempdir())  # failure.png lands here
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="noesis_nb-screenshots-") as t:
        tmp = Path(t)
        root = tmp / "root"
        root.mkdir()
        started = time.monotonic()
        live = [n for n in names if n in LIVE]
        if live:
            with jupyter_server("lab", root, tmp) as (base, token), chromium_page(failures, width=WIDTH, height=1400) as page:
                for name in live:
                    LIVE[name](page, base, token, root, tmp, args.out)
        if "integrations" in names:
            with chromium_page(failures, width=WIDTH, height=1400) as page:
                integrations(page, tmp, args.out)
        print(f"done in {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
