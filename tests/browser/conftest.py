"""One isolated JupyterLab for all browser tests of a session (starting one costs seconds on 2 cores)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .lab import CHROMIUM, chromium_page, jupyter_server


@pytest.fixture(scope="session")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """``{"base", "token", "root", "tmp"}`` of a JupyterLab serving ``root`` (notebooks are written there)."""
    if CHROMIUM is None:
        pytest.skip("Debian's chromium is not installed")
    pytest.importorskip("playwright.sync_api")
    tmp = tmp_path_factory.mktemp("lab")
    root = tmp / "root"
    root.mkdir()
    with jupyter_server("lab", root, tmp) as (base, token):
        yield {"base": base, "token": token, "root": root, "tmp": tmp}


@pytest.fixture
def page(lab: dict[str, Any], tmp_path: Path) -> Iterator[Any]:
    """A fresh chromium page (a screenshot lands in the test's tmp dir when it fails)."""
    with chromium_page(tmp_path, height=1400) as p:
        yield p
