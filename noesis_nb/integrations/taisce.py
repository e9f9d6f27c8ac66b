"""Taisce memory injections in a transcript → distinct, untrusted ``memory`` rows.

Taisce injects recalled memory as **one user message** whose first line is
``taisce-memory/v1 untrusted`` followed by JSON (``watermark``, ``plan``, ``facts``,
``reports``, ``passages``; or the compaction variant with ``segments``, ``turns``). Such a
message is never the person's words: it becomes a ``memory`` row (``event_name``
``taisce.memory_injection``, ``untrusted: true``) with counts, not its text. Other messages
are ordinary ``message`` rows. Unknown keys are tolerated; the version lives in the prefix.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..errors import NoesisNbError
from ..secrets.display import shown_cut
from ._emit import PHASE, Row, as_object, as_text, row, token_count
from ._jsontext import JSONTextError, loads_text
from .replay import RecordedReplay, import_rows, is_one_shot, rereadable

__all__ = [
    "MEMORY_PREFIX",
    "TaisceTranscriptError",
    "is_memory_message",
    "parse_memory_message",
    "taisce_rows",
    "taisce_replay",
    "import_taisce",
]

MEMORY_PREFIX = "taisce-memory/v1 untrusted"
_ENDS = "assistant answer"  # what ends a transcript (one ending on the user's message was cut short)


class TaisceTranscriptError(NoesisNbError, TypeError):
    """A transcript item that is not a message; the message names its index."""


_LEAD = "\ufeff \t\r\n"  # before the prefix: a byte order mark or blank lines a writer or an editor put there


def is_memory_message(text: Any) -> bool:
    """Whether ``text`` is a Taisce memory message: its first line is the prefix (after a byte order mark or blanks)."""
    return isinstance(text, str) and text.lstrip(_LEAD).startswith(MEMORY_PREFIX)


def parse_memory_message(text: str) -> dict[str, Any]:
    """Counts and freshness of one memory message (``parse_error`` when its JSON is unreadable)."""
    body = text.lstrip(_LEAD)[len(MEMORY_PREFIX) :].strip() if is_memory_message(text) else text
    info: dict[str, Any] = {"characters": len(text)}
    try:
        doc = loads_text(body.removeprefix("\ufeff")) if body else {}
    except JSONTextError as exc:
        return {**info, "parse_error": exc.reason}
    if not isinstance(doc, dict):
        return {**info, "parse_error": f"expected a JSON object after the prefix, got {type(doc).__name__}"}
    watermark = as_object(doc.get("watermark"))
    plan = as_object(doc.get("plan"))
    info.update(
        variant="compaction" if "segments" in doc or "turns" in doc else "recall",
        stored=token_count(watermark.get("stored")),
        formed=token_count(watermark.get("formed")),
        parked=token_count(watermark.get("parked")),
        degraded=_flag(plan.get("degraded")),
        truncated=_flag(plan.get("truncated")),
    )
    for key in ("facts", "reports", "passages", "segments", "turns"):
        if isinstance(doc.get(key), list):
            info[key] = len(doc[key])
    return {k: v for k, v in info.items() if v is not None}


def _content_text(content: Any) -> str:
    """A message's content as text: parts (a list of blocks) as their JSON, or bounded ``repr`` when JSON cannot hold them."""
    return "" if content is None else str(as_text(content, sort_keys=False))


def _block_text(content: Any) -> str | None:
    """The text of content given as blocks (``[{"type": "text", "text": …}]`` or strings, as LangChain and the
    OpenAI format allow), joined; None when it is no list or a block holds anything but text."""
    if not isinstance(content, list) or not content:
        return None
    texts: list[str] = []
    for block in content:
        value = block.get("text") if isinstance(block, dict) and block.get("type") == "text" else block
        if not isinstance(value, str):
            return None
        texts.append(value)
    return "".join(texts)


def _memory_text(content: Any, text: str) -> str | None:
    """The memory message a content holds, as text (also when given as text blocks), or None when it holds none."""
    if is_memory_message(text):
        return text
    blocks = _block_text(content)
    return blocks if is_memory_message(blocks) else None


