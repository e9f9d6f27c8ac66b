"""A CPU-time alarm for the linear-time tests: a run past its budget ends the test at once (a failure naming what
ran) instead of hanging the suite, and the time is measured in CPU seconds of this process, which a loaded machine
moves much less than the clock."""

from __future__ import annotations

import signal
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest


class OverBudget(Exception):
    """Raised in the code under test when the alarm goes off (caught by ``cpu_alarm``). Its message names the budget
    and the run, so a failure reads so even where nothing catches it (a fixture's alarm: pytest does not throw a
    test body's exception into the fixture)."""


def _stopper(budget: float, what: str) -> Callable[[int, object], None]:
    def stop(signum: int, frame: object) -> None:
        raise OverBudget(f"over {budget:.2f} s CPU on {what}")

    return stop


@contextmanager
def cpu_alarm(budget: float, what: str) -> Iterator[None]:
    """Fail the test once the block has used ``budget`` seconds of CPU (``what``: the run the failure names)."""
    before = signal.signal(signal.SIGPROF, _stopper(budget, what))
    signal.setitimer(signal.ITIMER_PROF, budget)
    try:
        yield
    except OverBudget as over:
        pytest.fail(str(over))
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, before)


def cpu_seconds(fn: Callable[..., Any], *args: Any, budget: float) -> float:
    """CPU seconds ``fn(*args)`` took, under ``cpu_alarm(budget)``."""
    with cpu_alarm(budget, ", ".join(f"{a[:40]!r}…" if isinstance(a, str) else repr(a)[:40] for a in args)):
        started = time.process_time()
        fn(*args)
        return time.process_time() - started
