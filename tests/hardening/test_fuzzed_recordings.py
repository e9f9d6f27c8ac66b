"""Recorded traces of other systems, fuzzed: each reads to rows of sane types or stops with one error naming where.

A recording handed over for import may have been cut short, edited by hand, joined from two files,
or written by a producer that puts any JSON value in any field: NaN, a number of 5000 digits, a lone
surrogate, nesting deeper than a parser recurses, a list where an object belongs. Starting from a
valid Noetic log, Taisce memory message, AG-UI SSE body and Noeta envelope list, each case below
changes bytes or one field and reads the result. Generated inputs are derandomized (the same inputs
on every run) and few, so the suite stays fast and stable.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from noesis_nb.integrations.agui import AGUIStreamError, agui_rows, parse_sse
from noesis_nb.integrations.noeta import NoetaEnvelopeError, noeta_rows
from noesis_nb.integrations.noetic import NoeticLogError, import_noetic, noetic_rows
from noesis_nb.integrations.replay import RecordedRunError
from noesis_nb.integrations.taisce import MEMORY_PREFIX, parse_memory_message, taisce_rows

from ..integrations.test_recorded_traces import HARNESS, NOETIC_LOG

pytestmark = pytest.mark.timeout(120)

FUZZ = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

# JSON texts a hostile or broken producer writes in place of a field's value
HOSTILE = [
    "NaN",
    "Infinity",
    "-Infinity",
    "1e400",
    "9" * 5000,  # more digits than Python converts to an int
    "1" + "0" * 400,
    '"\\ud800"',  # a lone surrogate
    '"\\udfff\\ud800"',
    "[" * 5000 + "]" * 5000,  # deeper than the parser recurses
    "[" * 200 + "1" + "]" * 200,
    '{"a": 1, "a": [2]}',  # a duplicate key
    '"' + "x" * 100_000 + '"',
    '"<script>alert(1)</script>"',
    "null",
    "true",
    "-0",
    "1.5",
    "[]",
    "{}",
    "[1, 2]",
    '"text"',
    '{"nested": {"deeper": [null, {}]}}',
]
_HOLE = "\x00hole\x00"


def _paths(value: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every field path in a JSON value (object keys and list indexes)."""
    found = []
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else []
    for key, inner in items:
        found.append((*at, key))
        found.extend(_paths(inner, (*at, key)))
    return found


def _with_hostile(doc: Any, path: tuple[Any, ...], token: str) -> str:
    """``doc`` as JSON text with the field at ``path`` replaced by the JSON text ``token``."""
    doc = json.loads(json.dumps(doc))
    target = doc
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = _HOLE
    return json.dumps(doc).replace(json.dumps(_HOLE), token)


def _mutated(data: bytes, ops: list[tuple[int, int, int]]) -> bytes:
    """``data`` changed by ``ops``: (what, where, value) = a byte replaced, a hostile text or a BOM / CRLF / NUL
    inserted, the end cut off, or every line end made CRLF."""
    out = bytearray(data)
    for what, where, value in ops:
        at = where % (len(out) + 1)
        if what == 0 and out:
            out[at % len(out)] = value % 256
        elif what == 1:
            out[at:at] = HOSTILE[value % len(HOSTILE)].encode()
        elif what == 2:
            out[at:at] = (b"\xef\xbb\xbf", b"\r\n", b"\r", b"\x00", b"\n")[value % 5]
        elif what == 3:
            del out[at:]
        else:
            out = bytearray(bytes(out).replace(b"\n", b"\r\n"))
    return bytes(out)


OPS = st.lists(st.tuples(st.integers(0, 4), st.integers(0, 10**6), st.integers(0, 255)), min_size=1, max_size=4)


def _sane(rows: list[Any]) -> None:
    """Rows of the one row shape: a phase, and a payload naming its event and kind in text."""
    for phase, payload in rows:
        assert isinstance(phase, str) and isinstance(payload, dict)
        assert isinstance(payload["event_name"], str) and isinstance(payload["kind"], str), payload
        json.dumps(payload, default=str)  # plain data, storable


# -- Noetic stream logs ------------------------------------------------------------------------


def _noetic_bytes() -> bytes:
    return b"".join(json.dumps(e).encode() + b"\n" for e in NOETIC_LOG)


