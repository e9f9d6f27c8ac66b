"""A hidden name's marks are found in one pass: ``marked`` once matched ``"(.+?)".join(kept parts)`` against the
name, which backtracked for seconds to minutes when the shown form was not the name with pieces replaced (a path
part longer than the redaction's 4096-character cap, holding five tokens, hung every error naming it). Each test
runs under a CPU-time alarm, so the old code fails in seconds instead of hanging the run."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from noesis_nb.errors import quoted_path
from noesis_nb.secrets import for_run
from noesis_nb.secrets.namemarks import _mark, marked
from tests.secrets.cpualarm import cpu_alarm as alarm

_CPU_ALARM_S = 3.0  # the old code took ~10 s for the first case below and minutes for the second
_CPU_BUDGET_S = 0.5  # the new code takes milliseconds; generous for a loaded machine (CPU time, not wall clock)
_ALPHABET = "aB3dE5fG7hJ9kL2mN4pQ6rS8tU0vW1xY3zA5"


def _token(i: int) -> str:
    """A token-shaped text built from parts: no whole credential stands in the repository's text."""
    return "ghp" + "_" + "".join(_ALPHABET[(i + j) % len(_ALPHABET)] for j in range(36))


@pytest.fixture
def cpu_alarm() -> Iterator[None]:
    for_run("ep_x").learn(["sk-learned-" + "Zq8Wx7Ec6Rv5Tb4Yn3Um2"])  # as CI: a process that has learned values
    with alarm(_CPU_ALARM_S, "a name's marks"):
        yield


def _cpu(call, *args):  # type: ignore[no-untyped-def]
    start = time.process_time()
    result = call(*args)
    return result, time.process_time() - start


def test_a_shown_form_that_does_not_fit_the_name_is_marked_by_the_whole_name_at_once(cpu_alarm: None) -> None:
    name, shown = "a_" * 400, "[REDACTED]_" * 4 + "x"
    out, spent = _cpu(marked, name, shown)
    assert spent < _CPU_BUDGET_S, spent
    whole = f"[REDACTED:{_mark(name)}]"
    assert out == (whole + "_") * 4 + "x"


def test_an_error_naming_a_long_path_part_with_five_tokens_is_named_at_once(cpu_alarm: None) -> None:
    part = " . ".join(_token(i) for i in range(5)) + " . " + "a . " * 2000  # ~8 KB: past the redaction's cap
    shown, spent = _cpu(quoted_path, "/data/" + part)
    assert spent < _CPU_BUDGET_S, spent
    assert shown.startswith("/data/[REDACTED") and not any(_token(i) in shown for i in range(5))


def test_each_piece_of_a_fitting_name_is_marked_by_itself(cpu_alarm: None) -> None:
    one, two = _token(1), _token(2)
    out = marked(f"ep_{one}_and_{two}", "ep_[REDACTED]_and_[REDACTED]")
    assert out == f"ep_[REDACTED:{_mark(one)}]_and_[REDACTED:{_mark(two)}]"
    assert _mark(one) != _mark(two)
