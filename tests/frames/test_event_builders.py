"""The compact event builder (codes, fixed-width timestamp bytes: the default without pyarrow) against the list builder.

``Batch(compact=False)`` is how every column used to be built: Python lists per batch, then
``_arrays.build`` (``pd.to_datetime`` over the timestamp strings, ``pd.factorize`` per category
column). ``compact=True`` codes categories run by run and parses the writer's timestamp shape with
numpy. On generated hostile corpora (bad lines, blank lines, torn tails, wrong-type and
out-of-range fields, timestamps of every shape) and with batch and chunk sizes small enough that
runs straddle them, both must give the same frame (dtypes, values, column order) and the same
``attrs["errors"]``. This file also runs with pyarrow blocked (``tests/hardening/test_default_install.py``).
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import orjson
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from noesis_nb.frames import _arrays, clear_cache, eventbatch, eventblocks, events_df
from noesis_nb.frames.coded import CodedColumn
from noesis_nb.frames.isotimes import TimeColumn
from noesis_nb.frames.timetext import NAT, utc_micros

_TIMES = [
    "2025-01-01T00:00:00.000001+00:00",
    "2024-02-29T23:59:59.999999+00:00",
    "2023-02-29T12:00:00.000000+00:00",  # not a day
    "2025-06-30T10:00:00.500000+05:30",
    "2025-06-30T10:00:00.500000-09:45",
    "2025-06-30T10:00:00+00:00",
    "2025-06-30T10:00:00Z",
    "2025-06-30 10:00:00.000000+00:00",
    "2025-13-01T00:00:00.000000+00:00",
    "2025-01-01T24:00:00.000000+00:00",
    "2025-01-01T23:59:60.000000+00:00",
    "1500-01-01T00:00:00.000000+00:00",
    "2300-01-01T00:00:00.000000+00:00",
    "2025-01-01T00:00:00.000000+24:00",
    "２０２５-01-01T00:00:00.000000+00:00",
    "2025-01-01T00:00:00.000000+0000",
    "not a time",
    "",
    7,
    None,
    ["2025-01-01T00:00:00.000000+00:00"],
]
_TEXT = ["a", "b", "model", "tool", "runtime", "", "é", 0, 1.5, True, None, [], {"x": 1}]
_TOOLS = ["read_file", {"name": "grep", "namespace": "repo", "version": "1"}, {"name": ""}, {"x": 1}, 3, None]
_NUMBERS = [0, 1, 12.5, -1, 2**62, 1e300, "3", True, None]
_PHASES = ["start", "model", "tool", "runtime", "act", "insight", "", None, 5]
_NAMES = ["model.call", "tool.requested", "tool.draft_created", None, 3]
_SOURCES = ["crewai", "agui", "langgraph", "planner.minimal", 7, ["agui"], None]


def _timestamp(rng: random.Random, base: int) -> object:
    if rng.random() < 0.7:
        sec = base + rng.randrange(0, 10**6)
        whole = pd.Timestamp(sec, unit="s", tz="UTC").strftime("%Y-%m-%dT%H:%M:%S")
        return f"{whole}.{rng.randrange(10**6):06d}+00:00"
    return rng.choice(_TIMES)


def _event(rng: random.Random, i: int, ids: list[object]) -> dict[str, object]:
    payload: object = {
        "event_name": rng.choice(_NAMES),
        "status": rng.choice(_TEXT),
        "tool": rng.choice(_TOOLS),
        "draft_id": rng.choice(["d1", "d2", None, 4]),
        "model": rng.choice(["gpt", "claude", None, 1]),
        "source": rng.choice(_SOURCES),
        "input_tokens": rng.choice(_NUMBERS),
        "output_tokens": rng.choice(_NUMBERS),
        "cached_input_tokens": rng.choice(_NUMBERS),
        "reasoning_tokens": rng.choice(_NUMBERS),
        "request_id": rng.choice(["r", 1, None]),
    }
    if rng.random() < 0.05:
        payload = rng.choice([[1], "text", None, 3])
    event: dict[str, object] = {
        "id": rng.choice([f"e{i}", f"e{i}", f"e{i}", i, None]),
        "timestamp": _timestamp(rng, 1_700_000_000),
        "phase": rng.choice(_PHASES),
        "agent_id": rng.choice(_TEXT),
        "payload": payload,
    }
    if ids and rng.random() < 0.8:
        event["caused_by"] = rng.choice([ids[-1], ids[-1], rng.choice(ids), "elsewhere", 9])
    if rng.random() < 0.3:
        event["metrics"] = rng.choice([{"duration_ms": rng.choice(_NUMBERS)}, [1], None])
    if rng.random() < 0.2:
        event["faculty"] = rng.choice(["insight", "governance", "nonsense", 3, None])
    if rng.random() < 0.2:
        event["event_type"] = rng.choice(["run.state_projection", "", 4, None])
    for key in [k for k in event if rng.random() < 0.03]:
        del event[key]
    return event


def _write_corpus(root: Path, seed: int, runs: int) -> None:
    rng = random.Random(seed)
    for r in range(runs):
        run = root / f"ep_{r:03d}"
        run.mkdir(parents=True)
        lines: list[bytes] = []
        ids: list[object] = []
        for i in range(rng.choice([0, 1, 3, 8, 20, 40])):
            event = _event(rng, i, ids)
            ids.append(event.get("id"))
            line = (
                orjson.dumps(event)
                if rng.random() > 0.04
                else rng.choice([b'{"id": "cut', b"[1, 2]", b'"text"', b"", b"   ", b"\xff\xfe{}", b"null", b'{"a": NaN}'])
            )
            lines.append(line)
        data = b"".join(line + b"\n" for line in lines)
        if lines and rng.random() < 0.3:  # a torn tail: a live run, or (with final.json) a sealed one
            data = data[: -rng.randrange(1, min(len(lines[-1]), 8) + 2)] if len(lines[-1]) > 1 else data[:-1]
            if rng.random() < 0.5:
                (run / "final.json").write_bytes(b'{"outcome": "success"}')
        (run / "events.jsonl").write_bytes(data)


def _load(root: Path, compact: bool, strict: bool = False) -> pd.DataFrame:
    clear_cache()
    saved = eventblocks._COMPACT
    eventblocks._COMPACT = compact
    try:
        return events_df(root, cache=False, progress=False, strict=strict)
    finally:
        eventblocks._COMPACT = saved


def _same(a: pd.DataFrame, b: pd.DataFrame) -> None:
    assert list(a.columns) == list(b.columns)
    assert [str(t) for t in a.dtypes] == [str(t) for t in b.dtypes]
    pd.testing.assert_frame_equal(a, b, check_exact=True)
    assert a.attrs["errors"] == b.attrs["errors"]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    seed=st.integers(0, 2**32 - 1),
    runs=st.integers(1, 7),
    rows=st.sampled_from([5, 64, 1 << 14]),
    chunk=st.sampled_from([3, 256]),
)
def test_compact_builder_equals_list_builder(tmp_path_factory, monkeypatch, seed, runs, rows, chunk) -> None:
    root = tmp_path_factory.mktemp("hostile") / "runs"
    _write_corpus(root, seed, runs)
    with monkeypatch.context() as m:
        m.setattr(eventblocks, "_BATCH_ROWS", rows)
        m.setattr(eventbatch, "_CHUNK_ROWS", chunk)
        old, new = _load(root, compact=False), _load(root, compact=True)
    _same(old, new)


def test_compact_builder_reports_what_the_list_builder_does(tmp_path: Path) -> None:
    """A fixed hostile corpus: both builders report problems (and the frame shows them as unknown) alike."""
    _write_corpus(tmp_path / "runs", seed=16, runs=12)
    old, new = _load(tmp_path / "runs", False), _load(tmp_path / "runs", True)
    _same(old, new)
    reasons = " ".join(p["reason"] for p in new.attrs["errors"])
    for words in ("is not an ISO-8601 time", "invalid JSON", "not an object", "read as unknown"):
        assert words in reasons
    assert new["timestamp"].isna().any() and new["timestamp"].notna().any()


def test_strict_load_raises_the_same_first_problem(tmp_path: Path) -> None:
    _write_corpus(tmp_path / "runs", seed=3, runs=6)
    raised = []
    for compact in (False, True):
        with pytest.raises(Exception) as info:
            _load(tmp_path / "runs", compact, strict=True)
        raised.append((type(info.value), str(info.value)))
    assert raised[0] == raised[1]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.sampled_from([t for t in _TIMES if isinstance(t, str) or t is None] + ["now", "today"]),
            st.builds(
                "{:04d}-{:02d}-{:02d}T{:02d}:{:02d}:{:02d}.{:06d}{}{:02d}:{:02d}".format,
                st.integers(0, 9999),
                st.integers(0, 19),
                st.integers(0, 39),
                st.integers(0, 29),
                st.integers(0, 69),
                st.integers(0, 69),
                st.integers(0, 999_999),
                st.sampled_from("+-"),
                st.integers(0, 29),
                st.integers(0, 69),
            ),
            st.text(max_size=34),
        ),
        max_size=30,
    ),
    st.integers(1, 5),
)
def test_fixed_shape_timestamps_parse_as_the_one_rule_does(values: list[str | None], parts: int) -> None:
    """Every value (the writer's shape with any field, out-of-range ones too, other ISO forms, junk) read as
    ``utc_micros`` reads it alone, whatever was parsed beside it."""
    column = TimeColumn()
    step = max(1, len(values) // parts)
    for at in range(0, len(values), step):
        column.extend(values[at : at + step])
    got, unparsed = column.build()
    alone = [utc_micros(v) for v in values]
    want = pd.Series(np.array([NAT if m is None else m for m in alone], dtype=np.int64).view("M8[us]")).dt.tz_localize("UTC")
    assert str(got.dtype) == "datetime64[us, UTC]"
    pd.testing.assert_extension_array_equal(got, want.array)
    assert unparsed == [(i, v) for i, v in enumerate(values) if v is not None and alone[i] is None]


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.lists(st.one_of(st.none(), st.text(max_size=3), st.integers(-2, 2), st.just({"name": "t"})), max_size=20), max_size=6
    )
)
def test_coded_column_equals_categorical(runs: list[list[object]]) -> None:
    """Codes appended run by run (new values mid-way, more than 256 of them too) build the canonical categorical."""
    column = CodedColumn()
    for values in runs:
        column.extend(list(values))
    flat = [v for values in runs for v in values]
    _same_categorical(column.build(), _arrays.categorical(_arrays.text_values(flat)))


def test_coded_column_beyond_256_values() -> None:
    column = CodedColumn()
    values = [f"v{i:04d}" for i in range(600)]
    random.Random(1).shuffle(values)
    for at in range(0, 600, 100):
        column.extend(values[at : at + 100] + [None], text=True)
    flat = [v for at in range(0, 600, 100) for v in values[at : at + 100] + [None]]
    _same_categorical(column.build(), _arrays.categorical(flat))
    assert np.asarray(column.build().codes).max() == 599


def _same_categorical(got: pd.Categorical, want: pd.Categorical) -> None:
    pd.testing.assert_series_equal(pd.Series(got), pd.Series(want), check_exact=True)
    assert got.categories.dtype == want.categories.dtype and list(got.categories) == list(want.categories)
    assert np.array_equal(np.asarray(got.codes), np.asarray(want.codes))


def test_now_and_today_are_not_read_as_the_moment_of_the_load() -> None:
    """A crafted timestamp "now" would otherwise differ on every load (and a warm load from a cold one)."""
    from noesis_nb.frames._arrays import series_of, timestamps

    column = TimeColumn()
    column.extend(["now", "today", "2026-01-02T03:04:05.000006+00:00"])
    got, unparsed = column.build()
    assert got.isna().tolist() == [True, True, False] and unparsed == [(0, "now"), (1, "today")]
    assert pd.Series(timestamps(["now", "today"])).isna().all()
    assert series_of("datetime", ["now", "today"]).isna().all()
