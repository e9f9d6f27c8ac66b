"""A ``Column(type=...)`` reads a value of another kind as unknown and says so, in every frame.

``"false"`` in a bool column once read as True, ``1`` as True, ``"12"`` and ``12.5`` as the int 12,
``"1.5"`` as the float 1.5: plausible values no run held. The frames' own columns read such values
as unknown and report them (``coerce.clean_row``); a user's extra columns now follow that rule, and
the report names the run's file (events_df: its line) on a first and on a cached second load.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from noesis_nb.frames import Column, RunLoadError, events_df, runs_df, tools_df, usage_df

from .runkit import event, write_run

# value -> what each kind reads it as (None: unknown, reported)
CASES: list[tuple[object, dict[str, object]]] = [
    (True, {"bool": True, "int": None, "float": None}),
    (False, {"bool": False, "int": None, "float": None}),
    ("false", {"bool": None, "int": None, "float": None}),
    ("12", {"bool": None, "int": None, "float": None}),
    (0, {"bool": None, "int": 0, "float": 0.0}),
    (1, {"bool": None, "int": 1, "float": 1.0}),
    (12.5, {"bool": None, "int": None, "float": 12.5}),
    (12.0, {"bool": None, "int": 12, "float": 12.0}),
    (2**63, {"bool": None, "int": None, "float": float(2**63)}),
    ([1], {"bool": None, "int": None, "float": None}),
    ({"v": 1}, {"bool": None, "int": None, "float": None}),
    (None, {"bool": None, "int": None, "float": None}),
]
KINDS = ("bool", "int", "float")


def _plain(values: pd.Series) -> list[object]:
    return [None if v is pd.NA or (isinstance(v, float) and np.isnan(v)) else v for v in values.tolist()]


def _expected(kind: str) -> list[object]:
    return [want[kind] for _, want in CASES]


def _odd(kind: str) -> int:
    return sum(1 for value, want in CASES if value is not None and want[kind] is None)


def _columns(prefix: str) -> list[Column]:
    return [Column(f"v_{kind}", path=f"{prefix}.v", type=kind) for kind in KINDS]


def _reasons(df: pd.DataFrame) -> list[dict]:
    return [e for e in df.attrs["errors"] if "(type " in e["reason"]]


def test_events_df_reads_each_kind_by_its_rule_and_names_the_line(tmp_path: Path) -> None:
    root = tmp_path / "runs"
    write_run(
        root,
        "ep_a",
        [event("ep_a", i, "observe", {"v": value}, ts=f"2025-03-01T10:00:{i:02d}+00:00") for i, (value, _) in enumerate(CASES)],
    )
    for load in range(2):  # the second load is served from the cache: the same values, the same report
        df = events_df(root, columns=_columns("payload"), progress=False)
        for kind in KINDS:
            assert _plain(df[f"v_{kind}"]) == _expected(kind), (load, kind)
        reasons = _reasons(df)
        assert len(reasons) == len(KINDS), reasons  # once per column and run, the others counted
        by_kind = {kind: next(r for r in reasons if f"'v_{kind}' (type {kind})" in r["reason"]) for kind in KINDS}
        first_odd = {kind: next(i for i, (v, want) in enumerate(CASES) if v is not None and want[kind] is None) for kind in KINDS}
        for kind, problem in by_kind.items():
            assert problem["path"].endswith("ep_a/events.jsonl") and problem["line"] == first_odd[kind] + 1
            more = _odd(kind) - 1
            assert f"({more} more like it here)" in problem["reason"] and "read as unknown" in problem["reason"]
    assert "'false'" in by_kind["bool"]["reason"] and "True" not in _plain(df["v_bool"])[2:3]
    with pytest.raises(RunLoadError, match="v_bool"):
        events_df(root, columns=_columns("payload"), strict=True, cache=False, progress=False)


def test_runs_df_reads_each_kind_by_its_rule_and_names_the_run(tmp_path: Path) -> None:
    root = tmp_path / "runs"
    for i, (value, _) in enumerate(CASES):
        ep = f"ep_{i:02d}"
        write_run(
            root, ep, [event(ep, 0, "start", {"task": "t"}, ts="2025-03-01T10:00:00+00:00")], summary={"metrics": {"v": value}}
        )
    for load in range(2):
        df = runs_df(root, columns=_columns("summary.metrics"), progress=False).sort_values("episode_id")
        for kind in KINDS:
            assert _plain(df[f"v_{kind}"]) == _expected(kind), (load, kind)
        reasons = _reasons(df)
        assert len(reasons) == sum(_odd(kind) for kind in KINDS), reasons  # one run each
        named = {(r["path"].rsplit("/", 1)[-1], r["reason"].split("'")[1]) for r in reasons}
        assert ("ep_02", "v_bool") in named and ("ep_06", "v_int") in named and ("ep_00", "v_float") in named


def test_tools_df_and_usage_df_read_each_kind_by_its_rule(tmp_path: Path) -> None:
    root = tmp_path / "runs"
    ep = "ep_t"
    calls = [
        event(
            ep,
            i,
            "model",
            {"event_name": "model.call", "model": "gpt-4o", "provider": "openai", "v": value},
            ts=f"2025-03-01T10:00:{i:02d}+00:00",
        )
        for i, (value, _) in enumerate(CASES)
    ]
    run = write_run(root, ep, calls)
    folder = run / "tool_invocations" / "prepared"
    folder.mkdir(parents=True)
    for i, (value, _) in enumerate(CASES):
        (folder / f"draft:{ep}:r{i:02d}.json").write_text(
            json.dumps({"draft_id": f"draft:{ep}:r{i:02d}", "status": "pending", "v": value})
        )
    for load in range(2):
        usage = usage_df(root, columns=_columns("payload"), progress=False)
        tools = tools_df(root, columns=_columns("prepared"), progress=False).sort_values("draft_id")
        for df, where in ((usage, "events.jsonl"), (tools, "tool_invocations")):
            for kind in KINDS:
                assert _plain(df[f"v_{kind}"]) == _expected(kind), (load, where, kind)
            reasons = _reasons(df)
            assert len(reasons) == len(KINDS), reasons
            assert all(r["path"].endswith(f"{ep}/{where}") for r in reasons), reasons
