"""Looking back for the secret a braced value sits in (``PWD={k3={q7}}zP}``) stays linear in the text's length.

Each braced value walked back over every ``={`` within 1,024 characters of its line, rescanning from each one for a
closing ``}``: a 14 KB line of ``b={c}}}`` (a ``}}}`` is no single ``}``, so nothing stopped the walk) took seconds
to screen. A megabyte of each hostile shape now costs at most a few times a megabyte of plain braced values, in CPU
time in this process (load moves both alike); a CPU-time alarm ends a run past the bound instead of waiting for it.
"""

from __future__ import annotations

import pytest

from noesis_nb.secrets import REDACTED_VALUE, guard, pairs, shown
from tests.secrets.cpualarm import cpu_seconds

_SIZE = 1_000_000


def _fill(unit: str) -> str:
    return (unit * (_SIZE // len(unit) + 1))[:_SIZE]


def _read(text: str) -> None:
    for _ in pairs.named_values(text):
        pass


@pytest.fixture(scope="module")
def baseline() -> float:
    """CPU seconds for a megabyte of plain braced values (as many as below, each closed before the next)."""
    guard.for_run("ep_braced_linear").learn(["Zq8-learned-Vw3x"])  # as a process that has learned secrets
    return min(cpu_seconds(_read, _fill("b={c};;"), budget=60.0) for _ in range(3))


@pytest.mark.parametrize(
    "hostile",
    [
        _fill("b={c}}}"),  # no single ``}``: the walk went back over every ``={`` of the window
        "password={" + _fill("b={c}}}"),
        _fill("PWD={" + "a={" * 20 + "b={c}}}"),  # a secret behind a run of other ``={``, found for each value
        _fill("a={" * 300 + "b={c}"),
        "password" + _fill("x={"),
        _fill("}}"),
    ],
    ids=["b={c}}}", "password={ b={c}}}", "PWD={ a={ b={c}}}", "a={ x300 b={c}", "password x={", "}}"],
)
def test_a_megabyte_of_braces_costs_a_few_times_plain_braced_values(hostile: str, baseline: float) -> None:
    took = min(cpu_seconds(_read, hostile, budget=10 * baseline + 0.05) for _ in range(2))
    assert took <= 10 * baseline + 0.05, (took, baseline)


def test_the_secret_around_a_braced_value_is_still_found_on_a_long_line() -> None:
    noise = "b={c}}}" * 3000
    text = f"{noise};Server=db;PWD={{k3={{q7}}}}zP}};Database=app;{noise}"
    assert f"PWD={{{REDACTED_VALUE}}};Database=app" in shown(text)
    assert "k3={q7}}zP" in list(pairs.named_values(text))


def test_a_value_closed_by_a_doubled_brace_and_its_close_ends_there() -> None:
    # ``}}}`` is an escaped ``}`` and the close: ``y={b}`` stands after the password, not in it
    assert list(pairs.named_values("Server=db;PWD={x={a}}}y={b};Database=app")) == ["x={a}}", "x={a}"]
