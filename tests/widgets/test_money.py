"""Costs in the views: a call of a few millionths of a dollar is not shown as ``$0.0000`` (it read as free)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from noesis_nb.widgets.money import money


@pytest.mark.parametrize(
    "value, shown",
    [
        (4.5e-6, "$0.0000045"),  # 10 input and 5 output tokens of a small model
        (0.0, "$0.0000"),
        (0.00042, "$0.00042"),
        (0.000149, "$0.00015"),  # was $0.0001 beside $0.000099 for a cheaper call
        (0.9999, "$1.00"),
        (0.00999, "$0.010"),
        (1e-12, "<$0.00000001"),
        (1.3433274137014397e-08, "$0.000000013"),  # was $0.00000001: one digit, a quarter low
        (5.5e-08, "$0.000000055"),  # was $0.00000006
        (1e-08, "$0.000000010"),  # the least cost shown
        (9.96e-08, "$0.00000010"),
        (9.95e-05, "$0.00010"),  # two digits across a power of ten too, not $0.000100
        (0.0312, "$0.031"),
        (0.125, "$0.125"),
        (1234.567, "$1,234.57"),
        (0.000175, "$0.00018"),  # was $0.00017 (binary rounding) beside $0.0018 for ten times it
        (0.00175, "$0.0018"),
        (1.005, "$1.01"),  # was $1.00: half a cent rounds up, as the value reads
    ],
)
def test_a_cost_keeps_the_digits_that_say_what_it_is(value: float, shown: str) -> None:
    assert money(value) == shown


@pytest.mark.parametrize(
    "value, shown",
    [(-0.0312, "-$0.031"), (-1234.567, "-$1,234.57"), (-4.5e-6, "-$0.0000045"), (0.0, "$0.0000"), (0.00042, "+$0.00042")],
)
def test_a_difference_of_costs_carries_its_sign_before_the_dollar(value: float, shown: str) -> None:
    assert money(value, signed=True) == shown


def test_a_negative_cost_is_not_written_inside_the_digits() -> None:
    assert money(-5.0) == "-$5.00" and money(-0.02) == "-$0.020"  # not "$-5.000000"
    assert money(-float("inf")) == "-$inf"


def test_every_view_prices_with_the_same_words() -> None:
    """The episode header, the batch grid, the step rows and the replay comparison share ``money``: no view says a
    call is free, none writes ``0.000000 $``."""
    from noesis_nb.widgets import batchgrid, meter, replaycompare, stepview

    for module in (meter, stepview):
        assert module.money is money
    assert batchgrid.cost_words is meter.cost_words  # the grid's header and lines say a cost as the episode header does
    assert replaycompare.money_text is money


@given(st.floats(min_value=1e-8, max_value=1e6))
@example(1.3433274137014397e-08)  # a rare draw found it: below $0.0000001 a cost was shown with one digit
def test_a_cost_is_shown_within_five_percent_whatever_its_size(value: float) -> None:
    """Two significant digits at least, on both sides of every boundary: no cost reads a third low because it crossed
    $0.0001, and the steps of a run add up to its header."""
    shown = float(money(value).removeprefix("$").replace(",", ""))
    assert abs(shown - value) <= 0.05 * value, (value, money(value))


@pytest.mark.parametrize("head", range(10, 100))
def test_a_half_rounds_the_same_way_at_every_size(head: int) -> None:
    """Below a cent a cost keeps two digits, and one ending in a half keeps the same two at every power of ten:
    ``$0.000175`` and ``$0.00175`` both round up (``money`` rounds the value as it reads, half up)."""
    shown = {money(float(f"{head}5e-{places}")).lstrip("$0.") for places in range(5, 11)}
    assert shown == {str(head + 1)} if head < 99 else shown == {"10"}, shown


@pytest.mark.parametrize(
    "value, shown",
    [
        (np.float64(0.000175), "$0.00018"),  # a pandas cell: its repr is "np.float64(...)", no decimal
        (np.float32(0.5), "$0.500"),
        (np.float64(1234.5), "$1,234.50"),
        (1e30, "$1,000,000,000,000,000,019,884,624,838,656.00"),  # more digits than Decimal's context: as formatted
        (1e26, "$100,000,000,000,000,004,764,729,344.00"),
        (-1e30, "-$1,000,000,000,000,000,019,884,624,838,656.00"),
        (float("nan"), "$nan"),
        (float("inf"), "$inf"),
        (-float("inf"), "-$inf"),
        (-0.0, "$0.0000"),
        (-0.000175, "-$0.00018"),
        (np.float64(-1.005), "-$1.01"),
    ],
)
def test_any_float_is_shown_without_raising(value: float, shown: str) -> None:
    """A numpy float, a sum past 1e26 and the odd values all print (they raised InvalidOperation)."""
    assert money(value) == shown