@FUZZ
@given(ops=OPS)
@example(ops=[(1, 40, HOSTILE.index("9" * 5000))])
def test_a_noetic_log_with_bytes_changed_reads_or_is_one_error_naming_the_file_and_line(tmp_path: Path, ops: Any) -> None:
    log = tmp_path / "stream.jsonl"
    log.write_bytes(_mutated(_noetic_bytes(), ops))
    try:
        rows = list(noetic_rows(log))
    except NoeticLogError as exc:
        assert str(log) in str(exc) and " line " in str(exc), exc
        return
    _sane(rows)


def _noetic_fields() -> list[tuple[int, tuple[Any, ...]]]:
    return [(n, path) for n, event in enumerate(NOETIC_LOG) for path in _paths(event)]


@FUZZ
@given(field=st.sampled_from(_noetic_fields()), token=st.sampled_from(HOSTILE))
@example(field=(0, ("data", "turnId")), token="9" * 5000)
def test_a_noetic_event_with_a_hostile_field_reads_or_is_one_error_naming_the_line(
    tmp_path: Path, field: tuple[int, tuple[Any, ...]], token: str
) -> None:
    number, path = field
    lines = [json.dumps(e) for e in NOETIC_LOG]
    lines[number] = _with_hostile(NOETIC_LOG[number], path, token)
    log = tmp_path / "stream.jsonl"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8", errors="surrogatepass")
    try:
        rows = list(noetic_rows(log))
    except NoeticLogError as exc:
        assert f"{log}, line {number + 1}: " in str(exc), exc
        return
    _sane(rows)


@FUZZ
@given(field=st.sampled_from(_paths(HARNESS)), token=st.sampled_from(HOSTILE))
@example(field=("items",), token="1.5")
@example(field=("items",), token="true")
def test_a_harness_response_with_a_hostile_field_reads_or_is_one_error_naming_the_file(
    tmp_path: Path, field: tuple[Any, ...], token: str
) -> None:
    harness = tmp_path / "harness_response.json"
    harness.write_text(_with_hostile(HARNESS, field, token), encoding="utf-8", errors="surrogatepass")
    try:
        rows = list(noetic_rows([json.dumps(e) for e in NOETIC_LOG], harness))
    except NoeticLogError as exc:
        assert str(harness) in str(exc), exc
        return
    _sane(rows)
    usage = [p for _, p in rows if p["kind"] == "usage"]
    assert len(usage) == 1
    for key in ("input_tokens", "output_tokens", "cached_input_tokens"):  # a count, or unknown
        assert usage[0][key] is None or (type(usage[0][key]) is int and usage[0][key] >= 0)


def test_noetic_logs_joined_from_files_saved_with_a_byte_order_mark_read_whole(tmp_path: Path) -> None:
    one = b"".join(b"\xef\xbb\xbf" + json.dumps(e).encode() + b"\r\n" for e in NOETIC_LOG[:2])
    log = tmp_path / "joined.jsonl"
    log.write_bytes(one)
    assert [p["kind"] for _, p in noetic_rows(log)] == ["run_started", "model_call_started"]


def test_a_number_too_long_to_read_is_named_with_its_line_not_a_raw_value_error(tmp_path: Path) -> None:
    log = tmp_path / "stream.jsonl"
    log.write_text(json.dumps(NOETIC_LOG[0]) + '\n{"type": "x", "data": {"n": ' + "9" * 5000 + "}}\n")
    with pytest.raises(NoeticLogError, match=rf"{log}, line 2: a number in it is too long to read"):
        list(noetic_rows(log))


def test_a_fuzzed_noetic_import_is_a_run_every_frame_loads(runs_dir: Path) -> None:
    """A recording whose ``data`` fields hold every hostile value imports to a run the frames read without a problem."""
    import noesis_nb

    fields = [(n, path) for n, path in _noetic_fields() if path[0] == "data"]
    lines = [_with_hostile(NOETIC_LOG[n], path, HOSTILE[i % len(HOSTILE)]) for i, (n, path) in enumerate(fields)]
    readable = []
    for line in lines:
        try:
            list(noetic_rows([line]))
            readable.append(line)
        except NoeticLogError:  # a value no reader can read (nested too deeply, too many digits) or reads alike (a key
            pass  # written twice): named, tested above
    assert len(readable) >= len(lines) - 5
    try:
        import_noetic(readable, HARNESS, runs_dir=runs_dir)
    except RecordedRunError:  # the recording holds turn_aborted
        pass
    for frame in ("runs_df", "events_df", "usage_df"):
        df = getattr(noesis_nb, frame)(runs_dir)
        assert len(df) and df.attrs["errors"] == [], (frame, df.attrs["errors"])


