"""Shared fixtures: isolated runs dirs and settings, and the path of the real Noēsis run."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
SMOKE_RUN = SHARED / "fixtures" / "noesis-smoke-run" / "ep_01K9RBBMXXRSFWR49SXFGF4SPR"


@pytest.fixture
def runs_dir(tmp_path: Path) -> Path:
    path = tmp_path / "runs"
    path.mkdir()
    return path


@pytest.fixture(autouse=True)
def _isolated_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Every test starts with default settings, no NOESIS_* environment and its own cwd."""
    from noesis_nb import config

    for key in list(os.environ):
        if key.startswith("NOESIS_"):
            monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)
    config.reset()
    yield
    config.reset()


@pytest.fixture
def smoke_run() -> Path:
    if not SMOKE_RUN.is_dir():
        pytest.skip("../shared/fixtures/noesis-smoke-run is not present on this machine")
    return SMOKE_RUN
