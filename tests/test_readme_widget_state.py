"""The README's Set up says to turn on JupyterLab's *Save Widget State Automatically* before saving (off by default):
without it a notebook reopened without its kernel shows "Error displaying widget: model not found"."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SETTING = "Save Widget State Automatically"


def test_set_up_says_to_turn_on_saving_the_widget_state() -> None:
    set_up = (ROOT / "README.md").read_text().split("## Set up", 1)[1].split("\n## ", 1)[0]
    assert SETTING in set_up and "model not found" in set_up
