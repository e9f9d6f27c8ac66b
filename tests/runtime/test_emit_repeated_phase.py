"""``ctx.emit`` of a phase the episode already accepted: every check that reads the payload or the name still runs.

The second event of a phase takes a shorter path (its name was judged once); what it writes must be what the
first event's path would write: the payload screened for secrets and copied, verbs' minimums checked, slips and
engine phases refused, a name holding a secret redacted every time.
"""

from __future__ import annotations

import orjson
import pytest

import noesis_nb
from noesis_nb.errors import InvalidOptionError

_KEY = "sk-proj-" + "Q7vX2mK9pL4wR8tY1nB6cD3fG5hJ0zA"


def _events(run_dir):
    return [orjson.loads(line) for line in (run_dir / "events.jsonl").read_bytes().splitlines()]


def test_every_event_of_a_repeated_phase_is_screened_and_copied(tmp_path):
    kept = {}

    def adapter(task, ctx):
        for i in range(3):
            ctx.emit("reason", {"step": i, "text": "plain words"})
        payload = {"text": f"the key is {_KEY}"}
        ctx.emit("reason", payload)
        ctx.emit("reason", {"nested": {"api_key": "hunter2-but-longer"}})
        mutable = {"text": "before"}
        kept["id"] = ctx.emit("reason", mutable)
        mutable["text"] = "after"  # changed once emitted: the event keeps what was written
        kept["event"] = next(e for e in ctx._episode.recorder.events if e["id"] == kept["id"])
        return "done"

    episode = noesis_nb.solve("repeat", using=adapter, runs_dir=tmp_path)
    written = (tmp_path / episode / "events.jsonl").read_text()
    assert _KEY not in written and "hunter2-but-longer" not in written
    assert kept["event"]["payload"] == {"text": "before"}
    line = next(e for e in _events(tmp_path / episode) if e["id"] == kept["id"])
    assert line["payload"] == {"text": "before"}


@pytest.mark.parametrize(
    ("phase", "payload", "error"),
    [
        ("Reason", {}, InvalidOptionError),  # a slip of a known phase
        ("tool", {}, ValueError),  # written by the episode itself
        ("plan", {"stages": []}, ValueError),  # a verb without its minimum, after one with it
        ("", {}, ValueError),
        (["reason"], {}, ValueError),  # no string (unhashable)
        ("reason", ["not", "a", "dict"], TypeError),
    ],
)
def test_refusals_hold_after_other_phases_were_accepted(tmp_path, phase, payload, error):
    seen = {}

    def adapter(task, ctx):
        ctx.emit("reason", {"a": 1})
        ctx.emit("note", {"a": 1})
        ctx.emit("plan", {"steps": ["one"]})
        with pytest.raises(error) as caught:
            ctx.emit(phase, payload)
        seen["error"] = caught.value
        ctx.emit("plan", {"steps": ["two"]})  # the verb accepted with its minimum, again
        return "done"

    noesis_nb.solve("refusals", using=adapter, runs_dir=tmp_path)
    assert isinstance(seen["error"], error)


def test_a_phase_or_agent_id_holding_a_secret_is_redacted_on_every_event(tmp_path):
    def adapter(task, ctx):
        for _ in range(3):
            ctx.emit(f"x-{_KEY}", {"a": 1})
            ctx.emit("reason", {"a": 2}, agent_id=f"https://user:{_KEY}@agents.example/a")
        return "done"

    episode = noesis_nb.solve("names", using=adapter, runs_dir=tmp_path)
    events = _events(tmp_path / episode)
    assert _KEY not in (tmp_path / episode / "events.jsonl").read_text()
    assert sum(1 for e in events if e["phase"].startswith("x-")) == 3
    assert sum(1 for e in events if e["agent_id"].startswith("https://")) == 3
