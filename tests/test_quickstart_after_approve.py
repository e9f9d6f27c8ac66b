"""The quickstart run with nobody to click: every cell that waits for the decision says what to do after clicking
Approve, and that it is not Run All. A newcomer who clicked Approve and then pressed Run All (the natural next step)
started a new episode that paused again, and the cells said "waiting for your click" once more: the text said
"run this cell again after", the markdown "run the next cell"."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat

QUICKSTART = Path(__file__).resolve().parent.parent / "notebooks" / "quickstart.ipynb"


def test_the_waiting_cells_say_run_the_cells_below_not_run_all(tmp_path: Path) -> None:
    from nbclient import NotebookClient

    nb = nbformat.read(QUICKSTART, as_version=4)
    for cell in nb.cells:
        if "parameters" in cell.metadata.get("tags", []):
            cell.source += f"\nRUNS_DIR = {str(tmp_path / 'runs')!r}\nAPPROVER = 'ask'"
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    said = [str(o.get("data", {}).get("text/plain", "")) for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    waiting = [s for s in said if "waiting for your click" in s]
    assert len(waiting) >= 2, said
    for text in waiting:
        assert "run this cell and the cells below" in text and "Run All starts a new episode" in text, text
    (ask,) = [c.source for c in nb.cells if c.cell_type == "markdown" and "**Click Approve**" in c.source]
    assert re.search(r"run the cells below this one", ask) and "Not Run All" in ask, ask
