"""Recorded traces: Noetic stream-event logs and Taisce memory injections, replayed as sealed runs."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

import noesis_nb
from noesis_nb.errors import NoesisNbError
from noesis_nb.integrations.noetic import NoeticLogError, import_noetic, noetic_replay, noetic_rows
from noesis_nb.integrations.replay import RecordedRunError
from noesis_nb.integrations.taisce import MEMORY_PREFIX, TaisceTranscriptError, import_taisce, parse_memory_message, taisce_rows
from noesis_nb.store import read_events, read_json, verify_manifest

from .helpers import run

NOETIC_LOG = [
    {"source": "framework", "type": "helper:turn_started", "data": {"turnId": "t1", "messageIds": ["u1"]}},
    {"source": "framework", "type": "helper:model_call_started", "data": {"round": 1, "messageCount": 2, "toolCount": 1}},
    {"source": "sdk", "type": "response.output_text.delta", "data": {"delta": "Look"}, "outputIndex": 0},
    {"source": "sdk", "type": "response.output_text.delta", "data": {"delta": "ing "}, "outputIndex": 0},
    {"source": "sdk", "type": "response.output_text.delta", "data": {"delta": "now"}, "outputIndex": 0},
    {"source": "framework", "type": "helper:tool_call_started", "data": {"callId": "c1", "name": "search"}},
    {"source": "framework", "type": "helper:tool_call_completed", "data": {"callId": "c1"}},
    {"source": "framework", "type": "helper:inbox_injected", "data": {"round": 2, "count": 1, "messageIds": ["m9"]}},
    {"source": "framework", "type": "helper:model_call_stalled", "data": {"round": 2, "idleTimeoutMs": 120000}},
    {
        "source": "framework",
        "type": "helper:turn_aborted",
        "data": {"turnId": "t1", "reason": "model stream idle timeout after 120000ms"},
    },
    {"source": "framework", "type": "helper:foo:bar", "data": {}},
]
TURN_DONE = {"source": "framework", "type": "helper:turn_completed", "data": {"turnId": "t1", "durationMs": 9}}
ANSWERED = [*NOETIC_LOG[:5], TURN_DONE]  # a turn that ended: started, streamed its answer, completed
HARNESS = {"usage": {"inputTokens": 900, "outputTokens": 40}, "cost": 0.0021, "text": "Looking now", "items": []}


def test_noetic_log_text_splits_at_newlines_only():
    """A JSON string may hold U+2028 or U+0085 unescaped; only "\n" (or "\r\n") ends a JSONL line."""
    event = {"source": "sdk", "type": "response.output_text.delta", "data": {"delta": "a\u2028b\x85c"}, "outputIndex": 0}
    text = "\r\n".join(json.dumps(e, ensure_ascii=False) for e in [NOETIC_LOG[0], event])
    assert list(noetic_rows(text)) == list(noetic_rows([json.dumps(NOETIC_LOG[0]), json.dumps(event)]))


def test_noetic_rows_in_order_with_unknown_cache_as_none():
    rows = list(noetic_rows([json.dumps(e) for e in NOETIC_LOG], HARNESS))
    kinds = [p["kind"] for _, p in rows]
    assert kinds == [
        "run_started",
        "model_call_started",
        "message",
        "tool_call",
        "tool_result",
        "steering",
        "run_error",
        "run_error",
        "custom",
        "usage",
        "harness_response",
    ]
    assert rows[2][1]["text"] == "Looking now" and rows[0][1]["agent"] == "helper"
    assert rows[7][1]["error"] == "model stream idle timeout after 120000ms" and "120000" in rows[6][1]["error"]
    assert rows[8][1]["event_name"] == "noetic.foo:bar"
    usage = rows[9][1]
    assert usage["input_tokens"] == 900 and usage["cached_input_tokens"] is None and usage["cost_usd"] == 0.0021
    assert all(p["source"] == "noetic" for _, p in rows)


def test_noetic_import_writes_a_sealed_run(runs_dir):
    completed = [*NOETIC_LOG[:7], TURN_DONE]
    episode = import_noetic(completed, HARNESS, runs_dir=runs_dir)
    run_dir = runs_dir / episode
    assert read_json(run_dir / "summary.json")["status"] == "ok"
    assert read_json(run_dir / "final.json")["outcome"] == "success"
    tags = read_json(run_dir / "state.json")["episode"]["tags"]
    # the log's one tool call (tool_call_started, then completed) is a draft like a live one: no count in its tags
    assert tags == {"source": "noetic", "trace_digest": tags["trace_digest"]}
    assert noesis_nb.tools_df(runs_dir)["tool"].tolist() == ["noetic.search"]
    assert verify_manifest(run_dir).ok
    models = [e for e in read_events(run_dir / "events.jsonl") if e["phase"] == "model"]
    assert len(models) == 1 and models[0]["agent_id"] == "model:unknown"


def test_an_aborted_noetic_run_replays_as_error_and_keeps_every_row(runs_dir):
    handle, _ = run("replay", noetic_replay(NOETIC_LOG, HARNESS), runs_dir)
    assert handle.status == "error" and sum(e["phase"] == "model" for e in handle.events) == 1
    with pytest.raises(RecordedRunError, match="idle timeout after 120000ms"):
        handle.result()


def test_noetic_bad_line_is_named(tmp_path):
    path = tmp_path / "stream.jsonl"
    path.write_text(json.dumps(NOETIC_LOG[0]) + "\n\nnot json\n")
    with pytest.raises(NoeticLogError, match="line 3: not JSON"):
        list(noetic_rows(path))


MEMORY = (
    MEMORY_PREFIX
    + "\n"
    + json.dumps(
        {
            "watermark": {"stored": 12, "formed": 10, "parked": 1},
            "plan": {"controls": {}, "degraded": False, "reach": {}},
            "facts": [{"statement": "Ana likes tea"}, {"statement": "Ana lives in Cork"}],
            "reports": [],
            "passages": [{"id": "p"}],
            "future_key": True,
        }
    )
)


def test_taisce_memory_message_is_an_untrusted_memory_row_never_user_input():
    transcript = [
        {"role": "user", "content": MEMORY, "name": "taisce", "additional_kwargs": {"taisce.untrusted": True}},
        {"role": "user", "content": "What do I drink?"},
        {"role": "assistant", "content": "Tea."},
    ]
    rows = list(taisce_rows(transcript))
    assert [(ph, p["kind"]) for ph, p in rows] == [
        ("memory", "memory_injection"),
        ("integration", "message"),
        ("integration", "message"),
    ]
    memory = rows[0][1]
    assert memory["event_name"] == "taisce.memory_injection" and memory["untrusted"] is True and memory["source"] == "taisce"
    assert (memory["facts"], memory["passages"], memory["stored"], memory["formed"], memory["parked"]) == (2, 1, 12, 10, 1)
    assert "role" not in memory and "text" not in memory and "Ana" not in json.dumps(memory)
    assert [p.get("role") for _, p in rows[1:]] == ["user", "assistant"]


def test_taisce_compaction_variant_and_unreadable_json():
    info = parse_memory_message(
        MEMORY_PREFIX
        + "\n"
        + json.dumps({"watermark": {}, "plan": {"characters": 9, "truncated": True}, "segments": [1, 2, 3], "turns": []})
    )
    assert info["variant"] == "compaction" and info["segments"] == 3 and info["truncated"] is True
    assert "parse_error" in parse_memory_message(MEMORY_PREFIX + "\n{oops")


def test_taisce_unreadable_pretty_printed_json_names_the_line():
    """A multi-line document's parse error says the line and the column, not only a column of some line."""
    doc = (
        '{\n  "watermark": {"stored": 1},\n  "plan": {},\n  "facts": [\n    {"statement": "a"},\n    {"statement": "b",}\n  ]\n}'
    )
    line = 1 + doc[: doc.index(",}")].count("\n")  # a trailing comma: not JSON
    error = parse_memory_message(MEMORY_PREFIX + "\n" + doc)["parse_error"]
    assert f"line {line}, column" in error, error


