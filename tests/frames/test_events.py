"""events_df: order, columns, both serialisations, filters, extra columns, corrupt lines."""

from __future__ import annotations

import pandas as pd
import pytest

from noesis_nb.errors import EventLogIntegrityError, InvalidOptionError
from noesis_nb.frames import EVENT_COLUMNS, Column, events_df

from ..conftest import SMOKE_PHASES
from .runkit import basic_events, event, write_run


def test_real_noesis_run(smoke_root):
    df = events_df(smoke_root)
    assert list(df.columns) == list(EVENT_COLUMNS)
    assert len(df) == 13 and df["seq"].tolist() == list(range(13))
    assert df["phase"].astype(str).tolist() == SMOKE_PHASES
    assert df["event_id"].iloc[0] == "4b470732-1a94-4328-8c94-dc0c224b943c"
    assert df["event_id"].iloc[11:].isna().all()  # older insight/memory lines have no id
    assert df["caused_by"].iloc[2] == "abf849a7-e4e6-4764-826f-83f0b1b477d5"
    assert df["duration_ms"].iloc[7] == 0.149
    assert df["status"].iloc[10] == "ok" and df["tool"].iloc[4] == "adapter:core.minimal"
    assert df["timestamp"].iloc[0] == pd.Timestamp("2025-11-11T02:19:15.774183Z")
    assert str(df["timestamp"].dtype) == "datetime64[us, UTC]"
    assert isinstance(df["payload"].iloc[0], dict) and df["payload"].iloc[0]["task"] == "smoke: manifest happy path"
    assert (df["episode_id"] == "ep_01K9RBBMXXRSFWR49SXFGF4SPR").all()


def test_both_serialisations_give_the_same_frame(tmp_path):
    events = basic_events("ep_x") + [
        event(
            "ep_x",
            6,
            "runtime",
            {"kind": "run.checkpoint", "status": "paused", "note": "→ ünïcode"},
            ts="2025-03-01T10:01:00.5+00:00",
            event_type="run.checkpoint",
        )
    ]
    write_run(tmp_path / "old", "ep_x", events, style="old")
    write_run(tmp_path / "new", "ep_x", events, style="new")
    old, new = events_df(tmp_path / "old"), events_df(tmp_path / "new")
    pd.testing.assert_frame_equal(old, new)
    assert old["event_name"].astype(object).where(old["event_name"].notna(), None).tolist() == [
        None,
        None,
        "model.call",
        "model.call",
        None,
        None,
        "run.checkpoint",
    ]
    assert old["model"].iloc[2] == "gpt-4o" and old["payload"].iloc[6]["note"] == "→ ünïcode"
    assert old["timestamp"].iloc[6] == pd.Timestamp("2025-03-01T10:01:00.500Z")


def test_engine_runs_have_every_line(engine_runs):
    runs, ids = engine_runs
    df = events_df(runs)
    for scenario, ep in ids.items():
        lines = (runs / ep / "events.jsonl").read_bytes().count(b"\n")
        assert (df["episode_id"] == ep).sum() == lines, scenario
    tool = df[df["episode_id"] == ids["approved"]]
    names = tool["event_name"].astype(str).tolist()
    assert (
        names.index("tool.approval.pending")
        < names.index("run.interrupt")
        < names.index("run.resume")
        < names.index("tool.approved")
    )
    assert tool.loc[tool["event_name"] == "tool.approved", "draft_id"].iloc[0].startswith(f"draft:{ids['approved']}:")
    assert (df.groupby("episode_id", observed=True)["seq"].apply(lambda s: s.tolist() == list(range(len(s))))).all()


def test_filters(tmp_path):
    root = tmp_path / "runs"
    write_run(root, "ep_a", basic_events("ep_a", day="2025-03-01"))
    write_run(root, "ep_b", basic_events("ep_b", day="2025-03-02"))
    assert len(events_df(root)) == 12
    models = events_df(root, phases="model")
    assert len(models) == 4 and set(models["phase"]) == {"model"}
    assert set(events_df(root, episodes=["ep_b"])["episode_id"]) == {"ep_b"}
    late = events_df(root, since="2025-03-02T00:00:00Z")
    assert set(late["episode_id"]) == {"ep_b"}
    window = events_df(root, since="2025-03-01T10:00:10", until="2025-03-01T10:00:30+00:00")
    assert window["seq"].tolist() == [1, 2, 3]


def test_a_phase_name_off_by_case_or_a_letter_is_refused_not_an_empty_answer(tmp_path):
    """A name no event has and no runtime writes, close to one the events have: a typo, refused as ``by=`` and
    ``columns=`` refuse theirs (it read as an empty frame with the hint in ``attrs`` only)."""
    root = tmp_path / "runs"
    write_run(root, "ep_a", basic_events("ep_a", day="2025-03-01"))
    for typo, meant in (("Model", "model"), ("modle", "model"), ("models", "model")):
        with pytest.raises(InvalidOptionError) as refused:
            events_df(root, phases=[typo, "x-my-own-phase"])
        assert str(refused.value) == f"phases= names {typo!r}, which no event has; did you mean {meant!r}?"
    assert events_df(root, phases=["model", "x-my-own-phase"]).attrs["errors"] == []  # a phase of one's own may not occur


