"""Fixtures for the tool-contract tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from tooltest_helpers import Harness, Recorder

from noesis_nb.tools import ApprovalDecisionRepository, IdempotencyRepository, PreparedInvocationRepository, ToolDispatcher


@pytest.fixture
def harness(tmp_path: Path) -> Harness:
    run_dir = tmp_path / "ep_test"
    run_dir.mkdir()
    return Harness(
        run_dir,
        Recorder(),
        PreparedInvocationRepository(run_dir),
        ApprovalDecisionRepository(run_dir),
        IdempotencyRepository(run_dir),
        ToolDispatcher(),
    )
