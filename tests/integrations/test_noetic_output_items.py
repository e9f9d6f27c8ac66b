"""Noetic text and reasoning deltas are folded per output item: two items are two rows, interleaved pieces kept apart.

OpenResponses streams each output item under its ``outputIndex`` (and ``item_id``). All deltas were joined into one
row until the next event that was no delta, so two messages became one, and interleaved pieces of two items were
spliced (``"Hello " + "Bonjour " + "world"``).
"""

from __future__ import annotations

from typing import Any

from noesis_nb.integrations.noetic import import_noetic, noetic_rows
from noesis_nb.store import read_events


def delta(index: Any, text: str, *, kind: str = "response.output_text.delta", **data: Any) -> dict[str, Any]:
    event: dict[str, Any] = {"source": "sdk", "type": kind, "data": {"delta": text, **data}, "contentIndex": 0}
    if index is not None:
        event["outputIndex"] = index
    return event


def folded(log: list[dict[str, Any]]) -> list[tuple[str, Any, str]]:
    return [(p["kind"], p.get("output_index", p.get("item_id")), p["text"]) for _, p in noetic_rows(log) if "text" in p]


def test_two_output_items_are_two_message_rows():
    assert folded([delta(0, "First answer. "), delta(1, "Second, separate message.")]) == [
        ("message", 0, "First answer. "),
        ("message", 1, "Second, separate message."),
    ]


def test_interleaved_pieces_of_two_items_are_joined_per_item_in_the_order_the_items_began():
    assert folded([delta(0, "Hello "), delta(1, "Bonjour "), delta(0, "world"), delta(1, "le monde")]) == [
        ("message", 0, "Hello world"),
        ("message", 1, "Bonjour le monde"),
    ]


def test_items_named_by_item_id_alone_are_kept_apart():
    log = [delta(None, "a", item_id="msg_1"), delta(None, "b", item_id="msg_2"), delta(None, "c", item_id="msg_1")]
    assert folded(log) == [("message", "msg_1", "ac"), ("message", "msg_2", "b")]


def test_reasoning_and_text_of_different_items_interleaved_are_two_rows():
    log = [
        delta(0, "think ", kind="response.reasoning_text.delta"),
        delta(1, "Answer"),
        delta(0, "harder", kind="response.reasoning_text.delta"),
    ]
    rows = list(noetic_rows(log))
    assert [(ph, p["kind"], p["text"]) for ph, p in rows] == [
        ("reason", "reasoning", "think harder"),
        ("integration", "message", "Answer"),
    ]


def test_an_item_done_gives_its_row_there_while_another_item_goes_on_streaming():
    log = [
        delta(0, "Hel"),
        delta(1, "Bon"),
        delta(0, "lo"),
        {"source": "sdk", "type": "response.output_text.done", "outputIndex": 0, "data": {"text": "Hello"}},
        delta(1, "jour"),
        {"source": "framework", "type": "a:turn_completed", "data": {}},
    ]
    rows = [(p["event_name"], p.get("text")) for _, p in noetic_rows(log)]
    assert rows == [
        ("noetic.sdk.message", "Hello"),
        ("noetic.sdk.response.output_text.done", None),
        ("noetic.sdk.message", "Bonjour"),
        ("noetic.turn_completed", None),
    ]


def test_an_event_inside_an_item_does_not_cut_its_text_in_two():
    log = [
        delta(0, "See "),
        {"source": "sdk", "type": "response.output_text.annotation.added", "outputIndex": 0, "data": {}},
        delta(0, "the docs"),
    ]
    assert folded(log) == [("message", 0, "See the docs")]


def test_pieces_without_an_index_still_fold_into_one_row():
    assert folded([delta(None, "one "), delta(None, "row")]) == [("message", None, "one row")]


def test_an_imported_run_holds_one_message_event_per_output_item(runs_dir):
    log = [
        {"source": "framework", "type": "a:turn_started", "data": {"turnId": "t"}},
        delta(0, "Hello "),
        delta(1, "Bonjour "),
        delta(0, "world"),
        {"source": "framework", "type": "a:turn_completed", "data": {"turnId": "t"}},
    ]
    episode = import_noetic(log, runs_dir=runs_dir)
    events = read_events(runs_dir / episode / "events.jsonl")
    texts = [e["payload"]["text"] for e in events if e["payload"].get("kind") == "message"]
    assert texts == ["Hello world", "Bonjour "]


def test_a_done_naming_the_index_too_closes_an_item_whose_pieces_named_its_id_alone():
    def done(index: int, item: str, text: str) -> dict[str, Any]:
        data = {"text": text, "item_id": item}
        return {"source": "sdk", "type": "response.output_text.done", "outputIndex": index, "data": data}

    log = [
        delta(None, "Hel", item_id="msg_a"),
        delta(None, "lo", item_id="msg_a"),
        done(0, "msg_a", "Hello"),
        delta(None, "Bon", item_id="msg_b"),
        delta(None, "jour", item_id="msg_b"),
        done(1, "msg_b", "Bonjour"),
    ]
    rows = [(p["event_name"], p.get("text")) for _, p in noetic_rows(log)]
    assert rows == [
        ("noetic.sdk.message", "Hello"),
        ("noetic.sdk.response.output_text.done", None),
        ("noetic.sdk.message", "Bonjour"),
        ("noetic.sdk.response.output_text.done", None),
    ]


def test_a_done_naming_only_its_index_leaves_an_item_named_by_its_id_streaming():
    """``response.output_item.done`` names its index and, inside ``item``, its id: item a's end is not item b's."""

    def sdk(kind: str, **data: Any) -> dict[str, Any]:
        return {"source": "sdk", "type": kind, "data": data}

    log = [
        sdk("response.output_text.delta", item_id="a", delta="Hel"),
        sdk("response.output_text.delta", item_id="b", delta="Wor"),
        sdk("response.output_text.delta", item_id="a", delta="lo"),
        sdk("response.output_text.done", output_index=0),  # names no item: the pieces named none of its index
        sdk("response.output_item.done", output_index=0, item={"id": "a"}),
        sdk("response.output_text.delta", item_id="b", delta="ld"),
        sdk("response.output_text.done", item_id="b", output_index=1),
    ]
    assert [(p["item_id"], p["text"]) for _, p in noetic_rows(log) if p.get("kind") == "message"] == [
        ("a", "Hello"),
        ("b", "World"),
    ]
