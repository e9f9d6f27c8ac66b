"""Dollars as the views show them: cents for dollars, more digits for the fractions of a cent a call costs."""

from __future__ import annotations

__all__ = ["money"]


def money(value: float) -> str:
    """``$1,234.57``, ``$0.125``, ``$0.0031``, ``$0.000005``: a call's cost of a few millionths of a dollar is not
    shown as ``$0.0000`` (it read as free)."""
    if value >= 1:
        return f"${value:,.2f}"
    if value >= 0.01:
        return f"${value:.3f}"
    return f"${value:.4f}" if value >= 0.0001 or value == 0 else f"${value:.6f}"