def test_taisce_langchain_messages_and_import(runs_dir):
    langchain = pytest.importorskip("langchain_core.messages")
    transcript = [
        langchain.HumanMessage(content=MEMORY, name="taisce", additional_kwargs={"taisce.untrusted": True}),
        langchain.HumanMessage(content="hi"),
        langchain.AIMessage(content="hello"),
    ]
    episode = import_taisce(transcript, runs_dir=runs_dir)
    events = read_events(runs_dir / episode / "events.jsonl")
    memory = [e for e in events if e["payload"].get("event_name") == "taisce.memory_injection"]
    assert len(memory) == 1 and memory[0]["phase"] == "memory" and memory[0]["payload"]["injected_as"] == "user"
    assert read_json(runs_dir / episode / "summary.json")["status"] == "ok"


def test_taisce_non_message_is_named():
    with pytest.raises(TaisceTranscriptError, match="item #2 is a int"):
        list(taisce_rows([{"role": "user", "content": "x"}, 42]))


def test_a_log_read_while_another_process_writes_its_last_line_says_so(tmp_path, runs_dir):
    """A second process has written two lines and half of the third, and holds the file open: the replay keeps the
    two lines and its error says the last line is unfinished, not that the log needs fixing."""
    from tests.compat.checker import check_run

    path = tmp_path / "stream.jsonl"
    whole = "".join(json.dumps(e) + "\n" for e in NOETIC_LOG[:2])
    writer = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; f = open(sys.argv[1], 'w'); f.write(sys.argv[2]); f.flush(); time.sleep(30)"]
        + [str(path), whole + json.dumps(NOETIC_LOG[2])[:25]],
        stdout=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60  # a process start on a busy machine can take seconds; this ends at the write
        while not (path.exists() and path.stat().st_size > len(whole)):
            assert writer.poll() is None and time.monotonic() < deadline, "the writer never wrote its lines"
            time.sleep(0.02)
        handle, _ = run("replay", noetic_replay(str(path)), runs_dir)
    finally:
        writer.kill()
        writer.wait()
    assert handle.status == "error" and check_run(handle.run_dir) == []
    with pytest.raises(NoeticLogError) as caught:
        handle.result()
    message = str(caught.value)
    assert "line 3: not JSON" in message and "fix that line" not in message
    assert "the last line and has no line end: the log was cut short or is still being written" in message
    kept = [e["payload"]["event_name"] for e in read_events(handle.run_dir / "events.jsonl") if e["phase"] == "integration"]
    assert kept == ["noetic.turn_started", "noetic.model_call_started"]


