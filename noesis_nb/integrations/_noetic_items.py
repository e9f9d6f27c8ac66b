"""Noetic SDK text and reasoning deltas folded into one row per output item (``outputIndex`` / ``item_id``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from ._emit import PHASE, Row, row

__all__ = ["Folds"]


def _scalar(value: Any) -> Any:
    """An output index or item id as a key: a whole number or a text as given, None when absent, anything else one
    unknown (a NaN is no key: it equals nothing, not even itself)."""
    if value is None or type(value) in (int, str):
        return value
    return int(value) if type(value) is float and value.is_integer() else "?"


def _item(event: dict[str, Any], data: dict[str, Any]) -> tuple[Any, Any]:
    """``(output index, item id)`` an SDK event names, as given (top level ``outputIndex``, else in its data)."""
    index = event["outputIndex"] if "outputIndex" in event else data.get("output_index", data.get("outputIndex"))
    item = data.get("item_id", data.get("itemId"))
    if item is None and isinstance(data.get("item"), dict):  # ``response.output_item.done`` names its item inside it
        item = data["item"].get("id")
    return index, item


class Folds:
    """Text and reasoning deltas folded into one row per output item, the items kept apart.

    OpenResponses streams each output item (a message, a reasoning item) under its ``outputIndex`` (and ``item_id``);
    a model streaming two items at once interleaves their deltas. Each item's pieces are joined in a row of its own,
    given out when the item is done (an SDK ``….done`` event naming it), else at the next framework event or SDK
    event naming no item, else at the end of the log; items given out together come in the order they began.
    """

    def __init__(self) -> None:
        self.open: dict[tuple[str, Any, Any], dict[str, Any]] = {}  # insertion order: the order the items began

    def add(self, kind: str, event: dict[str, Any], data: dict[str, Any]) -> None:
        index, item = _item(event, data)
        key = (kind, _scalar(index), _scalar(item))
        fold = self.open.setdefault(key, {"kind": kind, "parts": [], "index": index, "item": item})
        fold["parts"].append(str(data.get("delta") or ""))

    def before(self, event: dict[str, Any], data: dict[str, Any]) -> Iterator[Row]:
        """The rows of the items ``event`` (no delta) closes: all of them, or only the one a ``….done`` event names."""
        index, item = _item(event, data) if event.get("source") == "sdk" else (None, None)
        if index is None and item is None:
            return self.flush()
        if not str(event.get("type")).endswith(".done"):
            return iter(())  # another item's event (or one inside this item, such as an annotation): items stay open
        index, item = _scalar(index), _scalar(item)
        return self.flush(lambda key: _closes(index, item, key))

    def flush(self, closes: Callable[[tuple[str, Any, Any]], bool] = lambda key: True) -> Iterator[Row]:
        for key in [key for key in self.open if closes(key)]:
            fold = self.open.pop(key)
            kind = fold["kind"]
            yield row(
                "reason" if kind == "reasoning" else PHASE,
                "noetic",
                f"sdk.{kind}",
                kind,
                role="assistant" if kind == "message" else None,
                text="".join(fold["parts"]),
                output_index=fold["index"],
                item_id=fold["item"],
            )


def _closes(index: Any, item: Any, held: tuple[str, Any, Any]) -> bool:
    """Whether a ``….done`` naming ``index`` and ``item`` is the end of the item whose pieces named ``held``'s: a side
    both name must agree, and one of them must be named by both (an item whose pieces named neither is any item's)."""
    held_index, held_item = held[1], held[2]
    if held_index is None and held_item is None:
        return True
    by_index, by_item = index is not None and held_index is not None, item is not None and held_item is not None
    return (by_index or by_item) and (not by_index or held_index == index) and (not by_item or held_item == item)
