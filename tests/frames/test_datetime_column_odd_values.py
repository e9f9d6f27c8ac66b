"""A ``datetime`` extra column over a value that is no ISO-8601 time (a number such as epoch seconds, a flag, text
like ``"yesterday"``) read NaT with nothing said, while an ``int`` or ``float`` column reports its odd values.
Each is now read as unknown and reported at its run's file (and line, for events), as the other kinds are."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import noesis_nb
from noesis_nb.frames import Column, events_df, runs_df

from .runkit import one_field_run

ODD = [1740823200.0, 1740823200, True, "yesterday", [1], {"a": 1}]
TIMES = ["2025-03-01T10:00:00Z", "2025-03-01T10:00:00.5+00:00", None]


def _run(root: Path, ep: str, values: list) -> Path:
    return one_field_run(root, ep, "at", values)


@pytest.mark.parametrize("value", ODD, ids=repr)
def test_events_df_reports_a_value_that_is_no_time(tmp_path: Path, value) -> None:
    run = _run(tmp_path, "ep_odd", [*TIMES, value])
    df = events_df(tmp_path, columns=[Column("at", path="payload.at", type="datetime")], cache=False)
    assert str(df["at"].dtype) == "datetime64[us, UTC]"
    assert df["at"].tolist()[:2] == [pd.Timestamp(t) for t in TIMES[:2]]
    assert df["at"].isna().tolist()[2:] == [True, True]
    said = [e for e in df.attrs["errors"] if "column 'at'" in e["reason"]]
    assert len(said) == 1, df.attrs["errors"]
    assert said[0]["path"].endswith("events.jsonl") and said[0]["line"] == len(TIMES) + 1
    assert said[0]["reason"].startswith(f"column 'at' (type datetime) is {value!r}")
    assert said[0]["reason"].endswith("not an ISO-8601 time; read as unknown")
    assert run.name in said[0]["path"]


@pytest.mark.parametrize("value", ODD, ids=repr)
def test_runs_df_reports_a_value_that_is_no_time(tmp_path: Path, value) -> None:
    _run(tmp_path, "ep_odd", [value])
    _run(tmp_path, "ep_fine", [TIMES[0]])
    df = runs_df(tmp_path, columns=[Column("at", path="summary.metrics.at", type="datetime")], cache=False)
    at = dict(zip(df["episode_id"], df["at"]))
    assert at["ep_fine"] == pd.Timestamp(TIMES[0]) and pd.isna(at["ep_odd"])
    said = [e for e in df.attrs["errors"] if "column 'at'" in e["reason"]]
    assert [e["path"].rstrip("/").split("/")[-1] for e in said] == ["ep_odd"], df.attrs["errors"]
    assert "not an ISO-8601 time; read as unknown" in said[0]["reason"]


def test_a_real_runs_float_read_as_a_time_is_reported(tmp_path: Path) -> None:
    """The engine's own summary: ``duration_sec`` is a number, so a ``datetime`` column over it is unknown and said."""
    root = tmp_path / "runs"
    noesis_nb.solve("one", using=lambda task: "a", runs_dir=root)
    column = Column("d", path="summary.duration_sec", type="datetime")
    plain = runs_df(root, columns=[Column("d", path="summary.duration_sec", type="float")], cache=False)
    assert plain["d"].notna().all()  # the field is there, a number
    df = runs_df(root, columns=[column], cache=False)
    assert df["d"].isna().all()
    assert any("column 'd' (type datetime)" in e["reason"] for e in df.attrs["errors"]), df.attrs["errors"]
