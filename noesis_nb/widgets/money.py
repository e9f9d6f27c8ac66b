"""Dollars as the views show them: cents for dollars, two significant digits at least for what a call costs."""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

__all__ = ["money"]

_FINEST = 8  # the least cost shown, in decimals: a hundred-millionth of a dollar, below a token's price at any provider


def money(value: float, *, signed: bool = False) -> str:
    """``$1,234.57``, ``$0.125``, ``$0.031``, ``$0.0031``, ``$0.00015``, ``$0.0000045``.

    Below a cent a cost keeps two significant digits, whatever its size: a call of a few millionths of a dollar is
    not shown as ``$0.0000`` (it read as free), and a dearer call never shows fewer digits than a cheaper one
    (``$0.000149`` read ``$0.0001`` beside ``$0.000099``), so the steps add up to the header. Below zero
    ``-$0.0031``; ``signed`` (a difference) ``+$0.0031`` too."""
    sign = "-" if value < 0 else ("+" if signed and value > 0 else "")
    size = abs(float(value))  # a numpy float too: its repr ("np.float64(…)") is no decimal
    if math.isnan(size) or math.isinf(size):
        return f"{sign}${size}"
    if 0 < size < 10**-_FINEST:  # below the least cost shown: say so rather than print a zero
        return f"<{sign}${10**-_FINEST:.{_FINEST}f}"
    digits = _digits(size)
    rounded = float(digits.replace(",", ""))
    if 0 < size < 1 and _band(rounded) != _band(size):  # $0.9999 → $1.00, $0.00999 → $0.010, not $1.000 / $0.0100
        digits = _digits(rounded)
    return f"{sign}${digits}"


def _digits(size: float) -> str:
    """``size`` rounded half up as it reads (``repr``, the shortest decimal that is this float): ``$0.000175`` and
    ``$0.00175`` both round their last 5 up (binary rounding took one up and the other down)."""
    if size == 0:
        return "0.0000"
    shown = repr(size)
    if shown.partition("e")[0][-1] == "5":  # only a written half can round wrong in binary: the rest keep the format
        try:
            rounded = Decimal(shown).quantize(Decimal(1).scaleb(-_places(size)), rounding=ROUND_HALF_UP)
            return f"{rounded:,}" if size >= 1 else f"{rounded:f}"
        except InvalidOperation:  # more digits than Decimal's context holds (about 1e26 dollars and up)
            pass
    if size >= 1:
        return f"{size:,.2f}"
    if size >= 0.01:
        return f"{size:.3f}"
    return f"{size:.{_places(size)}f}"


def _places(size: float) -> int:
    """Decimals shown: cents for dollars, three below a dollar, and two significant digits below a cent down to the
    least cost shown ($0.000000013, not $0.00000001, a quarter low)."""
    return 2 if size >= 1 else 3 if size >= 0.01 else 1 - math.floor(math.log10(size))


def _band(size: float) -> int:
    """Which rule writes ``size``: dollars, cents, or (below a cent) its power of ten, so $0.0000995 → $0.00010."""
    return 2 if size >= 1 else 1 if size >= 0.01 else -100 if size == 0 else math.floor(math.log10(size))
