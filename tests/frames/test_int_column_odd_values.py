"""An ``int`` extra column over values with no int64 value reads them as NA; the frame still loads.

A run's field is untrusted JSON: text that is no number, a list, an object, a number beyond int64
(``1e300``, ``2**63``) once stopped every frame with ``ValueError`` / ``OverflowError`` / ``TypeError``.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from noesis_nb.frames import Column, events_df, runs_df

from .runkit import one_field_run

ODD = ["abc", 1e300, [1], {"a": 1}, 2**63]
PLAIN = [7, None, -(2**63), 2**63 - 1]


def _run(root: Path, ep: str, values: list) -> Path:
    return one_field_run(root, ep, "n", values)


def test_events_df_reads_odd_ints_as_missing(tmp_path: Path) -> None:
    _run(tmp_path, "ep_odd", [*ODD, *PLAIN])
    df = events_df(tmp_path, columns=[Column("n", path="payload.n", type="int")], cache=False, progress=False)
    assert str(df["n"].dtype) == "Int64"
    assert df["n"].isna().tolist()[: len(ODD)] == [True] * len(ODD)
    assert [None if v is pd.NA else v for v in df["n"].tolist()[len(ODD) :]] == PLAIN


def test_runs_df_reads_an_odd_int_as_missing(tmp_path: Path) -> None:
    for i, value in enumerate(ODD):
        _run(tmp_path, f"ep_{i}", [value])
    _run(tmp_path, "ep_plain", [12])
    df = runs_df(tmp_path, columns=[Column("n", path="summary.metrics.n", type="int")], cache=False, progress=False)
    got = dict(zip(df["episode_id"], df["n"].tolist()))
    assert got.pop("ep_plain") == 12
    assert all(v is pd.NA for v in got.values()), got
