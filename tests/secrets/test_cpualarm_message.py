"""The CPU alarm's failure names its budget and the run it timed, also when used by a fixture: pytest does not throw
a test body's exception into a fixture's generator, so the ``OverBudget`` raised there must say so by itself."""

from __future__ import annotations

import time

import pytest

from tests.secrets.cpualarm import OverBudget, cpu_alarm


def _spin(seconds: float) -> None:
    start = time.process_time()
    while time.process_time() - start < seconds:
        pass


def test_an_alarm_past_its_budget_fails_naming_the_budget_and_the_run() -> None:
    with pytest.raises(pytest.fail.Exception, match=r"over 0\.05 s CPU on a busy loop"):
        with cpu_alarm(0.05, "a busy loop"):
            _spin(5.0)


def test_what_a_fixture_alarm_raises_in_a_test_body_names_the_budget_and_the_run() -> None:
    alarm = cpu_alarm(0.05, "a fixture's run")
    alarm.__enter__()  # as a generator fixture holds it: the test body runs outside its ``try``
    try:
        with pytest.raises(OverBudget, match=r"over 0\.05 s CPU on a fixture's run"):
            _spin(5.0)
    finally:
        alarm.__exit__(None, None, None)