# -- Taisce memory messages --------------------------------------------------------------------

MEMORY = {
    "watermark": {"stored": 12, "formed": 10, "parked": 1},
    "plan": {"degraded": False, "truncated": True},
    "facts": [{"statement": "tea"}],
    "reports": [],
    "passages": [{"id": "p"}],
}


@FUZZ
@given(field=st.sampled_from(_paths(MEMORY)), token=st.sampled_from(HOSTILE), ops=st.none() | OPS)
@example(field=("facts",), token="9" * 5000, ops=None)
def test_a_taisce_memory_message_with_hostile_json_is_a_memory_row_with_counts_or_a_parse_error(
    field: tuple[Any, ...], token: str, ops: Any
) -> None:
    body = _with_hostile(MEMORY, field, token).encode("utf-8", "surrogatepass")
    if ops:
        body = _mutated(body, ops)
    text = MEMORY_PREFIX + "\n" + body.decode("utf-8", "surrogateescape")
    info = parse_memory_message(text)
    if "parse_error" in info:
        assert isinstance(info["parse_error"], str)
    for key in ("stored", "formed", "parked", "facts", "reports", "passages", "segments", "turns"):
        assert key not in info or (type(info[key]) is int and info[key] >= 0), (key, info)
    for key in ("degraded", "truncated"):
        assert key not in info or type(info[key]) is bool, (key, info)
    rows = list(taisce_rows([{"role": "user", "content": text, "name": "taisce"}]))
    _sane(rows)
    assert rows[0][1]["untrusted"] is True and text[len(MEMORY_PREFIX) :] not in json.dumps(rows)


@pytest.mark.parametrize("extra", [[1], "taisce.untrusted", 5])
def test_a_transcript_message_whose_extra_fields_are_no_object_is_a_message_row(extra: Any) -> None:
    rows = list(taisce_rows([{"role": "user", "content": "hi", "additional_kwargs": extra}]))
    assert [(p["kind"], p["text"]) for _, p in rows] == [("message", "hi")]


# -- AG-UI recorded SSE bodies -----------------------------------------------------------------

