"""Streamed text released as it comes, with no piece of a secret in what is released (``LiveText``).

A peer streams a message in pieces, some one character long; recorded or shown one by one, a key split
across them would be in no single piece for a detector to find, and in the run all the same. ``LiveText``
releases each piece's text at once except the trailing run of characters that could still be part of a
key (the key alphabet below, which every token shape detectors know is written in) or the start of a value
the run already learned (:class:`~.live_values.ValuePrefixes`). So a key is always whole in one release,
where the run's secrets find and redact it; prose and CJK text still flow, held back by a word at most.
"""

from __future__ import annotations

from .guard import RunSecrets
from .known import replaced
from .live_values import ValuePrefixes
from .names import REDACTED_VALUE

__all__ = ["LiveText", "KEY_CHARS"]

_KEY_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!#$%&*+-./:=?@\\^_|~"
KEY_CHARS = frozenset(_KEY_ALPHABET)
_CONTEXT = 64  # characters released before a piece that its screening sees too (``password: `` before a value)
# a run of key characters longer than this is no key a detector knows (a blob, a long URL): all but its last
# ``_KEEP`` characters are released, so one stream never holds more, and each piece costs at most that much
_MAX_HOLD = 8192
_KEEP = 1024


class LiveText:
    """One stream (a message, a tool call's arguments): :meth:`push` a piece, get what may be released now;
    :meth:`close` releases the rest. What is released is screened with ``secrets`` (the run's), which learn
    what they find; without one, a fresh ``RunSecrets`` for this stream."""

    def __init__(self, secrets: RunSecrets | None = None) -> None:
        self.secrets = secrets if secrets is not None else RunSecrets()
        self._held = ""
        self._run = 0  # where the trailing run of key characters starts in ``_held`` (it runs to its end)
        self._before = ""  # the end of what was released: context for a detector that reads a name before a value
        self._values: tuple[str, ...] = ()
        self._prefixes = ValuePrefixes(())

    @property
    def held(self) -> int:
        """Characters received and not yet released."""
        return len(self._held)

    def push(self, piece: str) -> str:
        learned = self._learned()
        text = self._held + piece
        tail = _run_start(piece)  # only the new piece is read: the held run is known
        run = self._run if tail == 0 else len(self._held) + tail
        cleaned = _without(text, learned)  # a learned value whole here: no cut may fall inside it
        if cleaned is not text:
            text, run = cleaned, _run_start(cleaned)
        cut = min(run, learned.open_start(text))
        if len(text) - cut > _MAX_HOLD:
            cut = len(text) - _KEEP
        self._held, self._run = text[cut:], max(run - cut, 0)
        return self._screen(text[:cut])

    def close(self) -> str:
        """Everything still held, screened (the stream ended, or broke off)."""
        text, self._held, self._run = self._held, "", 0
        return self._screen(text)

    def _learned(self) -> ValuePrefixes:
        values = self.secrets.values
        if values is not self._values:  # a new tuple whenever the run learns a value
            self._values, self._prefixes = values, ValuePrefixes(values)
        return self._prefixes

    def _screen(self, text: str) -> str:
        if not text:
            return text
        self.secrets.redact(self._before + text)  # learns what it finds, a name before the value included
        out = _without(self.secrets.scrub_text(text), self._learned())  # also a value JSON-escaped in arguments
        self._before = (self._before + out)[-_CONTEXT:]
        return out


_SEARCHED_EACH = 128  # forms looked for one by one: a piece is short (65 forms: 2.8 µs a piece one by one, 4.1 compiled)


def _without(text: str, learned: ValuePrefixes) -> str:
    """``text`` with the learned values' forms (as written and JSON-escaped; longest first) redacted; ``text``
    itself when none is in it. Many forms are found in one pass (a run that learned hundreds of values)."""
    if len(learned.forms) > _SEARCHED_EACH:
        where = learned.known.spans(text)
        return replaced(text, where, REDACTED_VALUE) if where else text
    for form in learned.forms:
        if form in text:
            text = text.replace(form, REDACTED_VALUE)
    return text


def _run_start(text: str) -> int:
    """Where the trailing run of key characters of ``text`` starts (``len(text)`` when it ends in another)."""
    return len(text.rstrip(_KEY_ALPHABET))
