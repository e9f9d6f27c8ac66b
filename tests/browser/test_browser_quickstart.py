"""The quickstart notebook end to end in a real browser: a person clicks Approve.

A copy of ``notebooks/quickstart.ipynb`` (outputs cleared, ``RUNS_DIR`` injected as a papermill
parameter) runs in an isolated JupyterLab whose kernel has no ``NOESIS_NB_APPROVER``, so the
notebook's ``APPROVER`` is ``"ask"``. Cells after the view cell run before the click (``await handle``
returns at the pause; the cells that need the finished run say they are waiting for the click, so
Run All completes without an error). The checks are about the disk and the view after the click.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .lab import (
    CHROMIUM,
    NOTEBOOKS,
    approve_draft_of,
    button,
    copy_notebook,
    open_notebook,
    run_all,
    wait,
    wait_until_settled,
)

pytestmark = [pytest.mark.browser, pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")]


def test_quickstart_approved_by_a_click(lab: dict[str, Any], page: Any, tmp_path: Path) -> None:
    from noesis_nb.store import read_json, verify_manifest

    root, runs = lab["root"], tmp_path / "runs"
    copy_notebook(NOTEBOOKS / "quickstart.ipynb", root / "quickstart.ipynb", RUNS_DIR=str(runs))
    shot = tmp_path / "quickstart-view.png"
    open_notebook(page, lab["base"], lab["token"], "quickstart.ipynb")
    run_all(page)
    view = approve_draft_of(page, "fs.write_file")

    # (a) on disk: the click's decision, the sealed run, a manifest that verifies
    run_dir = wait(lambda: next(iter(runs.glob("ep_*")), None), 30, "the run directory")
    decisions = wait(lambda: list((run_dir / "tool_invocations" / "approvals").glob("*.json")), 30, "the decision")
    assert [(d["status"], d["approver_id"]) for d in map(read_json, decisions)] == [("approved", "human")]
    wait(lambda: (run_dir / "manifest.json").exists(), 30, "the run to seal")
    assert read_json(run_dir / "final.json")["outcome"] == "success"
    assert verify_manifest(run_dir).status == "ok", verify_manifest(run_dir)

    # (b) the view says so: badge ok, the card approved by the click, its buttons gone
    wait_until_settled(view, "ok", "approved")
    assert view.get_by_text("approved by human").count() >= 1
    assert not button(view, "Approve").first.is_visible() and not button(view, "Reject").first.is_visible()
    view.screenshot(path=str(shot))

    # (c) the tool ran: the notes the agent wrote (NOTES_DIR is RUNS_DIR's sibling "<name>-notes")
    notes = tmp_path / "runs-notes" / "release-notes.md"
    assert notes.read_text().startswith("# Release notes")
    assert shot.stat().st_size > 10_000
