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


def test_every_view_prices_with_the_same_words() -> None:
    """The episode header, the batch grid and the step rows share ``money``: no view says a call is free."""
    from noesis_nb.widgets import batchgrid, meter, stepview

    for module in (batchgrid, meter, stepview):
        assert module.money is money
