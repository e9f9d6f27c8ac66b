"""A long load's progress bar leaves nothing behind in the saved notebook.

The bar (a tqdm widget closed with ``leave=False``) stayed in the cell's outputs with its first text,
``noesis_nb: runs: 0%| | 0/240``: what GitHub, nbviewer and a reader without the widget state see. Here nbclient
runs a real kernel and saves the outputs as Jupyter does, display updates applied.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import noesis_nb

pytestmark = pytest.mark.kernel

ROOT = Path(__file__).resolve().parents[2]


def test_a_load_with_a_progress_bar_saves_no_stale_bar(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    runs = tmp_path / "runs"
    for task in ("a", "b", "c"):
        noesis_nb.solve(task, using=lambda task, ctx: task, runs_dir=runs)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    nb = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_code_cell(
                "import noesis_nb\n"
                f"df = noesis_nb.runs_df({str(runs)!r}, progress=True)\n"
                f"ev = noesis_nb.events_df({str(runs)!r}, progress=True)\n"
                "len(df), len(ev) > 0"
            ),
        ],
        metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
    )
    nbclient.NotebookClient(nb, timeout=60, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()

    outputs = nb.cells[0].outputs
    assert outputs[-1]["data"]["text/plain"] == "(3, True)"  # the load ran, with its bars
    shown = [out for out in outputs[:-1] if out.get("output_type") == "display_data"]
    assert len(shown) == 2, outputs  # a bar for each load was displayed
    for out in shown:
        texts = " ".join(str(v) for v in out.get("data", {}).values())
        assert "noesis_nb:" not in texts and "%|" not in texts, f"a stale bar is saved: {out}"
        assert "application/vnd.jupyter.widget-view+json" not in out.get("data", {}), out
