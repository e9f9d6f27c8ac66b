"""The readings of a quoted value's start (a string's prefix, triple quotes, a type annotation, a wrapper, a pair), of
a quote inside a value and of Cookie headers stay linear on 100 KB of hostile text: each shape below costs at most a
few times as much CPU as the same size of ``password: a `` (a name and a short value over and over, which every name
rule reads), measured in this process; a CPU-time alarm ends a run past the bound instead of waiting for it."""

from __future__ import annotations

import itertools

import pytest

from noesis_nb.secrets import guard
from noesis_nb.secrets.text import find_in_text
from tests.secrets.cpualarm import cpu_seconds

_SIZE = 100_000
_FRESH = itertools.count()  # each text new: a long text read before is remembered


def _fill(unit: str) -> str:
    return f"quoted-starts {next(_FRESH)} " + (unit * (_SIZE // len(unit) + 1))[:_SIZE]  # (no text another module read)


def _cpu(text: str, budget: float) -> float:
    """CPU seconds ``find_in_text(text)`` took; fails the test once it passes ``budget`` (a CPU-time alarm)."""
    return cpu_seconds(find_in_text, text, budget=budget)


@pytest.fixture(scope="module")
def baseline() -> float:
    """CPU seconds for 100 KB of ``password: a ``, in a process that has learned a secret."""
    guard.for_run("ep_quoted_starts_linear").learn(["Zq8-learned-Vw3x"])
    return min(_cpu(_fill("password: a "), budget=60.0) for _ in range(2))


@pytest.mark.parametrize(
    "unit",
    [
        "password = b'",  # a prefix and a quote never closed
        'password = rb"x',
        "password=b'a",
        "password = '''",
        'password = """a',
        "password = N'",
        'password = @"',
        "password = f'{",
        "password: str = '",  # annotations
        "password: a[",
        "password: Optional[str",
        "password: a | b | c | d = ",
        ": x[a, b, [c",
        "password = SecretStr('",  # a wrapper
        "('password', b'",  # pairs
        "[('token', '",
        "password = 'a\\'",  # escaped quotes
        'password = "a\\\\\\"',
        '\\"password\\": \\"a\\\\\\"',
        "password: a'b'",  # quotes inside a value
        "DB_PASSWORD=a'",
        "--password a'b\"c'",
        "password=a'b;c'd&e'",
        "Cookie: a=b; ",  # cookies
        "cookie: a=",
        "Set-Cookie: a=b; c",
        "curl -b ",
        "curl --cookie a=b; ",
    ],
)
def test_100_kb_of_a_quoted_start_or_cookie_form_costs_a_few_times_plain_assignments(unit: str, baseline: float) -> None:
    budget = 4 * baseline + 0.5
    took = _cpu(_fill(unit), budget=budget)
    assert took <= budget, (took, baseline)


@pytest.mark.parametrize("unit", ["password = b'", "password: str = '", "Cookie: a=b; ", "('password', '", "password: a'b"])
def test_a_quoted_start_form_grows_linearly(unit: str) -> None:
    """Ten times the text costs about ten times as much (not a hundred)."""
    small = min(_cpu(_fill(unit)[: _SIZE // 10], budget=30.0) for _ in range(3))
    large = min(_cpu(_fill(unit), budget=60.0) for _ in range(2))
    assert large <= 30 * small + 0.3, (small, large)