def test_a_phase_a_runtime_writes_that_no_event_has_yet_is_named_not_refused(tmp_path):
    """``phases="tool"`` over runs with a phase of their own called ``tools``: ``tool`` is a real phase that may
    simply not have occurred yet, so the frame is empty and the close name is said in ``attrs``."""
    root = tmp_path / "runs"
    events = basic_events("ep_a", day="2025-03-01")
    for record in events:
        if record["phase"] == "model":
            record["phase"] = "tools"
            del record["payload"]["event_name"]  # a model call is a model event: under tools it would be reported
    write_run(root, "ep_a", events)
    df = events_df(root, phases="tool")
    assert len(df) == 0
    assert [e["reason"] for e in df.attrs["errors"]] == ["phases= names 'tool', which no event has; did you mean 'tools'?"]


def test_filters_of_the_wrong_kind_are_one_error_naming_them(tmp_path):
    from noesis_nb.errors import InvalidOptionError

    root = tmp_path / "runs"
    write_run(root, "ep_a", basic_events("ep_a", day="2025-03-01"))
    for options, fragment in [
        ({"since": 5}, r"since=5 is a number; pass an ISO-8601 time .*pd\.Timestamp\(5, unit='s'\)"),  # was 1970 + 5 ns
        ({"until": 1_740_000_000.0}, r"until=1740000000\.0 is a number"),
        ({"since": "last week"}, r"since='last week' is no time \(.*\); pass an ISO-8601 time"),
        ({"until": ""}, r"until='' is no time"),
        ({"phases": 5}, r"phases=5: pass a phase name such as 'tool', or a list of them"),
        ({"phases": ["model", None]}, r"phases=\['model', None\]: pass a phase name"),
    ]:
        with pytest.raises(InvalidOptionError, match=fragment):
            events_df(root, **options)
    assert len(events_df(root, since=pd.Timestamp("2025-03-01"), phases=("model",))) == 2


def test_column_specs_of_the_wrong_shape_are_one_error_naming_the_fix(tmp_path):
    write_run(tmp_path / "runs", "ep_a", basic_events("ep_a"))
    for make, fragment in [
        (
            lambda: Column("x", "payload.task", "str"),
            r"fn='str' is a type name; pass it by keyword: Column\('x', path='payload.task', type='str'\)",
        ),
        (
            lambda: Column("x", path=["payload", "task"]),
            r"path=\['payload', 'task'\] is no dotted path; pass a string such as 'payload.task'",
        ),
        (lambda: Column("x", path=""), r"path='' is no dotted path"),  # read as NA everywhere
        (lambda: Column("x", fn=5), r"fn=5 is not callable"),  # was NA everywhere
        (lambda: Column(5, path="a"), r"name=5: name the column with a non-empty string"),
        (lambda: Column("x", path="a", type=float), r"is not one of .*\(type='float'\)"),
    ]:
        with pytest.raises(ValueError, match=fragment):
            make()
    with pytest.raises(TypeError, match=r"columns=\{'task': 'payload.task'\} is not a list; pass columns=\[Column"):
        events_df(tmp_path / "runs", columns={"task": "payload.task"})
    with pytest.raises(ValueError, match=r"two columns are named 'task'"):
        events_df(tmp_path / "runs", columns=[Column("task", path="payload.task"), Column("task", path="payload.x")])
    one = events_df(tmp_path / "runs", columns=Column("task", path="payload.task", type="str"))  # one spec, no list
    assert one["task"].iloc[0] == "task of ep_a"


def test_extra_columns(tmp_path):
    write_run(tmp_path / "runs", "ep_a", basic_events("ep_a"))
    df = events_df(
        tmp_path / "runs",
        columns=[
            Column("task", path="payload.task", type="str"),
            Column("in_tok", path="payload.input_tokens", type="float"),
            Column("n_keys", fn=lambda e: len(e["payload"]), type="int"),
        ],
    )
    assert df["task"].iloc[0] == "task of ep_a" and pd.isna(df["task"].iloc[1])
    assert df["in_tok"].iloc[2] == 1000.0 and df["n_keys"].iloc[0] == 3
    assert str(df["n_keys"].dtype) == "Int64" and str(df["task"].dtype) in ("str", "string", "object")


def test_corrupt_lines_are_reported_or_raised(tmp_path):
    root = tmp_path / "runs"
    good = basic_events("ep_a")
    write_run(
        root, "ep_a", good[:2], extra_lines=[b"{broken json\n", b"[1, 2]\n", (str(good[2]).replace("'", '"') + "\n").encode()]
    )
    write_run(root, "ep_b", basic_events("ep_b"), extra_lines=[b'{"phase": "act", "timestamp": "2025-03-01T1'])  # torn last line
    df = events_df(root)
    assert (df["episode_id"] == "ep_b").sum() == 6  # a torn last line is a line being written, not an error
    assert (df["episode_id"] == "ep_a").sum() == 2
    errors = df.attrs["errors"]
    assert [(e["path"].endswith("ep_a/events.jsonl"), e["line"]) for e in errors] == [(True, 3), (True, 4), (True, 5)]
    with pytest.raises(EventLogIntegrityError) as info:
        events_df(root, strict=True, cache=False)
    assert info.value.corruption.line_number == 3 and info.value.corruption.path.endswith("ep_a/events.jsonl")


def test_empty_and_missing_sources(tmp_path):
    (tmp_path / "empty").mkdir()
    df = events_df(tmp_path / "empty")
    assert list(df.columns) == list(EVENT_COLUMNS) and len(df) == 0
    with pytest.raises(FileNotFoundError, match="does not exist"):
        events_df(tmp_path / "nope")
