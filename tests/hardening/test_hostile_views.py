"""Views of a crafted or damaged run never fail and never render its text as HTML.

A shared runs dir can hold any bytes. Each generated case plants one event whose fields have the
wrong types (a phase that is a number, a payload that is a list, a model that is a list, token
counts that are text, a timestamp that is an object…) and text carrying markup into a run paused on
a draft, then opens it every way a person can: ``show`` (and its snapshot), ``replay`` at every event
count, ``replay(…, compare=…)``, and ``inbox``. None may raise, and the markup must only ever appear
escaped.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import noesis_nb

from .crashkit import tool_agent

MARK = "<b data-planted=1>"
_scalars = st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=True), st.just(MARK))
_values = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["a", MARK]), inner, max_size=3),
    max_leaves=6,
)
_FIELDS = ("id", "phase", "event_type", "caused_by", "timestamp", "agent_id", "payload")
_PAYLOAD_KEYS = (
    "model",
    "provider",
    "input_tokens",
    "output_tokens",
    "event_name",
    "draft_id",
    "tool",
    "decision",
    "kind",
    "text",
    "status",
)


@st.composite
def hostile_events(draw: Any) -> dict[str, Any]:
    event: dict[str, Any] = {
        "phase": draw(st.sampled_from(["model", "act", "governance", "runtime", "steer", "drain", "reason"]))
    }
    for field in draw(st.lists(st.sampled_from(_FIELDS), max_size=4, unique=True)):
        event[field] = draw(_values)
    if draw(st.booleans()):
        event["payload"] = {key: draw(_values) for key in draw(st.lists(st.sampled_from(_PAYLOAD_KEYS), max_size=5, unique=True))}
    return event


@pytest.fixture(scope="module")
def paused_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    runs = tmp_path_factory.mktemp("hostile-views")
    ep = noesis_nb.solve("append the note", using=tool_agent(str(runs / "marker.txt")), runs_dir=runs / "runs", approver="ask")
    return runs / "runs" / ep


def _no_planted_markup(shown: Any) -> None:
    # the static snapshot (``_repr_mimebundle_`` repeats only the text line in a cell that displayed it)
    html = (shown.mimebundle() if hasattr(shown, "mimebundle") else shown._repr_mimebundle_())["text/html"]
    at = html.find(MARK)
    assert at < 0, f"planted markup reached the HTML unescaped: …{html[max(0, at - 200) : at + 60]}…"


EXAMPLES = int(os.environ.get("NOESIS_NB_HOSTILE_VIEW_EXAMPLES", "40"))


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(planted=st.lists(hostile_events(), min_size=1, max_size=3), where=st.integers(0, 1000))
def test_views_of_a_run_with_hostile_events_open_and_escape_it(
    paused_run: Path, tmp_path_factory: Any, planted: list, where: int
) -> None:
    root = tmp_path_factory.mktemp("case")
    run = root / paused_run.name
    shutil.copytree(paused_run, run)
    lines = (run / "events.jsonl").read_text().splitlines()
    at = where % (len(lines) + 1)
    lines[at:at] = [json.dumps(e, default=str) for e in planted]
    (run / "events.jsonl").write_text("\n".join(lines) + "\n")

    view = noesis_nb.show(run)
    _no_planted_markup(view)
    replay = noesis_nb.replay(run)
    for k in sorted({0, 1, at, at + 1, at + len(planted), len(lines)}):
        replay.seek(min(k, len(lines)))
        _no_planted_markup(replay)
    _no_planted_markup(noesis_nb.replay(run, compare=paused_run))
    inbox = noesis_nb.inbox(root)
    _no_planted_markup(inbox)
    inbox.close()


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(pick=st.integers(0, 10_000), value=_values)
def test_a_damaged_draft_record_is_reported_and_the_rest_of_the_run_still_shows(
    paused_run: Path, tmp_path_factory: Any, pick: int, value: Any
) -> None:
    root = tmp_path_factory.mktemp("case")
    run = root / paused_run.name
    shutil.copytree(paused_run, run)
    (draft,) = (run / "tool_invocations" / "prepared").glob("*.json")
    record = json.loads(draft.read_text())
    key = sorted(record)[pick % len(record)]
    record[key] = value
    draft.write_text(json.dumps(record, default=str))

    view = noesis_nb.show(run)
    _no_planted_markup(view)
    if view.source.problems:  # the record no longer reads: named, never raised
        assert draft.name in view.source.problems[-1]
        assert not view.source.pending
    _no_planted_markup(noesis_nb.replay(run))
    inbox = noesis_nb.inbox(root)
    _no_planted_markup(inbox)
    inbox.close()
