from __future__ import annotations

from pathlib import Path

import pytest

from noesis_nb.frames import clear_cache

from .runkit import SMOKE, make_engine_runs


@pytest.fixture(autouse=True)
def _fresh_cache():
    clear_cache()
    yield
    clear_cache()


@pytest.fixture(scope="session")
def engine_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    runs = tmp_path_factory.mktemp("engine") / "runs"
    return runs, make_engine_runs(runs)


@pytest.fixture
def smoke_root() -> Path:
    assert SMOKE.is_dir(), f"{SMOKE} is part of the repository; restore it from version control"
    return SMOKE