AGUI_EVENTS: list[dict[str, Any]] = [
    {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
    {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"},
    {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "hi"},
    {"type": "TEXT_MESSAGE_END", "messageId": "m"},
    {"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "search", "parentMessageId": "m"},
    {"type": "TOOL_CALL_ARGS", "toolCallId": "c", "delta": '{"q": 1}'},
    {"type": "TOOL_CALL_END", "toolCallId": "c"},
    {"type": "TOOL_CALL_RESULT", "toolCallId": "c", "messageId": "m2", "content": "ok"},
    {"type": "REASONING_MESSAGE_CHUNK", "messageId": "m4", "delta": "y"},
    {"type": "CUSTOM", "name": "on_interrupt", "value": '{"question": "go?"}'},
    {"type": "MESSAGES_SNAPSHOT", "messages": [{"id": "1", "role": "user", "content": "hi"}]},
    {
        "type": "RUN_FINISHED",
        "threadId": "t",
        "runId": "r",
        "result": {"answer": 1},
        "usage": [{"model": "m", "inputTokens": 3}],
        "outcome": {"type": "interrupt", "interrupts": [{"id": "i", "toolCallId": "c"}]},
    },
]


def _sse(texts: list[str]) -> bytes:
    return "".join(f"data: {t}\n\n" for t in texts).encode("utf-8", "surrogatepass")


def _read_sse(body: bytes) -> list[Any]:
    text = body.decode("utf-8", "replace")  # as the HTTP reader decodes a body (SSE: bad bytes are U+FFFD)
    return agui_rows(parse_sse(text.splitlines(keepends=True), where="recorded.sse"))


@FUZZ
@given(ops=OPS)
def test_an_agui_sse_body_with_bytes_changed_reads_or_is_one_error_naming_the_line(ops: Any) -> None:
    body = _mutated(_sse([json.dumps(e) for e in AGUI_EVENTS]), ops)
    try:
        rows = _read_sse(body)
    except AGUIStreamError as exc:
        assert "recorded.sse, line " in str(exc) and exc.line is not None, exc
        return
    _sane(rows)


def _agui_fields() -> list[tuple[int, tuple[Any, ...]]]:
    return [(n, path) for n, event in enumerate(AGUI_EVENTS) for path in _paths(event) if path != ("type",)]


@FUZZ
@given(field=st.sampled_from(_agui_fields()), token=st.sampled_from(HOSTILE))
@example(field=(10, ("messages",)), token="1.5")
@example(field=(10, ("messages", 0)), token='"text"')
@example(field=(11, ("outcome", "interrupts", 0)), token='"text"')
@example(field=(11, ("usage",)), token="true")
@example(field=(5, ("delta",)), token='"' + "9" * 5000 + '"')
def test_an_agui_event_with_a_hostile_field_reads_or_is_one_error_naming_the_line(
    field: tuple[int, tuple[Any, ...]], token: str
) -> None:
    number, path = field
    texts = [json.dumps(e) for e in AGUI_EVENTS]
    texts[number] = _with_hostile(AGUI_EVENTS[number], path, token)
    if token == '"' + "9" * 5000 + '"':  # a string holding such a number: the tool call's arguments text
        texts[number] = texts[number].replace('"' + "9" * 5000 + '"', json.dumps("9" * 5000))
    try:
        rows = _read_sse(_sse(texts))
    except AGUIStreamError as exc:
        assert f"recorded.sse, line {2 * number + 1}: " in str(exc), exc
        return
    _sane(rows)


def test_an_sse_body_saved_with_a_byte_order_mark_keeps_its_first_event() -> None:
    body = b"\xef\xbb\xbf" + _sse([json.dumps(AGUI_EVENTS[0])]) + b"\xef\xbb\xbf" + _sse([json.dumps(AGUI_EVENTS[-1])])
    assert [p["kind"] for _, p in _read_sse(body)][:2] == ["run_started", "run_finished"]


def test_a_number_too_long_to_read_in_an_sse_event_is_named_with_its_line() -> None:
    body = _sse([json.dumps(AGUI_EVENTS[0]), '{"type": "RAW", "event": ' + "9" * 5000 + "}"])
    with pytest.raises(AGUIStreamError, match=r"recorded\.sse, line 3: the event is a number in it is too long") as got:
        _read_sse(body)
    assert got.value.line == 3


@pytest.mark.parametrize("item", [5, "RUN_STARTED", None, {"type": 5}])
def test_agui_rows_given_an_item_that_is_no_event_names_it(item: Any) -> None:
    with pytest.raises(AGUIStreamError, match=r"event #2 is .*not an AG-UI event"):
        agui_rows([AGUI_EVENTS[0], item])


def test_agui_rows_read_any_mapping_event_and_tuples_of_usage_entries_or_interrupts() -> None:
    """Events as read-only mappings and arrays as tuples (what a caller's own decoder may give) read as dicts and lists."""
    from types import MappingProxyType

    as_lists = [
        {"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
        {
            "type": "RUN_FINISHED",
            "outcome": {"type": "interrupt", "interrupts": [{"id": "i1", "reason": "tool_approval"}, "why?"]},
            "usage": [{"model": "m", "inputTokens": 12, "outputTokens": 3}],
        },
    ]
    finished = dict(as_lists[1])
    finished["outcome"] = {**finished["outcome"], "interrupts": tuple(finished["outcome"]["interrupts"])}
    finished["usage"] = (MappingProxyType(finished["usage"][0]),)
    as_tuples = [MappingProxyType(as_lists[0]), MappingProxyType(finished)]
    expected = agui_rows(as_lists)
    assert [p["kind"] for _, p in expected].count("approval_requested") == 2 and any(p["kind"] == "usage" for _, p in expected)
    assert agui_rows(as_tuples) == expected
    generated = dict(as_lists[1], usage=(u for u in as_lists[1]["usage"]))  # an in-process producer's generator
    assert agui_rows([as_lists[0], generated]) == expected
    for no_items in (5, "ab", {"model": "m"}):  # a number, a text or one mapping is no list of entries
        rows = agui_rows([as_lists[0], {**as_lists[1], "usage": no_items}])
        assert not any(p["kind"] == "usage" for _, p in rows)


def test_noetic_log_text_starting_with_a_byte_order_mark_is_read_as_text() -> None:
    text = "".join(json.dumps(e) + "\n" for e in NOETIC_LOG[:2])
    assert list(noetic_rows("\ufeff" + text)) == list(noetic_rows(text))


# -- Noeta envelopes ---------------------------------------------------------------------------

NOETA = [
    {"type": "TaskCreated", "seq": 1, "task_id": "t", "actor": "a", "payload": {"goal": "g"}},
    {"type": "LLMRequestStarted", "seq": 2, "task_id": "t", "payload": {"call_id": "c", "model": "m"}},
    {
        "type": "LLMRequestFinished",
        "seq": 3,
        "task_id": "t",
        "payload": {"call_id": "c", "usage": {"uncached": 1, "cache_read": 2, "cache_write": 3, "output": 4}, "cost_usd": 0.1},
    },
    {"type": "ToolCallApprovalRequested", "seq": 4, "task_id": "t", "payload": {"call_id": "k", "arguments": {"a": 1}}},
    {"type": "TaskFailed", "seq": 5, "task_id": "t", "payload": {"reason": "r", "detail": "d"}},
]


@FUZZ
@given(field=st.sampled_from([(n, p) for n, e in enumerate(NOETA) for p in _paths(e)]), token=st.sampled_from(HOSTILE))
def test_a_noeta_envelope_with_a_hostile_field_reads_or_is_one_error_naming_it(
    field: tuple[int, tuple[Any, ...]], token: str
) -> None:
    number, path = field
    text = "[" + ", ".join(json.dumps(e) for e in NOETA[:number]) + ("," if number else "")
    text += _with_hostile(NOETA[number], path, token) + "".join(", " + json.dumps(e) for e in NOETA[number + 1 :]) + "]"
    try:
        envelopes = json.loads(text)
    except (ValueError, RecursionError):
        return  # no JSON a saved list could come from
    try:
        rows = noeta_rows(envelopes)
    except NoetaEnvelopeError as exc:
        assert f"envelope #{number + 1}" in str(exc), exc
        return
    _sane(rows)
    for _, payload in rows:
        for key in ("input_tokens", "output_tokens", "cached_input_tokens", "cache_write_input_tokens"):
            value = payload.get(key)
            assert value is None or (type(value) is int and value >= 0 and not math.isnan(value))


# -- imported: what another system sent in any field is a run every frame reads without a problem ---------------


def _rotated(events: list[dict[str, Any]], skip: tuple[Any, ...] = ()) -> list[list[Any]]:
    """One recording per field of ``events`` (its ``type`` kept), that field holding the next hostile value in turn;
    recordings no JSON reader takes (nesting too deep, too many digits) are left out."""
    out = []
    fields = [(n, path) for n, event in enumerate(events) for path in _paths(event) if path[0] not in ("type", *skip)]
    for i, (n, path) in enumerate(fields):
        texts = [json.dumps(e) for e in events]
        texts[n] = _with_hostile(events[n], path, HOSTILE[i % len(HOSTILE)])
        try:
            out.append([json.loads(t) for t in texts])
        except (ValueError, RecursionError):
            continue
    return out


def _frames_read_without_a_problem(runs_dir: Path) -> None:
    import noesis_nb

    for frame in ("runs_df", "events_df", "usage_df", "tools_df"):
        df = getattr(noesis_nb, frame)(runs_dir, cache=False)
        assert df.attrs["errors"] == [], (frame, df.attrs["errors"][:3])
    usage = noesis_nb.usage_df(runs_dir, cache=False)
    for column in ("model", "provider"):
        assert all(isinstance(v, str) for v in usage[column].dropna()), usage[column]


def test_agui_recordings_with_any_value_in_any_field_import_to_runs_every_frame_reads(runs_dir: Path) -> None:
    from noesis_nb.integrations.replay import import_rows

    for events in _rotated(AGUI_EVENTS):
        import_rows(agui_rows(events), task="imported", source="agui", runs_dir=runs_dir)
    _frames_read_without_a_problem(runs_dir)


def test_noeta_envelopes_with_any_value_in_any_field_import_to_runs_every_frame_reads(runs_dir: Path) -> None:
    from noesis_nb.integrations.noeta import import_noeta

    for envelopes in _rotated(NOETA, skip=("task_id",)):
        try:
            import_noeta(envelopes, runs_dir=runs_dir)
        except RecordedRunError:  # the recording holds TaskFailed
            pass
    _frames_read_without_a_problem(runs_dir)


@pytest.mark.parametrize("field", ["cost", "model", "provider"])
def test_a_harness_response_whose_cost_or_model_is_of_another_type_imports_to_a_run_every_frame_reads(
    runs_dir: Path, field: str
) -> None:
    for token in ('"0.01"', "[1]", '{"usd": 1}', "-1", "1e300", "true"):
        harness = json.loads(_with_hostile({**HARNESS, "model": "m", "provider": "p"}, (field,), token))
        try:
            import_noetic([json.dumps(e) for e in NOETIC_LOG], harness, runs_dir=runs_dir)
        except RecordedRunError:
            pass
    _frames_read_without_a_problem(runs_dir)
