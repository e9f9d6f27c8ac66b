"""A problem about an event naming another episode names a key-like id by its length: that of the id as written,
not of ``[REDACTED]`` (events_df read the id after its event was redacted, and said "a 10-character value" of a
40-character token). events_df and runs_df now give the same words."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

import noesis_nb

from .runkit import basic_events, write_run

TOKENS = ["ghp_" + "Zq8r3kVbXw9Lm2Pq7TtY7uJf0Hn5aBcDeRs4", "sk-proj-" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0U1v2"]


@pytest.mark.parametrize("token", TOKENS)
def test_the_length_said_is_the_ids(tmp_path: Path, token: str) -> None:
    root = tmp_path / "runs"
    events = basic_events("ep_o")
    events[1]["episode_id"] = token
    write_run(root, "ep_o", events, summary={"episode_id": "ep_o", "status": "ok"})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        events_df = noesis_nb.events_df(root, cache=False)
        runs_df = noesis_nb.runs_df(root, cache=False)
    said = [p["reason"] for p in events_df.attrs["errors"] if "names episode" in p["reason"]]
    assert len(said) == 1
    assert f"<a {len(token)}-character value that looks like a key, not shown>" in said[0]
    assert token[4:12] not in said[0]
    assert said == [p["reason"] for p in runs_df.attrs["errors"] if "names episode" in p["reason"]]
