"""Newcomer mistakes in a real kernel (its loop runs while a cell runs, unlike IPython's test shell)."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.kernel


def test_a_misspelt_agent_in_noesis_run_says_which_was_meant(kernel: Any) -> None:
    kernel.setup()
    before = kernel.value("len(list(RUNS.glob('*'))) if RUNS.exists() else 0")
    out = kernel.run("%noesis run tool_agnt 'write k1' --runs-dir {RUNS}")
    shown = out["stdout"]
    assert shown.startswith("UsageError: %noesis run: using='tool_agnt' names no agent"), shown
    assert shown.count("did you mean tool_agent") == 1, shown
    assert "Traceback" not in shown and out["outputs"] == []
    assert kernel.value("len(list(RUNS.glob('*'))) if RUNS.exists() else 0") == before  # nothing written