def _flag(value: Any) -> bool | None:
    """A true/false field as a bool; anything else is unknown (None), never taken as true."""
    return value if isinstance(value, bool) else None


def _message(item: Any, index: int) -> tuple[Any, Any, Any, dict[str, Any]]:
    """``(role, content, name, extra properties)`` of a dict, LangChain or Agent Framework message (or its ``to_dict``)."""
    if isinstance(item, dict):
        return (
            _role(item.get("role")),
            item["content"] if "content" in item else item.get("contents"),
            item.get("name") or item.get("author_name"),
            as_object(item.get("additional_kwargs") or item.get("additional_properties")),
        )
    if hasattr(item, "content") or hasattr(item, "contents"):
        role = _role(getattr(item, "role", None)) or {"human": "user", "ai": "assistant"}.get(
            getattr(item, "type", ""), getattr(item, "type", None)
        )
        # an Agent Framework ChatMessage has no ``content``: its ``text`` joins its text contents
        content = item.content if hasattr(item, "content") else getattr(item, "text", None)
        name = getattr(item, "name", None) or getattr(item, "author_name", None)
        extra = getattr(item, "additional_kwargs", None) or getattr(item, "additional_properties", None) or {}
        return role, content, name, as_object(extra)
    raise TaisceTranscriptError(
        f"transcript item #{index} is a {type(item).__name__}, not a message; pass dicts "
        "{role, content} or LangChain / Agent Framework messages"
    )


def _role(value: Any) -> Any:
    """A role as text: Agent Framework gives a ``Role`` object (``.value``), or ``{"type": "role", "value": …}``."""
    inner = value.get("value") if isinstance(value, dict) else getattr(value, "value", None)
    return inner if isinstance(inner, str) and not isinstance(value, str) else value


def taisce_rows(messages: Iterable[Any]) -> Iterator[Row]:
    """Rows for a transcript: memory injections as untrusted ``memory`` rows, the rest as ``message`` rows."""
    if isinstance(messages, (str, bytes, os.PathLike, dict)):  # iterated, these give characters or keys, not messages
        raise TaisceTranscriptError(
            f"the transcript is a {type(messages).__name__} ({shown_cut(str(messages), 60)!r}), not a list of messages; pass the "
            "messages themselves (dicts {role, content} or LangChain / Agent Framework messages), e.g. json.load(f)['messages']"
        )
    for index, item in enumerate(messages, 1):
        role, content, name, extra = _message(item, index)
        text = _content_text(content)
        memory = _memory_text(content, text)
        if memory is not None or extra.get("taisce.untrusted") or name == "taisce":
            info = parse_memory_message(memory) if memory is not None else {"parse_error": "no taisce-memory/v1 prefix"}
            yield row(
                "memory", "taisce", "memory_injection", "memory_injection", untrusted=True, index=index, injected_as=role, **info
            )
        else:
            yield row(PHASE, "taisce", "message", "message", role=role, name=name, text=text, index=index)


def taisce_replay(
    messages: Iterable[Any] | Callable[[], Iterable[Any]], *, output: Callable[[Any], Any] | None = None
) -> RecordedReplay:
    """An adapter replaying a Taisce-wrapped agent's transcript."""
    given = messages if callable(messages) else rereadable(messages, "taisce")
    return RecordedReplay(lambda: taisce_rows(given()), source="taisce", output=output, end_names=_ENDS, timed=False)


def import_taisce(messages: Iterable[Any], *, task: str = "imported Taisce transcript", **opts: Any) -> str:
    """Write a transcript as a sealed Noēsis run; returns the episode id."""
    whole = not is_one_shot(messages)  # a list of messages is complete; a generator may still be producing
    rows = lambda: taisce_rows(messages)  # noqa: E731
    return import_rows(rows, task=task, source="taisce", whole=whole, end_names=_ENDS, timed=False, **opts)
