"""A duration is rounded before it is split into units: no unit ever reads as its next one's whole (``60.0 s``,
``1 min 60.0 s``, ``1000 ms``), and what is read back is the duration to the shown precision."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from noesis_nb.widgets.state import format_seconds
from noesis_nb.widgets.stepview import format_seconds as step_seconds

_SHOWN = re.compile(r"^(?:(?P<min>\d+) min (?P<s2>\d\d\.\d) s|(?P<s>\d+\.\d) s|(?P<h>\d+) h (?P<hm>\d\d) min)$")


def _read(text: str) -> tuple[float, float]:
    """(seconds, the shown precision) of a header's duration, with each unit under its next one's whole."""
    m = _SHOWN.match(text)
    assert m is not None, text
    if m["s"] is not None:
        assert float(m["s"]) < 60, text
        return float(m["s"]), 0.05
    if m["min"] is not None:
        assert float(m["s2"]) < 60 and 1 <= int(m["min"]) < 60, text
        return int(m["min"]) * 60 + float(m["s2"]), 0.05
    assert int(m["hm"]) < 60 and 1 <= int(m["h"]) < 24, text
    return int(m["h"]) * 3600 + int(m["hm"]) * 60, 60.0


# durations anywhere, and a hair under each whole minute and hour, where a tenth rounded up fills a unit
_NEAR_WHOLE = st.integers(1, 1439).flatmap(lambda k: st.floats(k * 60 - 0.05, k * 60, exclude_max=True))


@given(st.one_of(st.floats(min_value=0, max_value=86_399.9, allow_nan=False), _NEAR_WHOLE))
def test_a_header_duration_reads_back_as_itself_with_no_unit_full(seconds: float) -> None:
    shown, precision = _read(format_seconds(seconds))
    if precision < 1:  # rounded to a tenth
        assert abs(shown - seconds) <= precision + 1e-9
    else:  # hours and minutes: the minutes begun are not counted, the duration rounded to a tenth first
        assert shown <= round(seconds, 1) < shown + precision


def test_the_edges_that_used_to_read_as_a_full_unit() -> None:
    for seconds in (59.95, 59.96, 119.96, 3599.96, 599.99):
        shown = format_seconds(seconds)
        assert "60.0 s" not in shown and not shown.startswith("60 min"), shown
        assert abs(_read(shown)[0] - seconds) <= 0.05 + 1e-9 or seconds >= 3599.95, shown
    assert step_seconds(0.9996) == "1.0 s" and step_seconds(0.9994) == "999 ms"
    assert format_seconds(-0.01) == format_seconds(0.0)  # a clock's slip of a few ms is no "-0.0 s"


@given(st.one_of(st.floats(min_value=0, max_value=59.9, allow_nan=False), st.floats(0.9995, 1.0, exclude_max=True)))
def test_a_step_duration_is_milliseconds_only_under_a_whole_second(seconds: float) -> None:
    shown = step_seconds(seconds)
    if shown.endswith(" ms"):
        assert int(shown[:-3]) < 1000 and abs(int(shown[:-3]) / 1000 - seconds) <= 0.0005 + 1e-9, shown
    else:
        assert abs(_read(shown)[0] - seconds) <= 0.05 + 1e-9, shown


def test_an_endless_or_huge_duration_reads_as_unknown_or_in_days_never_raises() -> None:
    for endless in (float("inf"), float("-inf"), float("nan")):
        assert format_seconds(endless) == "—" and step_seconds(endless) == "?"
    for huge in (1e306, 1.7e308):  # a step's milliseconds overflow to infinity; its days are still counted
        assert format_seconds(huge).endswith(" h") and step_seconds(huge) == format_seconds(huge)
