"""Secrets split across events: an agent writing one event per streamed delta (``{"delta": "sk-pr"}``, ``{"delta":
"oj-Ab…"}``).

No single event shows such a key, so each piece passed screening. Each new piece is read joined with the stream's
last pieces (``TAIL`` characters of them, each as screened alone): the part of a secret the new piece holds is redacted before
it is written, and the parts earlier pieces hold (written already) are noted by event id and character span, for
the late sweep to rewrite when the run pauses or is sealed. A stream is the events of one phase whose chunk text
sits at one place (``chunk_text``: ``delta``, ``text``, ``content``…).

A value that reaches the end of the joined text may go on in the next piece: a short one there (``auth: re``,
the start of ``required``) is left until a piece follows, or until the sweep reads the stream's end as its end.
"""

from __future__ import annotations

import re
import string
import threading
from collections import deque
from collections.abc import Callable
from typing import Any

from .joined import CHUNK_TEXT_KEYS, CHUNK_TOP_KEYS, chunk_text
from .known import Known, replaced, spans
from .names import REDACTED_VALUE
from .text import KEYWORDS_STR

__all__ = [
    "Streams",
    "TAIL",
    "QUIET_END",
    "KEYWORD",
    "TOKEN",
    "GOES_ON",
    "DELTA_KEYS",
    "streamed_piece",
    "lone_text",
    "TEXT_NAMED",
    "text_at",
    "set_at",
    "redact_streams",
]

TAIL = 256  # characters of a stream's last pieces kept, read joined at its end; a longer text is no delta
_NEAR = 96  # characters before a new piece read joined with it (the rules' cost grows faster than the text)
TOKEN = string.ascii_letters + string.digits + "+/=_-%"  # what a key is made of (``text._TOKEN_CHARS``)
KEYWORD = KEYWORDS_STR  # a secret-looking name's keyword, or a URL's ``://``
GOES_ON = 20  # a value this long found at the joined text's end is a secret's start already (a key's shape)
QUIET_END = 24  # characters of a quiet stream's end kept (a keyword or a key's characters split across two pieces)

#: a payload holding none of these keys at its top is no streamed piece (``streamed_piece``'s first test, also made
#: inline): every common stream's shape (``joined.CHUNK_TOP_KEYS``); a whole message under one is read as a piece too
DELTA_KEYS = CHUNK_TOP_KEYS

Where = tuple[str | int, ...]  # the place of the chunk text in an event's payload
Spans = list[tuple[int, int]]


class _Piece:
    """One streamed piece: its event, its text as given and as screened alone, and the spans of the given text that
    secrets found joined cover (written redacted)."""

    __slots__ = ("event_id", "text", "alone", "written")

    def __init__(self, event_id: str, text: str, alone: str) -> None:
        self.event_id, self.text, self.alone, self.written = event_id, text, alone, Spans()

    def shown(self, ranges: Spans) -> str:
        """The piece as written with ``ranges`` redacted too: its own redactions (screened alone) and these, as spans of
        its text; the whole piece when its own ones cannot be placed in it."""
        if not ranges:
            return self.alone
        own = [] if self.alone == self.text else _own_spans(self.text, self.alone)
        return REDACTED_VALUE if own is None else _redacted(self.text, own + ranges)


class _Stream:
    """A stream's last pieces, and what the cheap test before reading them joined needs."""

    __slots__ = ("pieces", "size", "run", "since", "end")

    def __init__(self) -> None:
        self.pieces: deque[_Piece] = deque()
        self.size = 0  # characters of the pieces kept
        self.run = 0  # the token characters ending the stream so far (a key's pieces before the next)
        self.since = _NEAR + 1  # characters since a keyword of a secret-looking name ended
        self.end = ""  # the stream's last characters (a keyword split across two pieces)


