"""The hardening suite: every test here is marked ``hardening``; its figures print after the run."""

from __future__ import annotations

import pytest

from .report import FIGURES


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/hardening/" in str(item.fspath).replace("\\", "/"):
            item.add_marker(pytest.mark.hardening)


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    if not FIGURES:
        return
    terminalreporter.section("hardening figures")
    for title, values in FIGURES:
        terminalreporter.write_line(f"{title}: " + ", ".join(f"{k} {v}" for k, v in values.items()))
