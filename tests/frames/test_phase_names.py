"""``phases=`` given something that is no phase: an event name (``model.call``), an empty name or a pattern read
as an empty frame with no error. Each is one error naming the value, the phases and, for an event name, its phase
and how to keep events by name (``events_df`` has no event-name filter)."""

from __future__ import annotations

import pytest

from noesis_nb.errors import InvalidOptionError
from noesis_nb.frames import events_df

from .runkit import basic_events, write_run


@pytest.fixture
def root(tmp_path):
    runs = tmp_path / "runs"
    events = basic_events("ep_a", day="2025-03-01")
    write_run(runs, "ep_a", events)
    return runs


def _names(root) -> dict[str, str]:
    df = events_df(root)
    named = df.dropna(subset=["event_name"])
    return dict(zip(named["event_name"], named["phase"]))


def test_an_event_name_is_refused_with_its_phase(root):
    names = _names(root)
    assert names, "the run has named events"
    for name, phase in names.items():
        with pytest.raises(InvalidOptionError) as refused:
            events_df(root, phases=name)
        said = str(refused.value)
        assert said.startswith(f"phases={name!r} is an event name"), said
        assert f"phase {phase!r}" in said and f"df['event_name'] == {name!r}" in said, said
        kept = events_df(root, phases=phase)
        assert (kept["event_name"] == name).any()  # the fix it names finds the events meant


def test_an_event_name_of_a_known_phase_is_refused_before_any_run_is_read(tmp_path):
    with pytest.raises(InvalidOptionError, match=r"phases='steer\.sent' is an event name \(written under phase 'steer'\)"):
        events_df(tmp_path / "no-such-root", phases="steer.sent")


@pytest.mark.parametrize(
    ("value", "what"),
    [("", "an empty name"), ("  ", "an empty name"), ("*", "a pattern"), ("mod*", "a pattern"), ("[mt]odel", "a pattern")],
)
def test_a_blank_name_or_a_pattern_is_refused(root, value, what):
    with pytest.raises(InvalidOptionError) as refused:
        events_df(root, phases=["model", value])
    said = str(refused.value)
    assert said.startswith(f"phases={value!r} is {what}, not a phase"), said
    assert "'model'" in said and "'tool'" in said and "None" in said, said


def test_real_and_own_phases_still_pass(root):
    df = events_df(root)
    for phase in df["phase"].dropna().unique():
        assert len(events_df(root, phases=str(phase))) == int((df["phase"] == phase).sum())
    assert events_df(root, phases=["model", "x-my-own-phase"]).attrs["errors"] == []
