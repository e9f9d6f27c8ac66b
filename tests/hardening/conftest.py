"""The hardening suite: every test under tests/hardening carries the ``hardening`` marker (CI selects it with -m)."""

from __future__ import annotations

from pathlib import Path

import pytest

from noesis_nb.frames import clear_cache

_HERE = Path(__file__).parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if _HERE in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.hardening)


@pytest.fixture(autouse=True)
def _fresh_frames_cache():
    clear_cache()
    yield
    clear_cache()


def pytest_terminal_summary(terminalreporter) -> None:  # noqa: ANN001 - pytest's hook signature
    """Print the mutated-runs figures (the README quotes them) when that suite ran."""
    import sys

    module = sys.modules.get("tests.hardening.test_mutated_runs")
    figures = getattr(module, "FIGURES", None)
    if figures and figures.get("examples"):
        terminalreporter.write_line("hardening, mutated runs: " + ", ".join(f"{k}: {v}" for k, v in figures.items()))
