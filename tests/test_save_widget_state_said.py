"""A notebook reopened without its kernel shows "Error displaying widget: model not found" in each view's place unless
JupyterLab's *Save Widget State Automatically* was on when it was saved (off by default): the quickstart's first cell
says so before anyone saves (the README said it only in a section further down)."""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SETTING = "Save Widget State Automatically"


def test_the_quickstart_says_it_in_its_first_cell() -> None:
    first = json.loads((ROOT / "notebooks" / "quickstart.ipynb").read_text())["cells"][0]
    assert first["cell_type"] == "markdown"
    said = "".join(first["source"])
    assert SETTING in said and "model not found" in said