def test_a_replay_of_a_one_shot_source_refuses_a_second_episode(tmp_path, runs_dir):
    """An open file, a generator or an iterator is read once: a second episode must not record an empty ``ok`` run."""
    from noesis_nb.integrations.replay import RecordedReplay
    from noesis_nb.integrations.taisce import taisce_replay

    path = tmp_path / "stream.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in ANSWERED))
    rows = [("integration", {"event_name": "x.message", "kind": "message", "role": "assistant", "text": "hi"})]
    with path.open("rb") as log:
        replays = [
            noetic_replay(log),
            noetic_replay(line for line in path.read_text().splitlines()),
            taisce_replay(iter([{"role": "assistant", "content": "hi"}])),
            RecordedReplay(iter(rows), source="x"),
        ]
        for replay in replays:
            first, _ = run("replay", replay, runs_dir)
            assert first.status == "ok" and first.result() in ("Looking now", "hi")
            second, _ = run("replay", replay, runs_dir)
            assert second.status == "error", f"{replay!r}: the second episode read nothing and ended {second.status}"
            with pytest.raises(NoesisNbError, match=r"one-shot .*already read; pass the log's path or a list"):
                second.result()
    again, _ = run("replay", noetic_replay(str(path)), runs_dir)  # a path is read anew for every episode
    again2, _ = run("replay", noetic_replay(ANSWERED), runs_dir)
    assert again.result() == again2.result() == "Looking now"


