"""``runs_df.tool_calls`` counts the rows ``tools_df`` has for the run, whatever its log and tool records hold.

Generated runs: tool calls asked for and refused before their draft (``tool.rejected.invalid``, ``tool.authn.failed``,
``tool.authz.denied``), left waiting for it, drafted (the draft named by an event before or after its request, by no
event, or by events alone), request ids used twice or by a draft and a refusal, draft ids empty, prepared records
unreadable, and logs cut off anywhere by a kill -9 (the last line torn). The runs of ``tests/fixtures`` too, and the
crafted hostile corpus its frozen frames are made of (``eventcorpus``: events of other phases naming drafts, ids of
the wrong kind, drafts named after their requests).
"""

from __future__ import annotations

import json
import tempfile
import warnings
from pathlib import Path
from typing import Any

import orjson
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import noesis_nb

from .eventcorpus import build
from .runkit import basic_events, event, hand_summary, write_run

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
EP = "ep_01JTOOLCALLCOUNTAGREES0001"
T = "2025-03-01T10:00:45.000000+00:00"

REFUSALS = ("tool.rejected.invalid", "tool.authn.failed", "tool.authz.denied")
FATES = (*REFUSALS, "asked", "drafted", "draft named first", "draft by record only", "draft by events only", "empty draft id")
FOLDERS = ("prepared", "x-python/prepared")


def _events_of(fate: str, request: str, draft: str) -> list[dict[str, Any]]:
    """The tool events of one call's ``fate`` (payloads: event_name first, then its ids)."""
    asked = {"event_name": "tool.requested", "request_id": request, "protocol": "python", "tool": "t.x"}
    drafted = {"event_name": "tool.draft_created", "request_id": request, "draft_id": draft}
    ran = {"event_name": "tool.execution.started", "request_id": request, "draft_id": draft}
    return {
        "asked": [asked],
        "drafted": [asked, drafted, ran],
        "draft named first": [ran, asked],
        "draft by record only": [asked],
        "draft by events only": [ran],
        "empty draft id": [asked, {**drafted, "draft_id": ""}],
    }.get(fate) or [asked, {"event_name": fate, "request_id": request, "reason_code": "refused"}]


_call = st.tuples(
    st.sampled_from(FATES),
    st.sampled_from(["r0", "r1", "r2", "r3"]),  # few ids: some are used twice
    st.sampled_from(["none", "ok", "unreadable", "python folder"]),  # the draft's prepared record
)


@st.composite
def _runs(draw: st.DrawFn) -> tuple[list[tuple[str, str, str]], float | None, bool]:
    calls = draw(st.lists(_call, max_size=6))
    cut = draw(st.none() | st.floats(0.0, 1.0))  # where a kill -9 cut the log (None: it was not)
    return calls, cut, draw(st.booleans())


def _write(root: Path, calls: list[tuple[str, str, str]], cut: float | None, summary: bool) -> Path:
    events = basic_events(EP)
    tools = [
        e
        for fate, request, _ in calls
        for e in _events_of(fate, request, f"draft:{EP}:{request}")
        if fate != "draft by events only" or e["event_name"] != "tool.requested"
    ]
    events[-1:-1] = [event(EP, 100 + n, "tool", p, ts=T, agent_id="tool_contract") for n, p in enumerate(tools)]
    run = write_run(root, EP, events, summary=hand_summary(EP, task="tools") if summary else None)
    if cut is not None:
        data = (run / "events.jsonl").read_bytes()
        (run / "events.jsonl").write_bytes(data[: int(len(data) * cut)])
    for fate, request, record in calls:
        if record == "none" or fate not in ("drafted", "draft named first", "draft by record only"):
            continue
        draft = f"draft:{EP}:{request}"
        folder = run / "tool_invocations" / FOLDERS[record == "python folder"]
        folder.mkdir(parents=True, exist_ok=True)
        doc = {"draft_id": draft, "request_id": request, "run_id": EP, "protocol": "python", "status": "prepared"}
        (folder / f"{draft}.json").write_text("{not json" if record == "unreadable" else json.dumps(doc))
    return run


def _read_whole(log: Path) -> bool:
    """Whether ``log`` is a file whose every line is a JSON object (README: a log that cannot be read whole leaves
    ``tool_calls`` unknown)."""
    if not log.is_file():
        return False
    for line in log.read_bytes().splitlines():
        if not line.strip():
            continue
        try:
            if not isinstance(orjson.loads(line), dict):
                return False
        except orjson.JSONDecodeError:
            return False
    return True


def _agree(root: Path) -> None:
    """Each run's ``tool_calls`` is its number of ``tools_df`` rows, read cold."""
    with warnings.catch_warnings():  # an unreadable record, a torn line: reported, which is not what is tested here
        warnings.simplefilter("ignore")
        tools = noesis_nb.tools_df(root, cache=False)
        runs = noesis_nb.runs_df(root, cache=False)
    rows = tools.groupby("episode_id").size()
    got = dict(zip(runs["episode_id"], runs["tool_calls"]))
    unknown = {ep for ep, n in got.items() if pd.isna(n)}  # a run whose log cannot be read whole: counted by no rule
    assert all(not _read_whole(root / ep / "events.jsonl") for ep in unknown), unknown
    assert {ep: int(n) for ep, n in got.items() if ep not in unknown} == {
        ep: int(rows.get(ep, 0)) for ep in got if ep not in unknown
    }, tools[["episode_id", "draft_id", "request_id"]]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_runs())
def test_tool_calls_is_the_number_of_tools_df_rows_for_generated_runs(run: tuple[list[tuple[str, str, str]], Any, bool]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        _write(Path(tmp), *run)
        _agree(Path(tmp))


@pytest.mark.parametrize("fixture", sorted(p.name for p in FIXTURES.iterdir() if p.is_dir() and any(p.glob("*/events.jsonl"))))
def test_tool_calls_is_the_number_of_tools_df_rows_for_the_fixtures(fixture: str) -> None:
    _agree(FIXTURES / fixture)


def test_tool_calls_is_the_number_of_tools_df_rows_for_the_crafted_corpus(tmp_path: Path) -> None:
    _agree(build(tmp_path / "runs"))
