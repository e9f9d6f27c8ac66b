"""A run noesis_nb did not write names a secret in one file and holds it in clear in another: every frame, listing and
view of the run hides it, whichever file names it and whichever reader reads first, cold and warm.

The run is Noēsis's (the fixture) copied into the runs directory and edited as an outsider would: an event's
``{"password": …}`` (found by its name), a summary's ``password=…``, the value elsewhere in plain prose.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import noesis_nb

FIXTURE = Path(__file__).parents[1] / "fixtures" / "noesis-smoke-run" / "ep_01K9RBBMXXRSFWR49SXFGF4SPR"
PW = "Zorblax-71Qw"  # no detector finds it by its shape: only a name beside it makes it a secret


def _copy(tmp_path: Path) -> Path:
    run = tmp_path / "runs" / FIXTURE.name
    shutil.copytree(FIXTURE, run)
    return run


def _events(run: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run / "events.jsonl").read_text().splitlines() if line.strip()]


def _append_event(run: Path, payload: dict[str, Any]) -> None:
    last = _events(run)[-1]
    event = {**last, "id": f"evt-{len(_events(run))}", "phase": "note", "payload": payload}
    with (run / "events.jsonl").open("a") as f:
        f.write(json.dumps(event) + "\n")


def _edit(run: Path, name: str, change: Any) -> None:
    doc = json.loads((run / name).read_text())
    change(doc)
    (run / name).write_text(json.dumps(doc))


def _settle() -> None:
    time.sleep(0.1)  # past the file system's racy window: the files' stamps may key the cache (a warm load)


def _clear_in(df: pd.DataFrame) -> list[str]:
    return [c for c in df.columns if any(PW in str(v) for v in df[c].tolist())]


def _widget_state(widget: Any) -> str:
    parts = [json.dumps(widget.get_state(), default=str)]
    for child in getattr(widget, "children", ()) or ():
        parts.append(_widget_state(child))
    return "".join(parts)


def _prose_everywhere(run: Path) -> None:
    """The value in plain prose in the summary's task, flags and tags, state's goal and an event."""
    _append_event(run, {"text": f"later I typed {PW}"})

    def summary(doc: dict[str, Any]) -> None:
        doc["task"] = f"deploy using {PW}"
        doc.setdefault("flags", {})["using"] = f"agent-{PW}"
        doc["tags"] = {"note": f"pw {PW}", "team": "search"}

    _edit(run, "summary.json", summary)
    _edit(run, "state.json", lambda doc: doc.setdefault("goal", {}).update(task=f"deploy using {PW}"))


@pytest.mark.parametrize("named_in", ["events", "summary"])
def test_a_secret_named_in_one_file_is_hidden_in_all(tmp_path: Path, named_in: str) -> None:
    run = _copy(tmp_path)
    _prose_everywhere(run)
    if named_in == "events":
        _append_event(run, {"password": PW})
    else:
        _edit(run, "summary.json", lambda doc: doc["tags"].update(db_password=PW))
    root = run.parent
    for frame in (noesis_nb.runs_df, noesis_nb.events_df, noesis_nb.usage_df, noesis_nb.tools_df):
        df = frame(root, cache=False)
        assert _clear_in(df) == [], frame.__name__
    runs = noesis_nb.runs_df(root, cache=False)
    assert runs["tags_team"].tolist() == ["search"]  # what holds no secret is shown as written
    assert PW not in repr(noesis_nb.list_runs(None, runs_dir=root))
    assert PW not in _widget_state(noesis_nb.show(run))


def test_learning_after_a_warm_load_hides_the_value(tmp_path: Path) -> None:
    """A run's rows cached while nothing named the value a secret: once a file names it, each frame hides it."""
    run = _copy(tmp_path)
    _prose_everywhere(run)
    _settle()
    root = run.parent
    assert _clear_in(noesis_nb.runs_df(root)) != []  # nothing names it a secret yet: prose is shown as written
    assert _clear_in(noesis_nb.events_df(root)) != []
    _append_event(run, {"password": PW})  # the log names it: the summary's task and flags must hide it now
    _settle()
    assert _clear_in(noesis_nb.runs_df(root)) == []
    assert _clear_in(noesis_nb.events_df(root)) == []


def test_summary_learning_after_events_were_cached(tmp_path: Path) -> None:
    """events_df cached a run's events; its summary then names the value: the warm load hides the event's prose."""
    run = _copy(tmp_path)
    _append_event(run, {"text": f"later I typed {PW}"})
    _settle()
    root = run.parent
    assert _clear_in(noesis_nb.events_df(root)) != []
    _edit(run, "summary.json", lambda doc: doc.update(task=f"login with password={PW}"))
    _settle()
    assert _clear_in(noesis_nb.events_df(root)) == []
    assert _clear_in(noesis_nb.usage_df(root)) == []


def test_tool_records_hide_what_the_log_names(tmp_path: Path) -> None:
    """A tool call's records (another runtime's) quote the value in prose; the log names it a password."""
    run = _copy(tmp_path)
    draft = f"draft:{run.name}:req_7"
    docs = {
        "prepared": {"draft_id": draft, "status": "approved", "tool": {"namespace": "db", "name": "login"}},
        "approvals": {"draft_id": draft, "status": "approved", "reason": f"ok to use {PW}", "decided_at": "2025-01-01T00:00:01Z"},
        "executions": {"status": "succeeded", "reason_code": f"logged in as {PW}"},
    }
    for folder, doc in docs.items():
        (run / "tool_invocations" / folder).mkdir(parents=True, exist_ok=True)
        (run / "tool_invocations" / folder / f"{draft}.json").write_text(json.dumps(doc))
    _settle()
    tools = noesis_nb.tools_df(run.parent)
    assert _clear_in(tools) != []  # nothing names it a secret yet
    _append_event(run, {"password": PW})
    _settle()
    assert _clear_in(noesis_nb.tools_df(run.parent)) == []