@pytest.mark.parametrize("content", ["", "\n\n  \r\n", "\ufeff\n"])
def test_an_empty_trace_is_refused_by_every_importer_and_writes_no_run(tmp_path, runs_dir, content):
    """A trace with no events (an empty or blank file, an empty list) is refused: an ``ok`` run of nothing would
    read as a good import."""
    from noesis_nb.integrations.noeta import import_noeta
    from noesis_nb.integrations.replay import EmptyTraceError

    path = tmp_path / "stream.jsonl"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(EmptyTraceError, match=rf"the noetic trace '{path}' holds no events .*check the path"):
        import_noetic(path, runs_dir=runs_dir)
    for importer, given in ((import_noetic, content), (import_noetic, []), (import_taisce, []), (import_noeta, [])):
        with pytest.raises(EmptyTraceError, match=r"holds no events .*nothing was recorded"):
            importer(given, runs_dir=runs_dir)
    assert not runs_dir.exists() or list(runs_dir.iterdir()) == []


def test_a_replay_of_an_empty_trace_ends_error_naming_it(tmp_path, runs_dir):
    from noesis_nb.integrations.replay import EmptyTraceError
    from tests.compat.checker import check_run

    path = tmp_path / "stream.jsonl"
    path.write_text("\n")
    handle, _ = run("replay", noetic_replay(str(path)), runs_dir)
    assert handle.status == "error" and check_run(handle.run_dir) == []
    with pytest.raises(EmptyTraceError, match="the noetic trace holds no events"):
        handle.result()


@pytest.mark.parametrize("indent", [None, 2])
def test_a_noetic_log_saved_as_a_json_array_is_named_with_the_fix(tmp_path, runs_dir, indent):
    """A JSON array of events (one line, or pretty-printed) is not JSONL: one error says so and how to pass it."""
    text = json.dumps(NOETIC_LOG[:3], indent=indent)
    path = tmp_path / "stream.json"
    path.write_text("\ufeff" + text + "\n", encoding="utf-8")
    fix = r"the log is a JSON array, not JSONL .*pass the list itself \(json\.load of the file"
    with pytest.raises(NoeticLogError, match=rf"Noetic log {path}, line 1: {fix}"):
        import_noetic(path, runs_dir=runs_dir)
    with pytest.raises(NoeticLogError, match=rf"Noetic log text: {fix}"):
        import_noetic(text, runs_dir=runs_dir)
    assert not runs_dir.exists() or list(runs_dir.iterdir()) == []
    assert len(list(noetic_rows(json.loads(text)))) == 3  # the list itself reads


def test_a_noetic_log_given_as_bytes_reads_as_its_text(runs_dir):
    """The log's content as bytes (a file read with "rb", a response body) is read as text, never byte by byte."""
    from noesis_nb.integrations.replay import EmptyTraceError

    text = "\ufeff" + "\r\n".join(json.dumps(e) for e in ANSWERED) + "\r\n"
    assert list(noetic_rows(text.encode())) == list(noetic_rows(ANSWERED))
    assert list(noetic_rows(bytearray(text.encode()))) == list(noetic_rows(ANSWERED))
    with pytest.raises(NoeticLogError, match=r"Noetic log bytes: not UTF-8 text \(invalid start byte at byte 0\); save"):
        list(noetic_rows(text.encode("utf-16-le")))
    with pytest.raises(NoeticLogError, match=r"line 2: not JSON .*'hello'"):
        list(noetic_rows((json.dumps(NOETIC_LOG[0]) + "\nhello\n").encode()))
    with pytest.raises(NoeticLogError, match=r"Noetic log text: the log is a JSON array"):
        list(noetic_rows(json.dumps(NOETIC_LOG[:2]).encode()))
    with pytest.raises(EmptyTraceError, match=r"the noetic trace holds no events"):
        import_noetic(b"\n \n", runs_dir=runs_dir)
    episode = import_noetic(text.encode(), runs_dir=runs_dir)
    assert read_json(runs_dir / episode / "state.json")["outcomes"]["status"] == "ok"


