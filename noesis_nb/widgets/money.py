"""Dollars as the views show them: cents for dollars, more digits for the fractions of a cent a call costs."""

from __future__ import annotations

__all__ = ["money"]


def money(value: float, *, signed: bool = False) -> str:
    """``$1,234.57``, ``$0.125``, ``$0.0031``, ``$0.000005``: a call's cost of a few millionths of a dollar is not
    shown as ``$0.0000`` (it read as free). Below zero ``-$0.0031``; ``signed`` (a difference) ``+$0.0031`` too."""
    sign = "-" if value < 0 else ("+" if signed and value > 0 else "")
    size = abs(value)
    if size >= 1:
        digits = f"{size:,.2f}"
    elif size >= 0.01:
        digits = f"{size:.3f}"
    else:
        digits = f"{size:.4f}" if size >= 0.0001 or size == 0 else f"{size:.6f}"
    return f"{sign}${digits}"
