"""A seal in final.json of a shape noesis_nb never writes means "not vouched": the run is screened, and every
other run of the folder is read as before (no frame fails over one crafted final.json)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.frames import eventblocks


async def _plain_agent(task: str, ctx: Any) -> str:
    ctx.emit("note", {"text": "nothing secret here"})
    return "done"


def _malformed(stats: dict[str, Any]) -> list[Any]:
    """Seals with the run's own sizes and times but a tag or a shape no seal has."""
    return [
        {**stats, "tag": "é" * 64},  # non-ASCII: hmac.compare_digest raises TypeError on it
        {**stats, "tag": "\u0660" * 64},
        {**stats, "tag": "a" * 63},
        {**stats, "tag": "f" * 10_000_000},
        {**stats, "tag": 7},
        {**stats, "tag": {"hex": "00" * 32}},
        {**stats, "tag": [[["deep"]]] * 3},
        {**stats, "events": {"size": stats["events"][0]}, "tag": "é" * 64},
        {**stats, "events": [[1], [2]]},
        ["not", "a", "dict"],
        "é" * 64,
    ]


@pytest.mark.parametrize("index", range(11))
def test_a_malformed_seal_is_screened_and_fails_no_frame(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, index: int) -> None:
    runs = tmp_path / "runs"
    noesis_nb.solve("plain", using=_plain_agent, runs_dir=runs, approver="auto")  # a genuine run beside it
    bad = runs / noesis_nb.solve("plain", using=_plain_agent, runs_dir=runs, approver="auto")
    final = json.loads((bad / "final.json").read_text())
    seal = _malformed(final["x-noesis_nb"]["seal"])[index]
    final["x-noesis_nb"]["seal"] = seal
    (bad / "final.json").write_text(json.dumps(final))
    screened: list[int] = []
    records = eventblocks.shown_records
    monkeypatch.setattr(eventblocks, "shown_records", lambda evs, *rest: (screened.append(1), records(evs, *rest))[1])
    events = noesis_nb.events_df(runs, cache=False, progress=False)
    assert len(screened) == 1  # the crafted run alone; the genuine one is read as written
    assert events["episode_id"].nunique() == 2
    for frame in (noesis_nb.runs_df, noesis_nb.tools_df, noesis_nb.usage_df):
        assert len(frame(runs, cache=False, progress=False)) >= 0  # read, not failed