MEMORY_TEXT = MEMORY_PREFIX + "\n" + json.dumps({"watermark": {"stored": 3}, "facts": [{"statement": "the plan is secret"}]})


@pytest.mark.parametrize(
    "content",
    [
        [{"type": "text", "text": MEMORY_TEXT}],  # LangChain / OpenAI content blocks
        [{"type": "text", "text": MEMORY_PREFIX}, {"type": "text", "text": MEMORY_TEXT[len(MEMORY_PREFIX) :]}],
        [MEMORY_TEXT],
        "\ufeff" + MEMORY_TEXT,
        "\n\n" + MEMORY_TEXT.replace("\n", "\r\n"),
    ],
)
def test_a_taisce_memory_message_in_text_blocks_or_after_blanks_is_memory_never_the_users_words(content):
    (got,) = taisce_rows([{"role": "user", "content": content}])
    phase, payload = got
    assert (phase, payload["kind"], payload["untrusted"]) == ("memory", "memory_injection", True)
    assert payload["facts"] == 1 and payload["stored"] == 3 and "parse_error" not in payload
    assert "the plan is secret" not in json.dumps(payload)


def test_text_blocks_that_hold_more_than_text_or_no_prefix_stay_a_message():
    image = {"type": "image_url", "image_url": {"url": "data:,x"}}
    for content in ([{"type": "text", "text": MEMORY_TEXT}, image], [{"type": "text", "text": "hello"}], []):
        ((_, payload),) = taisce_rows([{"role": "user", "content": content}])
        assert payload["kind"] == "message"


class _Role:
    def __init__(self, value):
        self.value = value


class _TextContent:
    def __init__(self, text):
        self.text = text


class _ChatMessage:
    """Agent Framework's ``ChatMessage`` shape: ``role`` a Role, ``contents``, ``text`` joining them, no ``content``."""

    def __init__(self, role, text, author_name=None, additional_properties=None):
        self.role, self.contents = _Role(role), [_TextContent(text)]
        self.author_name, self.additional_properties = author_name, additional_properties or {}

    @property
    def text(self):
        return "".join(c.text for c in self.contents)


def test_agent_framework_messages_and_their_dicts_are_read_as_messages():
    """The Taisce Agent Framework adapter marks memory with ``taisce.untrusted`` and the author ``taisce``."""
    marked = {"taisce.untrusted": True}
    messages = [
        _ChatMessage("user", "what did I plan?"),
        _ChatMessage("user", MEMORY_TEXT, author_name="taisce", additional_properties=marked),
        _ChatMessage("assistant", "the secret plan"),
    ]
    as_dicts = [
        {"type": "chat_message", "role": {"type": "role", "value": "user"}, "contents": [{"type": "text", "text": "hi"}]},
        {"role": {"type": "role", "value": "user"}, "contents": [{"type": "text", "text": MEMORY_TEXT}], "author_name": "taisce"},
    ]
    rows = [p for _, p in taisce_rows(messages + as_dicts)]
    assert [(p["kind"], p.get("role") or p.get("injected_as")) for p in rows] == [
        ("message", "user"),
        ("memory_injection", "user"),
        ("message", "assistant"),
        ("message", "user"),
        ("memory_injection", "user"),
    ]
    assert [rows[0]["text"], rows[2]["text"]] == ["what did I plan?", "the secret plan"]
    assert json.loads(rows[3]["text"]) == [{"type": "text", "text": "hi"}]  # content parts, as their JSON
    assert rows[1]["facts"] == rows[4]["facts"] == 1
