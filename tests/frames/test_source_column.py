"""The ``source`` column: engine runs, Noēsis runs, integration runs and recorded traces, per row and cached."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from noesis_nb.frames import EVENT_COLUMNS, RUN_COLUMNS, TOOL_COLUMNS, USAGE_COLUMNS, events_df, runs_df, tools_df, usage_df
from noesis_nb.frames.cache import CACHE
from noesis_nb.frames.rowsource import SYSTEMS, run_source, system_rows
from noesis_nb.integrations.noetic import import_noetic
from noesis_nb.integrations.taisce import MEMORY_PREFIX, import_taisce

from .runkit import basic_events, event, hand_summary, write_run
from .test_source_cache import settle

MEMORY = (
    MEMORY_PREFIX
    + "\n"
    + json.dumps(
        {
            "watermark": {"stored": 40, "formed": 38, "parked": 0},
            "plan": {"degraded": False},
            "facts": [{"statement": "Ana prefers tea"}],
            "reports": [],
            "passages": [],
        }
    )
)
TRANSCRIPT = [
    {"role": "user", "name": "taisce", "additional_kwargs": {"taisce.untrusted": True}, "content": MEMORY},
    {"role": "user", "content": "What should I bring Ana?"},
    {"role": "assistant", "content": "Tea."},
]
NOETIC_LOG = [
    {"source": "framework", "type": "helper:turn_started", "data": {"turnId": "t1"}},
    {"source": "sdk", "type": "response.output_text.delta", "data": {"delta": "The build is green."}},
    {"source": "framework", "type": "helper:turn_completed", "data": {"turnId": "t1"}},
]
HARNESS = {"usage": {"inputTokens": 1400, "outputTokens": 60}, "cost": 0.0031, "text": "The build is green."}


def _after_episode_id(df: pd.DataFrame) -> None:
    cols = list(df.columns)
    assert cols[cols.index("episode_id") + 1] == "source"
    assert str(df["source"].dtype) == "category"


def test_source_is_documented_right_after_episode_id():
    for spec in (RUN_COLUMNS, EVENT_COLUMNS, TOOL_COLUMNS, USAGE_COLUMNS):
        names = list(spec)
        assert names[names.index("episode_id") + 1] == "source" and spec["source"][0] == "category"


def test_engine_runs_are_noesis_nb_in_every_frame(engine_runs):
    runs, ids = engine_runs
    frames = {"runs": runs_df(runs), "events": events_df(runs), "tools": tools_df(runs), "usage": usage_df(runs)}
    for name, df in frames.items():
        _after_episode_id(df)
        assert len(df) and set(df["source"].astype(str)) == {"noesis_nb"}, name
    events = frames["events"]
    plan = events[events["phase"] == "plan"]  # payload.source "planner.minimal" is not a system
    assert len(plan) and (plan["payload"].map(lambda p: p.get("source")) == "planner.minimal").all()
    assert (plan["source"] == "noesis_nb").all()


def test_the_real_noesis_run_is_noesis(smoke_root):
    runs, events = runs_df(smoke_root), events_df(smoke_root)
    assert runs["source"].tolist() == ["noesis"]
    assert len(events) == 13 and set(events["source"].astype(str)) == {"noesis"}
    assert events.loc[events["phase"] == "plan", "source"].tolist() == ["noesis"]


@pytest.fixture
def agui_run(runs_dir):
    pytest.importorskip("ag_ui.core")
    from noesis_nb.integrations import solve
    from noesis_nb.integrations.agui import AGUIAdapter

    async def agent(run_input):
        ids = {"threadId": run_input.thread_id, "runId": run_input.run_id}
        yield {"type": "RUN_STARTED", **ids}
        if not run_input.resume:
            yield {"type": "TOOL_CALL_START", "toolCallId": "tc1", "toolCallName": "delete_file"}
            yield {"type": "TOOL_CALL_ARGS", "toolCallId": "tc1", "delta": '{"path": "old.log"}'}
            yield {"type": "TOOL_CALL_END", "toolCallId": "tc1"}
            yield {
                "type": "RUN_FINISHED",
                **ids,
                "usage": [{"model": "gpt-4o-mini", "inputTokens": 120, "outputTokens": 20}],
                "outcome": {"type": "interrupt", "interrupts": [{"id": "i1", "reason": "tool_call", "toolCallId": "tc1"}]},
            }
            return
        yield {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m1", "role": "assistant", "delta": "Deleted old.log."}
        yield {"type": "RUN_FINISHED", **ids}

    episode = solve("clean up the logs", using=AGUIAdapter(agent), runs_dir=runs_dir, approver="auto")
    return runs_dir, episode


def test_an_agui_run_is_agui_in_every_frame(agui_run):
    runs, episode = agui_run
    frames = {"runs": runs_df(runs), "events": events_df(runs), "tools": tools_df(runs), "usage": usage_df(runs)}
    for name, df in frames.items():
        _after_episode_id(df)
        assert len(df) and set(df["source"].astype(str)) == {"agui"}, name
    assert frames["runs"]["status"].tolist() == ["ok"] and frames["runs"]["tags_source"].tolist() == ["agui"]
    events = frames["events"]
    assert events["event_name"].astype(str).str.startswith("agui.").any()
    assert (events["phase"] == "plan").sum() == 1  # the engine's own events take the run's source
    assert frames["usage"]["model"].tolist() == ["gpt-4o-mini"]


def test_recorded_traces_and_engine_runs_side_by_side(runs_dir):
    import noesis_nb

    noetic = import_noetic(NOETIC_LOG, HARNESS, task="check the build", runs_dir=runs_dir)
    taisce = import_taisce(TRANSCRIPT, task="gift idea", runs_dir=runs_dir)
    engine = noesis_nb.solve("answer", using=lambda task: "42", runs_dir=runs_dir)
    runs = runs_df(runs_dir).set_index("episode_id")["source"].astype(str)
    assert runs.to_dict() == {noetic: "noetic", taisce: "taisce", engine: "noesis_nb"}
    events = events_df(runs_dir)
    by_run = events.groupby("episode_id", observed=True)["source"].agg(lambda s: set(s.astype(str)))
    assert by_run.to_dict() == {noetic: {"noetic"}, taisce: {"taisce"}, engine: {"noesis_nb"}}
    usage = usage_df(runs_dir)
    assert usage[["episode_id", "source"]].astype(str).values.tolist() == [[noetic, "noetic"]]
    assert usage["source"].cat.categories.tolist() == ["noetic"]


def test_a_taisce_memory_injection_is_a_memory_row_never_a_user_message(runs_dir):
    taisce = import_taisce(TRANSCRIPT, task="gift idea", runs_dir=runs_dir)
    df = events_df(runs_dir / taisce)
    memory = df[df["event_name"] == "taisce.memory_injection"]
    assert len(memory) == 1
    row = memory.iloc[0]
    assert row["phase"] == "memory" and row["source"] == "taisce" and row["payload"]["untrusted"] is True
    assert "text" not in row["payload"] and "role" not in row["payload"]
    messages = df[df["event_name"] == "taisce.message"]
    said = messages["payload"].map(lambda p: (p.get("role"), p.get("text"))).tolist()
    assert said == [("user", "What should I bring Ana?"), ("assistant", "Tea.")]
    assert not df["payload"].map(lambda p: MEMORY_PREFIX in json.dumps(p)).any()  # its text is never a row's text


def test_event_source_takes_only_system_names_from_the_payload(tmp_path):
    ep = "ep_mixed"
    events = basic_events(ep)
    events[1]["payload"]["source"] = "planner.minimal"
    events += [
        event(ep, 6, "observe", {"event_name": "noeta.message", "source": "noeta"}, ts="2025-03-01T10:01:00+00:00"),
        event(ep, 7, "observe", {"source": ["agui"]}, ts="2025-03-01T10:01:01+00:00"),
        event(ep, 8, "observe", {"source": {"name": "agui"}}, ts="2025-03-01T10:01:02+00:00"),
        event(ep, 9, "observe", "not an object", ts="2025-03-01T10:01:03+00:00"),
    ]
    summary = hand_summary(ep, task="t", status="ok") | {"x-noesis_nb": {}}
    write_run(tmp_path, ep, events, summary=summary)
    df = events_df(tmp_path)
    assert df["source"].astype(str).tolist() == ["noesis_nb"] * 6 + ["noeta"] + ["noesis_nb"] * 3
    assert system_rows([{"source": "crewai"}, {"source": 7}, {}, {"source": ["agui"]}]) == ((0, "crewai"),)
    assert system_rows([{"source": "planner.minimal"}, {}]) == ()


@pytest.mark.parametrize(
    ("doc", "expected"),
    [
        ({"tags": {"source": "langgraph"}, "x-noesis_nb": {}}, "langgraph"),
        ({"episode": {"tags": {"source": "crewai"}}, "x-noesis_nb": {}}, "crewai"),  # state.json
        ({"tags": {"source": "my-experiment"}, "x-noesis_nb": {}}, "noesis_nb"),  # not a system: the writer decides
        ({"tags": {"source": "my-experiment"}}, "noesis"),
        ({"tags": {}, "x-noesis_nb": {"usage": {}}}, "noesis_nb"),
        ({"episode": {"tags": None}}, "noesis"),
        (None, "noesis"),
    ],
)
def test_run_source_rules(doc, expected):
    assert run_source(doc) == expected
    assert expected in SYSTEMS | {"noesis_nb", "noesis"}


def test_a_live_run_without_summary_reads_state_and_stays_cached(tmp_path):
    ep = "ep_live"
    state = {"version": "1.0", "episode": {"id": ep, "tags": {"source": "noeta"}}, "x-noesis_nb": {}}
    write_run(tmp_path, ep, basic_events(ep)[:3], state=state)
    settle()  # files written this very moment are not cached (see test_source_cache)
    assert runs_df(tmp_path)["source"].tolist() == ["noeta"]
    first = events_df(tmp_path)
    hits = CACHE.hits
    second = events_df(tmp_path)
    assert CACHE.hits > hits and set(second["source"].astype(str)) == {"noeta"}
    pd.testing.assert_series_equal(first["source"], second["source"])
    # the run goes on and is sealed: the summary agrees, the new events take the same source
    run = tmp_path / ep
    with open(run / "events.jsonl", "a", encoding="utf-8") as fh:
        for e in basic_events(ep)[3:]:
            fh.write(json.dumps(e) + "\n")
    (run / "summary.json").write_text(
        json.dumps(hand_summary(ep, task="t", status="ok", tags={"source": "noeta"}) | {"x-noesis_nb": {}})
    )
    third = events_df(tmp_path)
    assert len(third) == 6 and set(third["source"].astype(str)) == {"noeta"}
    assert runs_df(tmp_path)["source"].tolist() == ["noeta"]


def test_a_rewritten_run_is_read_again(tmp_path):
    ep = "ep_again"
    write_run(tmp_path, ep, basic_events(ep), summary=hand_summary(ep, task="t", status="ok"))
    assert set(events_df(tmp_path)["source"].astype(str)) == {"noesis"}
    run = tmp_path / ep
    (run / "summary.json").write_text(json.dumps(hand_summary(ep, task="t", status="ok", tags={"source": "agui"})))
    with open(run / "events.jsonl", "a", encoding="utf-8") as fh:
        fh.write(json.dumps(event(ep, 6, "observe", {}, ts="2025-03-01T10:02:00+00:00")) + "\n")
    assert set(events_df(tmp_path)["source"].astype(str)) == {"agui"}
    assert tools_df(tmp_path).columns[1] == "source"


def test_no_documents_means_noesis(tmp_path):
    write_run(tmp_path, "ep_bare", basic_events("ep_bare"))
    assert runs_df(tmp_path)["source"].tolist() == ["noesis"]
    assert set(events_df(tmp_path)["source"].astype(str)) == {"noesis"}
    assert set(usage_df(tmp_path)["source"].astype(str)) == {"noesis"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (b'{"tags": {}, "x-noesis_nb": {"usage": {}}}\n', "noesis_nb"),
        (b'{\n  "x-noesis_nb" : {}\n}', "noesis_nb"),
        (b'{"tags": {"by": "x-noesis_nb"}}', "noesis"),  # a value, not the key
        (b'{"task": "say \\"x-noesis_nb\\": hi"}', "noesis"),  # escaped text inside a string
        (b'{"tags": {"source": "taisce"}, "x-noesis_nb": {}}', "taisce"),
        (b'{"tags": {"source": "planner"}, "x-noesis_nb": {}}', "noesis_nb"),
        (b'{"x-noesis_nb": ', "noesis"),  # unreadable: state.json is absent too
    ],
)
def test_reading_a_summary_gives_what_parsing_it_gives(tmp_path, text, expected):
    from noesis_nb.frames.rowsource import read_run_source
    from noesis_nb.frames.source import resolve_source

    run = tmp_path / "ep_doc"
    run.mkdir()
    (run / "summary.json").write_bytes(text)
    (ref,) = resolve_source(run)
    assert read_run_source(ref) == expected
    try:
        parsed = run_source(json.loads(text))
    except json.JSONDecodeError:
        parsed = "noesis"
    assert parsed == expected


def test_an_unreadable_summary_falls_back_to_state_as_runs_df_does(tmp_path):
    ep = "ep_torn"
    write_run(tmp_path, ep, basic_events(ep), state={"episode": {"id": ep, "tags": {"source": "langgraph"}}, "x-noesis_nb": {}})
    (tmp_path / ep / "summary.json").write_text('{"episode_id": "ep_torn", "x-noesis_nb": ')
    assert runs_df(tmp_path)["source"].tolist() == ["langgraph"]
    assert set(events_df(tmp_path)["source"].astype(str)) == {"langgraph"}
