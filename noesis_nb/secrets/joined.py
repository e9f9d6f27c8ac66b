"""Secrets split across adjacent strings of a list: streamed chunks, argv words, pieces joined later.

The texts of a list of streamed chunk records (``[{"delta": "sk-proj-Ab12"}, {"delta": "Cd34…"}]``) are
such strings too (``chunk_texts``).

``["sk-proj-Ab12", "Cd34…"]`` (a model's streamed deltas), ``["password=", "hunter2"]`` or
``["Authorization: Bearer", "tok…"]`` hold a secret that no single string shows. Each run of adjacent
strings is read joined as a program would join it (with nothing, and with a space, as a shell joins
argv), and each secret found there is cut back into the pieces that hold it. Only rules that need a
token's shape or a secret-looking name apply (not the random-word rule: two ordinary ids side by side
would look like one random word).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["split_secrets", "chunk_text", "chunk_texts", "CHUNK_TEXT_KEYS", "CHUNK_TOP_KEYS"]

# where a streamed chunk's text sits, as the common streams carry it (one list: the write path, ``streamed``, and the
# read path, ``records``, both find pieces by it): OpenAI chat ``{"choices": [{"delta": {"content": …}}]}``, OpenAI
# Responses and AG-UI ``{"delta": …}``, Anthropic ``{"delta": {"type": "text_delta", "text": …}}`` and its
# ``partial_json``, LangChain ``{"content": …}``, Ollama ``{"message": {"content": …}}`` and ``{"response": …}``,
# and a plain ``text``, ``chunk`` or ``token``
CHUNK_TEXT_KEYS = ("text", "delta", "content", "response", "token", "chunk", "partial_json")
_CHUNK_HOLDERS = ("message",)  # a dict holding the chunk's text a level down (``delta`` is one too)
#: the names an event payload holding a streamed piece has at its top (``choices``: a one-item list of chunks)
CHUNK_TOP_KEYS = frozenset((*CHUNK_TEXT_KEYS, *_CHUNK_HOLDERS, "choices"))


def chunk_text(item: Any, depth: int = 0, *, messages: bool = False) -> tuple[tuple[str | int, ...], str] | None:
    """``(path, text)`` of a streamed chunk record's text inside ``item``, or None when it is no such record. A chat
    message (``role`` beside its text) is none in a list of records (a conversation, each whole) unless ``messages``
    (an event each: a delta as the provider's client gives it, ``{"role": None, "content": "sk-"}``)."""
    if depth > 3 or not isinstance(item, dict) or (depth == 0 and not messages and "role" in item):
        return None
    for key in CHUNK_TEXT_KEYS:
        value = item.get(key)
        if isinstance(value, str):
            return (key,), value
        inner = chunk_text(value, depth + 1) if isinstance(value, dict) else None
        if inner is not None:
            return (key, *inner[0]), inner[1]
    for key in _CHUNK_HOLDERS:
        value = item.get(key)
        inner = chunk_text(value, depth + 1) if isinstance(value, dict) else None
        if inner is not None:
            return (key, *inner[0]), inner[1]
    choices = item.get("choices")
    if isinstance(choices, list) and len(choices) == 1:
        inner = chunk_text(choices[0], depth + 1)
        if inner is not None:
            return ("choices", 0, *inner[0]), inner[1]
    return None


def chunk_texts(items: Sequence[Any]) -> list[tuple[tuple[str | int, ...], str] | None] | None:
    """``chunk_text`` of each item of a list of 2+ chunk records (a stream kept as its events); None for other lists."""
    if sum(isinstance(v, dict) for v in items) < 2:
        return None
    texts = [chunk_text(v) for v in items]
    return texts if sum(t is not None for t in texts) > 1 else None


_WHOLE_BELOW = 4  # a piece holding fewer characters of a secret is redacted whole (a short substring would eat others)


def _widened(joined: str, bound: tuple[int, int], a: int, b: int) -> str:
    """The part ``joined[a:b]`` of the piece at ``bound``, taken to ``_WHOLE_BELOW`` characters into the rest of
    its piece when shorter: the secret's head ending a piece or its tail starting one (``"x and more"`` after
    ``"sk-proj-…uvw"``) is redacted with its neighbours, not with the whole piece; a piece of fewer characters
    is redacted whole."""
    first, last = bound
    if b - a >= _WHOLE_BELOW or last - first < _WHOLE_BELOW:
        return joined[a:b]
    if a == first:  # the secret's tail starts the piece
        return joined[a : a + _WHOLE_BELOW]
    return joined[b - _WHOLE_BELOW : b]  # its head ends the piece


def split_secrets(items: Sequence[Any], find: Callable[[str], set[str]]) -> dict[int, tuple[set[str], bool]]:
    """``{index: (values, whole)}`` for the strings of ``items`` holding part of a secret that only their
    joined text shows: ``values`` are the parts (to redact there) and the whole secret (to learn);
    ``whole`` when the part is too short to redact as a substring."""
    out: dict[int, tuple[set[str], bool]] = {}
    start = 0
    while start < len(items):
        if not isinstance(items[start], str):
            start += 1
            continue
        end = start
        while end < len(items) and isinstance(items[end], str):
            end += 1
        if end - start > 1:
            for sep in ("", " "):
                _cut(items, start, end, sep, find, out)
        start = end
    return out


def _cut(
    items: Sequence[Any], start: int, end: int, sep: str, find: Callable[[str], set[str]], out: dict[int, tuple[set[str], bool]]
) -> None:
    offsets = []  # (index, first, last) of each piece inside the joined text
    pos = 0
    for i in range(start, end):
        offsets.append((i, pos, pos + len(items[i])))
        pos += len(items[i]) + len(sep)
    joined = sep.join(items[start:end])
    bounds = {i: (a, b) for i, a, b in offsets}
    for value in find(joined):
        at = joined.find(value)
        while at >= 0:
            stop = at + len(value)
            pieces = [(i, max(a, at), min(b, stop)) for i, a, b in offsets if a < stop and b > at]
            secret = value
            if not sep and len(pieces) > 1:
                pieces, secret = _without_word_after(joined, pieces, value, find)
            if not (len(pieces) == 1 and secret in find(items[pieces[0][0]])):  # its own scan finds it
                for i, a, b in pieces:
                    if b <= a:
                        continue
                    part = _widened(joined, bounds[i], a, b)
                    values, whole = out.get(i, (set(), False))
                    values.update((part, secret))
                    out[i] = (values, whole or len(part) < _WHOLE_BELOW)
            at = joined.find(value, at + 1)


_WORD_AFTER = re.compile(r"[A-Z]?[a-z]{2,7}")


def _without_word_after(
    joined: str, pieces: list[tuple[int, int, int]], value: str, find: Callable[[str], set[str]]
) -> tuple[list[tuple[int, int, int]], str]:
    """``(pieces, value)`` without the last piece when its part is a word that only the joining glued on:
    ``["…ghp_<token>", "Thanks!"]`` reads ``ghp_<token>Thanks`` joined, but the token ends with its piece.
    The word is dropped only when what is left is a secret by itself and the word is short and word-like (a
    vowel, lower case after its first letter): a real secret's tail that looks so is at most 7 characters,
    shorter than any fragment that identifies it, and the rest of it is still redacted."""
    _, a, b = pieces[-1]
    tail = joined[a:b]
    head = value[: len(value) - len(tail)]
    if _WORD_AFTER.fullmatch(tail) and _VOWELS.intersection(tail) and head in find(head):
        return pieces[:-1], head
    return pieces, value


_VOWELS = frozenset("aeiouyAEIOUY")
