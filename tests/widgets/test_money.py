"""Costs in the views: a call of a few millionths of a dollar is not shown as ``$0.0000`` (it read as free)."""

from __future__ import annotations

import pytest

from noesis_nb.widgets.money import money


@pytest.mark.parametrize(
    "value, shown",
    [
        (4.5e-6, "$0.000005"),  # 10 input and 5 output tokens of a small model
        (0.0, "$0.0000"),
        (0.00042, "$0.0004"),
        (0.0312, "$0.031"),
        (0.125, "$0.125"),
        (1234.567, "$1,234.57"),
    ],
)
def test_a_cost_keeps_the_digits_that_say_what_it_is(value: float, shown: str) -> None:
    assert money(value) == shown


@pytest.mark.parametrize(
    "value, shown",
    [(-0.0312, "-$0.031"), (-1234.567, "-$1,234.57"), (-4.5e-6, "-$0.000005"), (0.0, "$0.0000"), (0.00042, "+$0.0004")],
)
def test_a_difference_of_costs_carries_its_sign_before_the_dollar(value: float, shown: str) -> None:
    assert money(value, signed=True) == shown


def test_a_negative_cost_is_not_written_inside_the_digits() -> None:
    assert money(-5.0) == "-$5.00" and money(-0.02) == "-$0.020"  # not "$-5.000000"


def test_every_view_prices_with_the_same_words() -> None:
    """The episode header, the batch grid, the step rows and the replay comparison share ``money``: no view says a
    call is free, none writes ``0.000000 $``."""
    from noesis_nb.widgets import batchgrid, meter, replaycompare, stepview

    for module in (batchgrid, meter, stepview):
        assert module.money is money
    assert replaycompare.money_text is money
