"""A time written as text means one instant everywhere: in every frame, at every load, whatever was read beside it.

Runs are written by the engine or by hand, then given times in the forms a hand-edited or
foreign run holds: basic ISO, offsets, week dates, fractions of nine digits, years at the edge
of the calendar. Each test failed before the frames shared one rule (``frames.timetext``).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from noesis_nb.cost import _stamps
from noesis_nb.frames import RunLoadError, _arrays, clear_cache, events_df, runs_df, timetext, tools_df, usage_df
from noesis_nb.frames.isotimes import TimeColumn
from noesis_nb.frames.runrecord import _one_day
from noesis_nb.frames.runusage import _day
from noesis_nb.frames.values import is_time

from ..frames.runkit import basic_events, event, hand_summary, write_run

FRAMES = (runs_df, events_df, usage_df, tools_df)


@pytest.fixture(autouse=True)
def _fresh_cache():
    clear_cache()
    yield
    clear_cache()


def _iso_like() -> st.SearchStrategy[str]:
    """Text near the ISO-8601 forms: every date/time/offset shape, fields in and out of range, stray separators."""
    two = st.integers(0, 99).map("{:02d}".format)
    year = st.sampled_from(["0000", "0001", "1500", "1677", "1970", "2025", "2262", "9999"])
    sep = st.sampled_from(["-", ""])
    time_sep = st.sampled_from(["T", "t", " ", "X", ""])
    fraction = st.sampled_from(["", ".5", ",5", ".123456", ".123456789", "."])
    offset = st.sampled_from(["", "Z", "z", "+00:00", "-05:00", "+05:30", "+0530", "+05", "+24:00", "+05:30:15", "-23:59"])
    week = st.sampled_from(["2025-W09-6", "2025W096", "2025-060"])
    dates = st.one_of(st.builds(lambda y, s, m, d: f"{y}{s}{m}{s}{d}", year, sep, two, two), week)
    times = st.builds(lambda h, m, s, f: f"{h}:{m}:{s}{f}", two, two, two, fraction) | st.builds(lambda h, m: f"{h}{m}", two, two)
    full = st.builds(lambda d, t_sep, t, o: f"{d}{t_sep}{t}{o}", dates, time_sep, times, offset)
    return st.one_of(full, dates, st.sampled_from(["now", "today", "2025-03-01T10:00:00+05:30"]))


@settings(max_examples=300, deadline=None)
@given(st.lists(_iso_like(), min_size=1, max_size=6))
def test_a_time_reads_the_same_alone_or_beside_others(values: list[str]) -> None:
    """Before: one nine-digit fraction in a batch made pandas read every time beside it at nanoseconds, so a
    year-1500 time became NaT (an events_df value depended on the other lines of the load)."""
    together = _arrays.iso_to_utc(values)
    for i, value in enumerate(values):
        alone = _arrays.iso_to_utc([value]).iloc[0]
        assert (together.iloc[i] is pd.NaT and alone is pd.NaT) or together.iloc[i] == alone, value
        assert is_time(value) == (alone is not pd.NaT), value  # what the checks call a time is what the frames read
    column = TimeColumn()
    column.extend(values)
    built, _ = column.build()
    pd.testing.assert_extension_array_equal(built, together.array)  # the fast path agrees
    with_arrow = pd.Series(_arrays.to_pandas("datetime", _arrays.timestamps(values)))
    pd.testing.assert_series_equal(with_arrow, together, check_names=False)  # and the pyarrow install


@settings(max_examples=300, deadline=None)
@given(_iso_like(), st.one_of(st.integers(0, 86399), st.floats(0, 86399.9)))
def test_the_pricing_day_is_the_day_the_call_is_priced_on(value: str, duration: float) -> None:
    """``_day`` (which decides whether a run's per-model sums can stand for its calls) reads a time as
    ``price_frame`` does. Before: a week date ``2025-W09-6T10:00:00Z`` had a day for one and meant "now" for
    the other; ``9999-12-31T23:59:59-05:00`` raised OverflowError."""
    stamp = _stamps(pd.Series([value], dtype=object), 1)[0]
    now = int(datetime.now(UTC).timestamp() * 1e6)
    day = _day(value)
    if day is None:
        assert abs(stamp - now) < 60e6  # unknown: priced as a call without a time
    else:
        assert stamp // 86_400_000_000 == (day - datetime(1970, 1, 1, tzinfo=UTC)).days
    _one_day(value, duration)  # never raises


def _priced_summary(ep: str, started_at: str) -> dict:
    doc = hand_summary(ep, task="t", started_at=started_at, duration=10.0, status="ok")
    doc["x-noesis_nb"] = {
        "usage": {
            "model_calls": 1,
            "by_model": [
                {"model": "gpt-4o", "provider": "openai", "model_calls": 1, "input_tokens": 1000, "output_tokens": 100}
                | dict.fromkeys(("cached_input_tokens", "cache_write_input_tokens", "reasoning_tokens"), 0)
            ],
        }
    }
    return doc


@pytest.mark.parametrize("started_at", ["9999-12-31T23:59:59-05:00", "0001-01-01T00:00:00+05:00", "9999-12-31T23:59:59+00:00"])
def test_a_start_time_at_the_edge_of_the_calendar_never_stops_a_load(tmp_path: Path, started_at: str) -> None:
    """Before: runs_df raised OverflowError (non-strict) deciding whether the run stayed within one UTC day."""
    root = tmp_path / "runs"
    write_run(root, "edge", basic_events("edge"), summary=_priced_summary("edge", started_at))
    for frame in FRAMES:
        frame(root, cache=False)
    df = runs_df(root, cache=False)
    reported = [e for e in df.attrs["errors"] if "started_at" in e["reason"]]
    # said so when it cannot be read, and then taken from the run's first event (d8c8f8a6), never left unknown
    first = pd.Timestamp(basic_events("edge")[0]["timestamp"])
    assert df["started_at"][0] is not pd.NaT and (df["started_at"][0] == first) == bool(reported), df["started_at"][0]
    if reported:
        assert reported[0]["path"].endswith("summary.json")
        with pytest.raises(RunLoadError, match="summary.json"):
            runs_df(root, strict=True, cache=False)
    pd.testing.assert_frame_equal(runs_df(root), df)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(_iso_like())
def test_a_start_time_is_read_or_reported_never_dropped(tmp_path_factory, started_at: str) -> None:
    """A summary's ``started_at`` becomes that time, or the run's first event's time with a report naming it.
    Before: a week date, a comma fraction or an offset with seconds passed the check and became NaT silently, beside
    an ``ended_at`` computed from it."""
    root = tmp_path_factory.mktemp("runs")
    write_run(root, "ep", basic_events("ep"), summary=hand_summary("ep", task="t", started_at=started_at, status="ok"))
    df = runs_df(root, cache=False)
    reported = any("started_at" in e["reason"] for e in df.attrs["errors"])
    first = pd.Timestamp(basic_events("ep")[0]["timestamp"])
    assert df["started_at"][0] is not pd.NaT, df.attrs["errors"]
    if reported:  # the run's first event's time, not a time read from a text that is none
        assert df["started_at"][0] == first, (started_at, df["started_at"][0])


def test_an_event_time_does_not_depend_on_the_lines_beside_it(tmp_path: Path) -> None:
    """An old time and a time with a nine-digit fraction in one log: each is read as it is read alone (the old time
    opens the log, as a step back in time is a problem of its own)."""
    root = tmp_path / "runs"
    events = basic_events("ep")
    events[0]["timestamp"] = "1500-01-01T00:00:00+00:00"
    alone = write_run(root, "alone", [dict(e, episode_id="alone") for e in events])
    events[2]["timestamp"] = "2025-03-01T10:00:20.123456789+00:00"
    write_run(root, "beside", [dict(e, episode_id="beside") for e in events])
    df = events_df(root, cache=False)
    old = df[df["timestamp"].dt.year == 1500]
    assert sorted(old["episode_id"]) == ["alone", "beside"]
    assert not df.attrs["errors"]
    assert df.loc[df["episode_id"] == "beside", "timestamp"].iloc[2] == pd.Timestamp("2025-03-01T10:00:20.123456Z")
    assert events_df(alone, cache=False)["timestamp"].iloc[0] == pd.Timestamp("1500-01-01T00:00:00Z")


def test_a_tool_decision_time_reads_as_the_events_do(tmp_path: Path) -> None:
    """``decided_at`` in an approval record: the same rule as every other time (a word or a week date is unknown)."""
    root = tmp_path / "runs"
    run = write_run(root, "ep", basic_events("ep"))
    folder = run / "tool_invocations"
    for kind in ("prepared", "approvals"):
        (folder / kind).mkdir(parents=True)
    (folder / "prepared" / "d1.json").write_text(
        json.dumps({"draft_id": "d1", "tool": "fs.write@1", "status": "approved", "created_at": "2025-03-01T10:00:00Z"})
    )
    for decided, want in (("now", None), ("2025-W09-6T10:00:00Z", None), ("20250301T100500Z", "2025-03-01T10:05:00Z")):
        (folder / "approvals" / "d1.json").write_text(
            json.dumps({"draft_id": "d1", "decision": "approve", "decided_at": decided, "approver": "me"})
        )
        clear_cache()
        got = tools_df(root, cache=False)["decided_at"]
        assert (got[0] is pd.NaT) if want is None else got[0] == pd.Timestamp(want), decided
        assert np.array_equal(got.isna(), tools_df(root)["decided_at"].isna())


def test_runs_df_over_unsealed_runs_with_odd_call_times_equals_usage_df(tmp_path: Path) -> None:
    """Calls timed in every form, in a run killed before it was sealed beside a sealed one: each call's time and
    cost in runs_df are usage_df's."""
    root = tmp_path / "runs"
    write_run(root, "sealed", basic_events("sealed"), summary=_priced_summary("sealed", "2025-03-01T10:00:00+00:00"))
    events = basic_events("live")
    for at, ts in ((2, "20250301T100020Z"), (3, "2025-03-01T10:00:30.123456789+05:30")):
        events[at]["timestamp"] = ts
        events[at]["payload"].update(model="gpt-4o", provider="openai")  # priced (acme is no provider genai-prices knows)
    events.append(event("live", 9, "model", dict(events[2]["payload"]), ts="1500-01-01T00:00:00+00:00"))
    write_run(root, "live", events)
    runs = runs_df(root, cache=False).set_index("episode_id")
    usage = usage_df(root, cache=False)
    assert not usage["timestamp"].isna().any()
    by_run = usage.groupby("episode_id", observed=True)["cost_usd"].sum()
    assert runs.loc["live", "cost_usd"] == pytest.approx(by_run["live"])
    assert runs.loc["live", "model_calls"] == 3


def _written_shape() -> st.SearchStrategy[str]:
    """Text in the writer's shape (``YYYY-MM-DDTHH:MM:SS[.ffffff](Z|±HH:MM)``), fields at and past their edges."""

    def near(*edges: str) -> st.SearchStrategy[str]:
        return st.sampled_from(edges) | st.integers(0, 99).map("{:02d}".format)

    year = st.sampled_from(["0000", "0001", "1900", "1970", "2024", "2025", "9999"]) | st.integers(0, 9999).map("{:04d}".format)
    month, day = near("00", "01", "02", "12", "13"), near("00", "01", "28", "29", "30", "31", "32")
    hour, minute, second = near("00", "19", "23", "24"), near("00", "59", "60"), near("00", "59", "60")
    fraction = st.sampled_from(["", ".000000", ".999999", ".202000"])
    offset = st.sampled_from(["Z", "+00:00", "-00:00", "-05:00", "+05:30", "+23:59", "-23:59", "+24:00", "+05:60"])
    shape = "{}-{}-{}T{}:{}:{}{}{}"
    return st.builds(lambda *parts: shape.format(*parts), year, month, day, hour, minute, second, fraction, offset)


@settings(max_examples=1000, deadline=None)
@given(_written_shape())
def test_a_time_in_the_writers_shape_reads_as_the_rule_says(value: str) -> None:
    """The C parser that reads the writer's shape gives the rule's instant, and refuses what the rule refuses
    (a leap second, 24:00, year 0, a day that does not exist, an offset of 24 hours, an instant past year 9999)."""
    assert timetext.utc_micros(value) == timetext.by_rule(value), value
