"""Figures the hardening suite measures, printed at the end of the test run (docs/hardening.md quotes them)."""

from __future__ import annotations

FIGURES: list[tuple[str, dict[str, object]]] = []


def figures(title: str, values: dict[str, object]) -> None:
    FIGURES.append((title, values))  # printed at the end of the run: a caller may keep counting into ``values``