class Streams:
    """The last pieces of a run's streams, and the spans of earlier pieces a secret found later covers; thread-safe."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.joined: dict[tuple[str, Where], _Stream] = {}  # the streams whose pieces are read joined
        self.noted: dict[str, tuple[Where, _Piece, Spans]] = {}  # event id -> its piece and the spans to redact
        self.pairs: tuple[Known | None, frozenset[str]] = (None, frozenset())  # the known values' character pairs
        #: streams whose pieces so far could join into no secret (no keyword, no run of key characters crossing from
        #: one into the next, no known value's two characters where they meet): ``(phase, where)`` -> (their last
        #: ``QUIET_END`` characters, their last pieces (``TAIL`` characters) as ``(event id, text, alone)``, and their
        #: size). The screen
        #: keeps them itself, inline, without a call per piece (``RunSecrets.screen``); ``piece`` takes a stream over
        self.quiet: dict[tuple[str, Where], tuple[str, list[tuple[str, str, str]], int]] = {}

    def piece(
        self,
        event_id: str,
        phase: str,
        where: Where,
        text: str,
        alone: str,
        find: Callable[[str], set[str]],
        known: Known | None = None,
    ) -> tuple[str, set[str]]:
        """``(shown, found)``: the new piece as written (``alone``, its text screened by itself) with its part of a
        secret redacted, and the secrets found in the pieces joined, as given (a piece redacted alone hides nothing
        of a key from the next one).

        The pieces are read joined by ``find`` (the detectors) only when a secret may cross into the new one: a
        keyword (``password``, ``token``, ``://``…) ended at most ``_NEAR`` characters before its end, or a run of 20+
        token characters goes on into it; other pieces (prose) cost a few string operations. ``known`` (the values the run
        knows: the environment's secrets, what it learned; hunted as ``screen`` hunts them) is searched at each piece in
        the pieces that end with it and reach back the longest value's length, when the two characters where it meets
        the stream stand side by side in one of them: a known value needs no keyword nor a key's characters
        (``Sunset!Harbor2024``)."""
        if len(text) > TAIL:
            return alone, set()
        new = _Piece(event_id, text, alone)
        with self.lock:
            stream = self.joined.get((phase, where))
            if stream is None:
                stream = self.joined[(phase, where)] = _Stream()
                _, held, _ = self.quiet.pop((phase, where), ("", [], 0))
                for earlier in held:  # the stream's quiet pieces, kept as the pieces are
                    _add(stream, _Piece(*earlier))
            pair = stream.end[-1:] + text[:1]  # where the new piece meets the stream: inside a value crossing into it
            crossing = _add(stream, new)
            items = list(stream.pieces) if len(stream.pieces) > 1 and (crossing or stream.since <= _NEAR) else None
            every = None
            if known is not None and len(stream.pieces) > 1 and pair in self.known_pairs(known):
                every = _reaching(stream.pieces, known)
        found: set[str] = set()
        # a whole value found is whole: no piece can make it longer (the pieces are placed only when one is found)
        if every is not None and known is not None and known.found_in("".join([p.text for p in every])):
            texts = [p.text for p in every]
            values, cuts = _cuts(texts, known.found_in, final=True)
            found |= values
            self._place(where, every, texts, cuts, new)
        if items is not None:
            texts = _window([p.text for p in items], _NEAR)
            values, cuts = _cuts(texts, find, final=False)
            found |= values
            self._place(where, items, texts, cuts, new)
        return new.shown(new.written), found

    def known_pairs(self, known: Known) -> frozenset[str]:
        """Every two characters side by side in a known value: a value a new piece ends, begun before it, holds the
        stream's last character and the piece's first so (one set lookup rules out most pieces)."""
        pairs = self.pairs
        if pairs[0] is not known:
            values = [value for level in known.levels for value in level.values]
            pairs = self.pairs = (known, frozenset(v[i : i + 2] for v in values for i in range(len(v) - 1)))
        return pairs[1]

    def _place(self, where: Where, items: list[_Piece], texts: list[str], cuts: dict[int, Spans], new: _Piece) -> None:
        """The spans ``cuts`` gives the last ``texts`` of ``items``: the new piece's redacted as it is written, the
        earlier ones' noted for the sweep."""
        for i, ranges in cuts.items():
            piece = items[i + len(items) - len(texts)]
            if piece is new:
                new.written = spans(new.written + ranges)
            else:
                self._note(where, piece, ranges)

    def flush(self, find: Callable[[str], set[str]]) -> set[str]:
        """Read each stream's last pieces with their end as the end (nothing follows): the secrets found."""
        with self.lock:
            streams = [(where, list(stream.pieces)) for (_, where), stream in self.joined.items()]
            streams += [(where, [_Piece(*p) for p in held]) for (_, where), (_, held, _) in self.quiet.items()]
        found: set[str] = set()
        for where, pieces in streams:
            if len(pieces) < 2:
                continue
            values, cuts = _cuts([p.text for p in pieces], find, final=True)
            found |= values
            for i, ranges in cuts.items():
                self._note(where, pieces[i], ranges)
        return found

    def _note(self, where: Where, piece: _Piece, ranges: Spans) -> None:
        with self.lock:
            old = self.noted.get(piece.event_id)
            self.noted[piece.event_id] = (where, piece, spans((old[2] if old else []) + ranges))

    def cut(self, event_id: Any, payload: Any) -> Any:
        """``payload`` (an event's, as written) with the noted spans of its piece redacted too; the piece's whole
        text when it is no longer as it was written (changed since)."""
        noted = self.noted.get(event_id) if isinstance(event_id, str) else None
        if noted is None:
            return payload
        where, piece, ranges = noted
        text = text_at(payload, where)
        if text is None:
            return payload
        if text != piece.shown(piece.written):
            return set_at(payload, where, REDACTED_VALUE)
        return set_at(payload, where, piece.shown(spans(piece.written + ranges)))

    def swept(self) -> None:
        """The noted spans are redacted in the log and in memory, and count as written."""
        with self.lock:
            for _, piece, ranges in self.noted.values():
                piece.written = spans(piece.written + ranges)
            self.noted.clear()


def _add(stream: _Stream, piece: _Piece) -> bool:
    """Add ``piece`` to ``stream``'s last pieces; whether a run of key characters crosses into it (a key's pieces)."""
    text = piece.text
    lead = len(text) - len(text.lstrip(TOKEN))
    crossing = lead > 0 and stream.run + lead >= GOES_ON
    stream.run = stream.run + len(text) if lead == len(text) else len(text) - len(text.rstrip(TOKEN))
    near = stream.end + text
    ends = [m.end() for m in KEYWORD.finditer(near.lower())]
    stream.since = len(near) - ends[-1] if ends else stream.since + len(text)
    stream.end = near[-16:]
    stream.pieces.append(piece)
    stream.size += len(text)
    while len(stream.pieces) > 1 and stream.size > TAIL:
        stream.size -= len(stream.pieces.popleft().text)
    return crossing


def streamed_piece(payload: Any) -> tuple[Where, str] | None:
    """``(where, text)`` of an event payload that is a streamed piece (its text where a stream carries one), else None:
    a common stream's shape (``chunk_text``), else any chunk-like payload's lone text (``lone_text``)."""
    if type(payload) is not dict:
        return None
    if not payload.keys().isdisjoint(DELTA_KEYS):  # most pieces: one set test
        got = chunk_text(payload, messages=True)
        if got is not None:
            return got
    return lone_text(payload)


_LONE_STRINGS = 24  # strings looked at in a payload: a chunk holds a few (its text, names); more is an ordinary event
#: values of any kind looked at: only the walk's bound (a client's chunk dump holds many numbers and Nones, a
#: google-genai ``GenerateContentResponse.model_dump()`` about 60; none of them can be text)
_LONE_NODES = 256
_LONE_DEPTH = 10  # steps down to the text (a wrapped Gemini chunk takes 8)
_NAME_MAX = 40  # a chunk's other strings are names (a role, a type, a finish reason, an id): short, no space
_NAME = re.compile(rf"\S{{0,{_NAME_MAX}}}")  # (one match for a name, not a call per character)
#: a chunk text key's name as a JSON key (compact, as the screen builds the line): a payload whose JSON holds none
#: holds no chunk text, and is no piece (``lone_text``'s test before its walk, made inline by the screen)
TEXT_NAMED = re.compile(b'"(?:' + b"|".join(re.escape(key.encode()) for key in CHUNK_TEXT_KEYS) + b')":')


#: what a client's chunk carries beside its text that holds none of it: google-genai's ``sdk_http_response``, the HTTP
#: answer's headers (``date: Mon, 07 Dec 2026 …``, ``vary: Origin, X-Origin, Referer``: strings with blanks, which made
#: each chunk no piece, and a secret streamed across them was written in pieces) and body. Not walked; still screened
_NO_TEXT_HOLDERS = frozenset({"sdk_http_response"})


def lone_text(payload: Any) -> tuple[Where, str] | None:
    """``(where, text)`` of a chunk-like payload: one whose only text is one string under a chunk text key
    (``CHUNK_TEXT_KEYS``) at any depth, every other string a name (no space, at most ``_NAME_MAX`` characters) —
    Gemini's ``candidates[0].content.parts[0].text``, Bedrock's ``contentBlockDelta.delta.text``, a chunk wrapped in
    ``{"data": …}``; None for any other payload (two texts, prose beside it, more than ``_LONE_STRINGS`` strings,
    the runtime's own events naming an ``event_name``). Numbers, None, booleans and empty containers are no text
    and count for nothing (a Gemini chunk's safety ratings and usage, a client's dump with its unset fields), nor does
    a client's HTTP answer (``_NO_TEXT_HOLDERS``). Only a text key's string can be one, so a line holding none of
    those names is none (``TEXT_NAMED``: one search of the payload's JSON, which the screen has built already, before
    any walk)."""
    if type(payload) is not dict or "event_name" in payload:
        return None
    found: tuple[Where, str] | None = None
    stack: list[tuple[Where, Any, Any]] = [((), payload, None)]
    nodes = strings = 0
    while stack:
        where, value, key = stack.pop()
        nodes += 1
        if nodes > _LONE_NODES:
            return None
        kind = type(value)
        if kind is str:
            strings += 1
            if strings > _LONE_STRINGS:
                return None
            if key in CHUNK_TEXT_KEYS:
                if found is not None:
                    return None
                found = (where, value)
            elif _NAME.fullmatch(value) is None:
                return None
        elif kind is dict or kind is list:
            if len(where) >= _LONE_DEPTH:
                return None
            items = value.items() if kind is dict else enumerate(value)
            for name, item in items:
                if kind is dict and (type(name) is not str or name in _NO_TEXT_HOLDERS):
                    if type(name) is str:  # (a client's HTTP answer: passed over)
                        continue
                    return None
                stack.append(((*where, name), item, name if kind is dict else None))
    return found


_GLUED = re.compile(
    "(?<![" + re.escape(TOKEN) + "])[" + re.escape(TOKEN) + "]{6,}(?<![=:])(?=" + re.escape(REDACTED_VALUE) + ")"
    "|(?<=" + re.escape(REDACTED_VALUE) + ")[" + re.escape(TOKEN) + "]{6,}"
)


def glued(text: str) -> set[str]:
    """Runs of token characters glued to a redaction (``sk-proj-Ab3dEf[REDACTED]``): the rest of a key whose other
    pieces were redacted as written, while these were written before it was found (a process killed before its
    sweep). A name before its ``=`` or ``:`` is no part of one."""
    return set(_GLUED.findall(text)) if REDACTED_VALUE in text else set()


def redact_streams(records: list[dict[str, Any]], find: Callable[[str], set[str]]) -> set[str]:
    """Redact, in place, the parts of secrets that events read back from a log (``records``, in order) hold only
    joined with the pieces around them, and runs of a key glued to a piece redacted already; the secrets found.
    Each stream is read whole, in windows of ``TAIL`` characters overlapping by ``_NEAR``."""
    streams: dict[tuple[str, Where], list[tuple[dict[str, Any], Where, str]]] = {}
    for record in records:
        piece = streamed_piece(record.get("payload"))
        if piece is not None and len(piece[1]) <= TAIL:
            streams.setdefault((str(record.get("phase")), piece[0]), []).append((record, *piece))

    def find_or_glued(text: str) -> set[str]:
        return find(text) | glued(text)

    found: set[str] = set()
    for pieces in streams.values():
        cut: dict[int, Spans] = {}
        start = 0
        while len(pieces) > 1 and start < len(pieces):
            end, size = start + 1, len(pieces[start][2])
            while end < len(pieces) and size + len(pieces[end][2]) <= TAIL:
                size += len(pieces[end][2])
                end += 1
            values, cuts = _cuts([text for _, _, text in pieces[start:end]], find_or_glued, final=end == len(pieces))
            found |= values
            for i, ranges in cuts.items():
                cut.setdefault(start + i, []).extend(ranges)
            if end == len(pieces):
                break
            back, nxt = 0, end  # the next window starts ``_NEAR`` characters back, at a piece's start
            while nxt > start + 1 and back < _NEAR:
                nxt -= 1
                back += len(pieces[nxt][2])
            start = nxt
        for i, ranges in cut.items():
            record, where, text = pieces[i]
            record["payload"] = set_at(record["payload"], where, _redacted(text, spans(ranges)))
    return found


def _cuts(texts: list[str], find: Callable[[str], set[str]], *, final: bool) -> tuple[set[str], dict[int, list[tuple[int, int]]]]:
    """The secrets in the texts joined, and for each text the spans of it they cover."""
    joined = "".join(texts)
    bounds, pos = [], 0
    for text in texts:
        bounds.append((pos, pos + len(text)))
        pos += len(text)
    found, cuts = set(), dict[int, list[tuple[int, int]]]()
    for value in find(joined):
        # a short value reaching the end may go on in the next piece; found there, it is not placed elsewhere
        # (``requir`` ending the text is no part of an earlier ``required``)
        if not final and len(value) < GOES_ON and joined.endswith(value):
            continue
        at = joined.find(value)
        while at >= 0:
            stop = at + len(value)
            touched = [i for i, (a, b) in enumerate(bounds) if a < stop and b > at]
            # a value inside one piece is that piece's own, unless only the pieces before show it (``password=``)
            alone = len(touched) == 1 and value in find(texts[touched[0]])
            if not alone and (
                _glued_words(joined, [bounds[i] for i in touched], at, stop)
                or _whole_then_words(joined, texts, touched, bounds, at, stop, find)
            ):
                at = joined.find(value, at + 1)
                continue
            if not alone and (final or stop < len(joined) or len(value) >= GOES_ON):
                found.add(value)
                for i in touched:
                    a, b = bounds[i]
                    cuts.setdefault(i, []).append((max(a, at) - a, min(b, stop) - a))
            at = joined.find(value, at + 1)
    return found, cuts


def _glued_words(joined: str, bounds: list[tuple[int, int]], at: int, stop: int) -> bool:
    """Whether the value at ``joined[at:stop]`` is only words of whole messages read glued: each piece's part of it
    letters alone (a sentence's mark ending one), and a capital after a small letter or a mark where they meet
    (``password is required`` then ``Your password…``, read ``requiredYour``). A stream's tokens carry their blanks;
    a key's pieces hold more than letters."""
    parts = [joined[max(a, at) : min(b, stop)] for a, b in bounds]
    if not all(p.strip(_MARKS).isalpha() for p in parts):
        return False
    return all((left[-1:].islower() or left[-1:] in _MARKS) and right[:1].isupper() for left, right in zip(parts, parts[1:]))


def _whole_then_words(
    joined: str,
    texts: list[str],
    touched: list[int],
    bounds: list[tuple[int, int]],
    at: int,
    stop: int,
    find: Callable[[str], set[str]],
) -> bool:
    """Whether the value at ``joined[at:stop]`` is a secret already whole in its first piece (that piece alone finds
    it, hidden there) read on into the next pieces' letters: ``the key is sk-…`` then a message ``before`` is the
    key and a word, not a longer key hiding ``before``. A key cut inside a stream leaves a head no detector finds
    alone (``sk-proj-Qop``), and a random tail holds more than letters."""
    a, b = bounds[touched[0]]
    head = joined[max(a, at) : b]
    if len(touched) < 2 or head not in find(texts[touched[0]]):
        return False
    return all(joined[bounds[i][0] : min(bounds[i][1], stop)].isalpha() for i in touched[1:])


_MARKS = ".,;:!?"  # the marks ending a sentence or a clause (``incorrect.`` then ``The …``)


def _own_spans(text: str, alone: str) -> Spans | None:
    """The spans of ``text`` that screening it alone replaced (``alone`` is ``text`` with each replaced by the
    marker): the text between the markers is found in order, what lies between is what was replaced; None when
    it cannot be found so."""
    out, pos = Spans(), 0
    kept = alone.split(REDACTED_VALUE)
    for i, chunk in enumerate(kept):
        at = text.find(chunk, pos) if i < len(kept) - 1 else (len(text) - len(chunk) if text.endswith(chunk) else -1)
        if at < pos or (i == 0 and at != 0):
            return None
        if i:
            out.append((pos, at))
        pos = at + len(chunk)
    return out


def _reaching(pieces: deque[_Piece], known: Known) -> list[_Piece] | None:
    """The last pieces, back to the one a known value ending in the last one could start in (the longest value's
    length before its end); None when the last piece is all of them (it was screened alone)."""
    reach = max(level.longest for level in known.levels) - 1 + len(pieces[-1].text)
    out: list[_Piece] = []
    for piece in reversed(pieces):
        out.append(piece)
        reach -= len(piece.text)
        if reach <= 0:
            break
    return out[::-1] if len(out) > 1 else None


def _window(texts: list[str], near: int) -> list[str]:
    """The last texts, from the one reaching ``near`` characters before the last text's start (whole, for its spans)."""
    first, total = len(texts) - 1, 0
    while first > 0 and total < near:
        first -= 1
        total += len(texts[first])
    return texts[first:]


def _redacted(text: str, ranges: Spans) -> str:
    return replaced(text, spans(r for r in ranges if r[1] > r[0]), REDACTED_VALUE) if ranges else text


def text_at(payload: Any, where: Where) -> str | None:
    """The string at ``where`` inside ``payload``, or None."""
    value = payload
    for step in where:
        try:
            value = value[step]
        except (KeyError, IndexError, TypeError):
            return None
    return value if isinstance(value, str) else None


def set_at(record: Any, where: Where, text: str) -> Any:
    """A copy of ``record`` (dicts and lists) with ``text`` at ``where``."""
    if not where:
        return text
    head, rest = where[0], where[1:]
    if isinstance(record, dict):
        return {**record, head: set_at(record[head], rest, text)}
    items = list(record)
    items[int(head)] = set_at(items[int(head)], rest, text)
    return items
