"""The short-name, command-flag and URL-key forms stay linear on a megabyte of hostile text.

A command's flag was looked for from its word to the command's end: a line of ``sshpass sshpass …`` read the rest of
the line from each word (100 KB took 9 s of CPU, a megabyte would take minutes); ``ldapsearch …`` and ``7z a …``
alike. It is now looked for within 300 characters of the word. Each shape below, a megabyte long, costs at most a few
times a megabyte of ``password: a `` (a name and a short value over and over, which every name rule reads), in CPU
time in this process; a CPU-time alarm ends a run past the bound instead of waiting for it."""

from __future__ import annotations

import itertools

import pytest

from noesis_nb.secrets import guard
from noesis_nb.secrets.text import find_in_text
from tests.secrets.cpualarm import cpu_seconds

_SIZE = 1_000_000
_FRESH = itertools.count()  # each text new: a long text read before is remembered


def _fill(unit: str) -> str:
    return f"{next(_FRESH)} " + (unit * (_SIZE // len(unit) + 1))[:_SIZE]


@pytest.fixture(scope="module")
def baseline() -> float:
    """CPU seconds for a megabyte of ``password: a ``."""
    guard.for_run("ep_flag_forms_linear").learn(["Zq8-learned-Vw3x"])  # as a process that has learned secrets
    return cpu_seconds(find_in_text, _fill("password: a "), budget=120.0)


@pytest.mark.parametrize(
    "unit",
    [
        "pw=",
        "-pw ",
        "--pwd a ",
        'pwd="',
        "ldapsearch ",
        "sshpass ",
        "7z a ",
        "htpasswd -b ",
        ":6379> AUTH ",
        "mongosh ",
        "?key=abc-",
        # a value going on past ``& ; , ) ] }`` (``DB_PASSWORD=Tr0ub4dor&3xyzQ``), and each ending it before a name
        "password=a&b;c,d)e]f}g",
        "DB_PW=x&",
        "pw=a&b=",
        "password=a;b,c=",
        "token:a,",
        "key=a&&",
        "?password=a&b&",
        "=a&a",
        "a: password=b&",  # a name and its sign starting a value: read again from there
        "a=b=",
    ],
)
def test_a_megabyte_of_a_flag_or_short_name_form_costs_a_few_times_plain_assignments(unit: str, baseline: float) -> None:
    budget = 4 * baseline + 0.5
    took = cpu_seconds(find_in_text, _fill(unit), budget=budget)
    assert took <= budget, (took, baseline)
