"""nbclient executes a notebook ending in ``await h``: the saved outputs hold the final snapshot."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

pytestmark = pytest.mark.kernel

ROOT = Path(__file__).resolve().parents[2]
WIDGET = "application/vnd.jupyter.widget-view+json"


def test_saved_notebook_keeps_the_final_snapshot(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    nb = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_code_cell("%load_ext noesis_nb"),
            nbformat.v4.new_code_cell(
                "async def agent(task, ctx):\n"
                "    ctx.emit('reason', {'text': '<script>alert(1)</script> thinking'})\n"
                "    return await ctx.tool_async('fs.echo', {'argv': ['echo', 'hi']}, effect='write', risk='high')"
            ),
            nbformat.v4.new_code_cell('h = %noesis run agent "echo <b>hi</b>" --approver auto --runs-dir runs'),
            nbformat.v4.new_code_cell("await h"),
        ],
        metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
    )
    nbclient.NotebookClient(nb, timeout=60, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()

    [view_output] = nb.cells[2].outputs  # the display of %noesis run, updated in place by `await h`
    data = view_output["data"]
    assert {WIDGET, "text/plain", "text/html"} <= set(data)
    assert data["text/plain"].startswith("EpisodeHandle(status='ok', events=")
    html = data["text/html"]
    assert ">ok<" in html and "tool.execution.succeeded" in html and "terminate" in html
    assert "<script>" not in html and "&lt;script&gt;" in html and "&lt;b&gt;hi&lt;/b&gt;" in html
    [final] = nb.cells[3].outputs  # `await h` evaluates to the handle: its view, final state
    assert final["data"]["text/plain"] == data["text/plain"]
