"""Per-run memory of the secrets seen, and the scrubbing of everything the run writes.

Each run directory has one ``RunSecrets`` in this process (``for_run``). Whatever a run learns
from any source (tool payloads, adapter events, model calls, the adapter's result or exception,
tool output, the task) is replaced by ``"[REDACTED]"`` in everything written afterwards. A value
learned after earlier lines were written is also removed from those, as is a known value in a file
written outside the recorder (``sweep``, called when the run pauses and when it is sealed). Values
shorter than ``MIN_HUNTED`` characters are redacted
where they are detected but not hunted in other text: a short value would match ordinary words.

``screen`` is the event hot path: a large flat payload of plain values is judged value by value
(``flat_might_contain``); any other, or any payload once the run knows a secret, by one
``orjson.dumps``, substring tests for the known values and the ``payload_might_contain``
prefilter. The structured scan runs only on a hit.
"""

from __future__ import annotations

import os
import re
import threading
import weakref
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

import orjson

from .._jsonio import atomic_write_bytes, atomic_write_json, dumps_line, to_jsonable
from .._jsonrepeat import screened
from .._safetext import error_text, safe_repr
from .disguise import (
    ESCAPE,
    SHOWN_BYTES,
    folded,
    hidden,
    hides,
    maybe_disguised,
    readable,
    reads_differently,
    written_end,
)
from .environ import environ_secrets
from .exact import exact, exact_all
from .forms import written_forms
from .joined import CHUNK_TEXT_KEYS, chunk_texts, split_secrets
from .known import SEARCHED, Known, for_text, replaced, spans
from .names import REDACTED_VALUE, WRAPS, hunted, looks_like_credential, unwrapped
from .scan import distinct_key, learned, redact, shaped
from .streamed import DELTA_KEYS, GOES_ON, QUIET_END, TAIL, TEXT_NAMED, Streams, lone_text, set_at, streamed_piece, text_at
from .streamed import KEYWORD as STREAM_KEYWORD
from .streamed import TOKEN as STREAM_TOKEN
from .text import (
    _KEYWORD_ANCHORS,
    _NAMED_PLAINLY,
    _flat_plain_keys,
    chunk_runs,
    find_in_text,
    flat_might_contain,
    lists_joined,
    payload_might_contain,
)

__all__ = ["RunSecrets", "ScreenMemo", "for_run", "known_everywhere", "known_shown", "known_of", "MIN_HUNTED", "runs_version"]

MIN_HUNTED = 6
_OPTS = orjson.OPT_NON_STR_KEYS
_BY_VALUE = 8  # keys from which a flat payload is screened value by value
#: the ASCII characters a flat payload's texts cannot hold to be judged by their known values' heads (``_texts_free``):
#: the control characters (not printable) and the backslash (an escape a value may hide behind)
_NOT_PLAIN = bytes(range(32)) + b"\\\x7f"
_ENV_HEAD = 6  # first characters of a known value searched in a flat payload's texts (a cut-off one too)
_HEADS = 32  # known values' heads past which a flat payload is screened through its JSON (the trie) instead
_SEEN = 20_000  # characters of an exception's text and of each argument's repr searched (more than is written)
#: every match of a stream's keyword test (``streamed.KEYWORD``) holds one of the keyword anchors (``text``: each at one
#: of a keyword's rarer letters): a quiet stream's joined text holding none holds no keyword, told by a search trying
#: fewer places (a test holds it to that)
_STREAM_ANCHOR = re.compile(_KEYWORD_ANCHORS.pattern.decode())


class RunSecrets:
    """The secret values one run has seen; thread-safe."""

    def __init__(self, own: str = "") -> None:
        self._own = own  # the run's folder name (its id): on disk in clear, so never a value to hide (see ``learn``)
        self._own_parts: frozenset[str] | None = None  # what the detectors find in the id itself (``_exempt``)
        self._in_own = False  # a learned value stands inside the id: each text is scrubbed around the id (``scrub_text``)
        self._lock = threading.Lock()
        self.values: tuple[str, ...] = ()  # longest first
        self._known = Known()  # the same values, found in a text in one pass (and their JSON-escaped heads)
        self._written = False  # something passed ``screen`` (so a new value may already be on disk)
        self.late = False  # a value was learned after something was written: ``sweep`` has work
        self._streams = Streams()  # a secret split across streamed events (``streamed``)
        self._names: frozenset[str] = frozenset()  # the tools' names the run shows: no value is hunted in them
        self._env: tuple[str, ...] | None = None  # while the environment's secrets are all it knows (``learn_environ``)
        self._heads: tuple[str, ...] | None = ()  # every known value's head, while they are few (``_texts_free``)
        self._memos: list[weakref.ref[ScreenMemo]] = []  # emptied as ``values`` changes (``memo``)

    # -- learning -------------------------------------------------------------------------------
    def learn(self, values: Iterable[str], *, forms: bool = True) -> bool:
        """Remember values (those of ``MIN_HUNTED``+ characters, not a placeholder: the ``"password"`` of a
        redacted ``{"auth": ("password", …)}`` is no value to hunt in every later text), each with the forms it takes
        when written (``written_forms``: JSON-escaped, ``repr``'d, percent-encoded…; not with ``forms=False``, for
        values that are such forms already); True when one is new."""
        values = [exact(v) for v in values if isinstance(v, str)]  # (a subclass: its characters, as written)
        # ``"`abc`"``: ``abc`` may be written bare elsewhere. Only a value quoted on both sides: a piece of a secret cut
        # at a list's items (``'upstream`` of a repr) is no quoted value, and bare it would hide a word everywhere
        values += [u for v in values if len(v) > 2 and v[0] == v[-1] in WRAPS and (u := unwrapped(v)) != v]
        new = {v for v in values if len(v) >= MIN_HUNTED and "REDACTED" not in v and hunted(v)}
        new = {v for v in new if not _in_names(v, self._names)}  # (``name_shown``)
        # a value holding a character read as another (``ś``, ``\u3000``, a zero-width space) is hunted as it reads too:
        # text is searched as it reads once written in a disguise (``_scrub_escaped``), where the value as written is not
        new |= {r for v in new if not v.isascii() and len(r := _reading(v)) >= MIN_HUNTED}
        if self._own:  # the run's id (a random-looking one, a hex trace id) found in a text that quotes it: hidden
            # everywhere, it left the run's records naming an id no folder or draft file has (``ids`` refuses an id
            # holding a credential of a known shape, so what is left of it is no secret). A value holding the id
            # (``<id>:hunter2!``) is learned as what is left of it once the id is taken out (``_without_own``)
            exempt = self._exempt()
            new = {p for v in new if v not in exempt for p in _without_own(v, self._own)}
            new = {p for p in new if p not in exempt and "REDACTED" not in p and hunted(p)}
        if forms:  # made once per value: a value learned before was learned with its forms
            new |= {form for v in new.difference(self.values) for form in written_forms(v, MIN_HUNTED, encoded=False)}
        with self._lock:
            new -= set(self.values)
            if not new:
                return False
            self.values = tuple(sorted({*self.values, *new}, key=len, reverse=True))
            self._in_own = self._in_own or (bool(self._own) and any(v in self._own for v in new))
            self._heads = _heads(self.values)  # (before ``_known``: a screen reading the new values reads their heads)
            self._known = self._known.plus(new)
            self._env = None
            self.late = self.late or self._written
            self._forget_judged()
        global _VERSION
        _VERSION += 1
        return True

    def learn_environ(self, values: frozenset[str]) -> None:
        """Learn the environment's secrets (``environ``) as the run starts; while they are all it knows, its events need
        no sweep at the seal (``_sweep_events``)."""
        if self.learn(values, forms=False) and set(self.values) <= values:  # (``environ`` made their forms)
            self._env = tuple({v[:_ENV_HEAD] for v in self.values})

    def _texts_free(self, payload: dict[str, Any]) -> bool:
        """Whether a flat payload's keys and texts hold none of the known values (a cut-off one too), while they are
        few (the environment's secrets, a client's key and its written forms): printable ASCII without an escape a value
        may hide behind, and no value's head. The JSON test (``Known.holds``) reads the same heads in the line."""
        heads = self._heads
        if heads is None:
            return False
        try:
            # (a ``str`` subclass joined as its characters; ``flat_might_contain`` sends such a payload to the JSON test)
            texts = " ".join([*payload, *filter(str.__instancecheck__, payload.values())])
        except TypeError:  # a key that is no text
            return False
        # printable ASCII with no backslash: its bytes lose none to a deletion of those others (one C loop over a table;
        # ``str.isprintable`` reads the Unicode database for each character, about three times as long)
        if not texts.isascii() or len(texts.encode().translate(None, _NOT_PLAIN)) != len(texts) or texts.find("&#") >= 0:
            return False
        return not any(map(texts.__contains__, heads))  # (no Python call per head)

    def _exempt(self) -> frozenset[str]:
        """The values never learned: the run's id, and what the detectors find in it as it stands (the random word of
        ``nightly.<random>.v2``: a text quoting the id shows them that word, which learned would hide the id in every
        record while its folder keeps it). Any other value is learned, a part of the id too (``scrub_text`` keeps
        the id whole); the id's kinds are cut from values holding it by ``_without_own``."""
        parts = self._own_parts
        if parts is None:
            found = find_in_text(self._own) if len(self._own) >= MIN_HUNTED else set()
            parts = self._own_parts = frozenset({self._own, *(v for v in found if v in self._own)})
        return parts

    def observe(self, *objects: Any) -> None:
        """Detect and remember the secrets in arbitrary objects (a result, an exception, text)."""
        for obj in objects:
            if obj is None:
                continue
            if isinstance(obj, BaseException):  # its text as shown and written, bounded; a raising __str__ is no stop
                obj = [
                    f"{type(obj).__name__}: {error_text(obj, _SEEN)}",
                    *(safe_repr(a, _SEEN) for a in _args(obj)),
                    _attributes(obj),  # ``self.token``: a message may be built from it, its name marks it secret
                ]
            _, hits = redact(obj if isinstance(obj, str) else to_jsonable(obj))
            self.learn(learned(hits))

    def redact(self, value: Any, *, entropy: bool = True) -> Any:
        """``value`` with every secret found in it (and every one known) replaced; the found ones are remembered.

        ``entropy=False`` skips the random-looking-word rule (for tool output full of digests and ids)."""
        # the known values first: a detector may find a part of one (a random word after its ``.``) and, replacing
        # that part, leave the rest of it where the known value no longer matches
        # the run's own id stays whole where a text quotes it (``api_key-…`` reads as a label and its value): it is
        # the folder's name, on disk in clear, and the records name the run by it
        out, hits = redact(self.scrub(value), entropy=entropy, keep=self._own)
        self.learn(learned(hits))
        return self.scrub(out)  # and the values just found, wherever else they stand

    def name_shown(self, name: str) -> None:
        """A tool's name (``postgres.query``) the approver is shown: no learned value is hunted in it, learned before or
        after (``DB_PASSWORD=deploy`` beside a tool ``deploy.run``: the value is still redacted where the secret-looking
        name gives it). The name is written in code, and must say which tool runs; a value the detectors take for a
        key by itself (of a known format, or random) is still hunted, in the name too."""
        with self._lock:
            if name in self._names:
                return
            self._names = self._names | {name}
            kept = tuple(v for v in self.values if not _in_names(v, (name,)))
            if len(kept) == len(self.values):
                return
            self.values, self._known = kept, Known().plus(set(kept))
            self._heads = _heads(kept)  # (after ``_known``: until then the heads of more values)
            self._forget_judged()
        global _VERSION
        _VERSION += 1

    def memo(self, kept: Mapping[str, str] | None = None) -> ScreenMemo:
        """A ``ScreenMemo`` of this run: texts judged by its screen, forgotten (but ``kept``) whenever it learns a value."""
        memo = ScreenMemo(self, kept)
        with self._lock:  # (a memo is a dict: unhashable, so the list, with the memos gone left out as one is added)
            self._memos = [*(ref for ref in self._memos if ref() is not None), weakref.ref(memo)]
        return memo

    def _forget_judged(self) -> None:
        """Empty the memos (``values`` was just replaced, under the lock): a text judged before may hold a value now
        known, and would be written in clear on every later event."""
        for ref in self._memos:
            if (memo := ref()) is not None:
                memo.forget()

    def redact_any(self, obj: Any) -> Any:
        """``redact`` of any object in its JSON form (an adapter's result may be any object); None stays None."""
        return None if obj is None else self.redact(obj if isinstance(obj, (str, dict, list)) else to_jsonable(obj))

    # -- the event hot path ---------------------------------------------------------------------
    def screen(self, payload: dict[str, Any], *, event_id: str | None = None, phase: str = "") -> Any:
        """The payload to write for an event: a copy, with secrets redacted when there are any. Given the event's
        id, a streamed piece (an event holding one chunk's text) is also read joined with the pieces before it.
        A ``str`` subclass in it is judged, and written, as the exact ``str`` of its characters (``exact``)."""
        if type(payload) is not dict:  # a dict subclass may hide its items behind its own methods
            payload = exact_all(payload)
        # (the screen of every event written: its tests are made here, not in a helper, one call fewer per event)
        # a large flat payload of plain values (a model call's) is judged value by value, without its JSON: its
        # keys alone (``cache_write_input_tokens``) would fail the whole-text prefilter; a small one passes it faster
        known = self._known
        if (
            len(payload) >= _BY_VALUE
            and (not known.levels or self._texts_free(payload))
            # (``flat_might_contain``'s first test made here: a model call's keys are all plainly named, one call fewer)
            and (_flat_plain_keys(payload) if _NAMED_PLAINLY.issuperset(payload) else flat_might_contain(payload)) is False
        ):
            self._written = True
            out = dict(payload)
            blob: bytes | None = b""  # (flat: no JSON built; a chunk text key could sit only at its top, tested below)
        else:
            try:
                blob = orjson.dumps(payload, option=_OPTS)
            except (TypeError, orjson.JSONEncodeError):  # written as its JSON form (see ``dumps_line``)
                blob = None
            self._written = True
            if blob is None:
                out = self.redact(to_jsonable(payload))
            elif (
                known.levels and (known.holds(blob) or _disguised_json(blob) or self._split_in(payload, blob))
            ) or payload_might_contain(payload, blob):
                out = self.redact(payload)
                if out is payload:
                    out = dict(payload)
            else:
                out = dict(payload)
        if event_id is None:
            return out
        if type(payload) is dict and DELTA_KEYS.isdisjoint(payload):
            # (the runtime's own events, and a line naming no chunk text key: no call)
            if "event_name" in payload or (blob is not None and TEXT_NAMED.search(blob) is None) or lone_text(payload) is None:
                return out  # most events: no streamed piece (``streamed_piece``'s own tests, without its call)
        elif type(payload) is dict and type(out) is dict and type(event_id) is str:
            # a piece at the payload's top (``{"text": …}``, as most notes are) in a stream whose pieces can join into
            # no secret is kept as a quiet stream's, inline: no call per piece (``Streams.quiet``)
            key = ""
            for key in CHUNK_TEXT_KEYS:
                text = payload.get(key)
                if text is not None:
                    break
            alone = out.get(key)
            streams = self._streams
            at = (phase, (key,))
            if type(text) is str and type(alone) is str and len(text) <= TAIL and at not in streams.joined:
                with streams.lock:
                    end, held, size = streams.quiet.get(at) or ("", [], 0)
                    joined = end + text
                    lead = len(text) - len(text.lstrip(STREAM_TOKEN))
                    pairs = streams.pairs
                    if known.levels and pairs[0] is not known:
                        pairs = (known, streams.known_pairs(known))
                    if (
                        (lead == 0 or lead + len(end) - len(end.rstrip(STREAM_TOKEN)) < GOES_ON)
                        # (every keyword holds an anchor: most texts are cleared by that search, which tries fewer places)
                        and (_STREAM_ANCHOR.search(lowered := joined.lower()) is None or STREAM_KEYWORD.search(lowered) is None)
                        and (not known.levels or end[-1:] + text[:1] not in pairs[1])
                    ):
                        held.append((event_id, text, alone))
                        size += len(text)
                        while size > TAIL and len(held) > 1:
                            size -= len(held.pop(0)[1])
                        streams.quiet[at] = (joined[-QUIET_END:], held, size)
                        return out
        piece = streamed_piece(payload)
        return out if piece is None else self._streamed(out, piece, str(event_id), phase)

    def _streamed(self, out: Any, piece: tuple[tuple[str | int, ...], str], event_id: str, phase: str) -> Any:
        """``out`` with the part of a secret that only the stream's pieces joined show redacted (``streamed``)."""
        where, text = piece
        alone = text_at(out, where)
        if alone is None:
            return out
        known = self._known if self._known.levels else None  # the values ``screen`` hunts in each event's texts
        shown, found = self._streams.piece(event_id, phase, where, text, alone, shaped, known)
        if found:
            self.learn(found)
            with self._lock:
                self.late = self.late or bool(self._streams.noted)
        return out if shown == alone else set_at(out, where, shown)

    def _split_in(self, payload: Any, blob: bytes) -> bool:
        """Whether a known value may be split across the strings of a list or the texts of chunk records."""
        if blob.find(b"[") < 0:  # no list (most events): one memchr (``in`` on bytes costs an exception first)
            return False
        joined = lists_joined(blob)
        if joined is not None and self._known.holds(joined):
            return True
        if blob.find(b"},{") < 0:
            return False
        return any(run is None or self._known.holds(run) for run in chunk_runs(payload))

    # -- scrubbing known values -----------------------------------------------------------------
    def scrub_text(self, text: str) -> str:
        known = self._known
        if not known.levels:
            return text
        if type(text) is not str:
            text = exact(text)
        if self._in_own and self._own in text:  # a learned value stands inside the id: the id itself is kept whole
            return self._own.join(scrub_text(piece, known) for piece in text.split(self._own))
        return scrub_text(text, known)

    def scrub(self, value: Any) -> Any:
        """``value`` with the known secrets replaced in every string; the same object when nothing changes.

        A document (state, summary, a record) whose JSON text shows no sign of a known value (``_may_hold``) is
        not read string by string: each string's search (whole values, cut-off ones, escapes) cost ~30 us, and
        a run holding an environment's secret scrubbed its ~400 strings at each state and summary write."""
        if not self.values:
            return value
        if isinstance(value, str):
            return self.scrub_text(value)
        if isinstance(value, (Mapping, list, tuple)) and not self._may_hold(value):
            return _as_scrubbed(value)  # (judged by its JSON text: a subclass's real characters)
        return self._scrub(exact_all(value))  # its strings read as written, not through a subclass's methods

    def _may_hold(self, value: Any) -> bool:
        """Whether scrubbing ``value`` may change a string of it: its JSON text holds the escaped first characters of
        a known value, a disguise one may hide behind, or strings of a list that joined may hold one (``screen``'s
        test, and a value holding a space split there: ``split_secrets`` also joins the strings with a space)."""
        try:
            blob = orjson.dumps(value, option=_OPTS)
        except (TypeError, orjson.JSONEncodeError):  # (an object no JSON writer takes: each string is read)
            return True
        # (``\b``: a backspace, written so and not as ``\u0008``, reads as nothing: a value it splits is read joined)
        if self._known.holds(blob) or _disguised_json(blob) or blob.find(b"\\b") >= 0 or self._split_in(value, blob):
            return True
        return (blob.find(b'","') >= 0 or blob.find(b"},{") >= 0) and any(" " in v for v in self.values)

    def _scrub(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.scrub_text(value)
        if isinstance(value, Mapping):
            items: dict[Any, Any] = {}
            same = isinstance(value, dict)
            for key, item in value.items():
                name = self.scrub_text(key) if isinstance(key, str) else key
                if name != key or name in items:  # a known value used as a key, or the name it took
                    name = distinct_key(items, name)
                items[name] = scrubbed = self._scrub(item)
                same = same and name == key and scrubbed is item
            return value if same else items
        if isinstance(value, (list, tuple)):
            items_l = list(value)
            if len(items_l) > 1:  # on the strings as given: a piece scrubbed first (a value's cut-off start) hides the rest
                items_l = self._scrub_split(items_l)
            items_l = [self._scrub(v) for v in items_l]
            return value if all(a is b for a, b in zip(items_l, value)) and isinstance(value, list) else items_l
        return value

    def _known_in(self, text: str) -> set[str]:
        return self._known.found_in(text)

    def streamed_find(self, text: str) -> set[str]:
        """The secrets the detectors find in ``text`` and the known values in it: a stream's pieces joined, read at the
        seal or when a continued run reads a killed process's log (``runtime.recovered_streams``)."""
        return shaped(text) | self._known.found_in(text)

    def _scrub_split(self, items: list[Any]) -> list[Any]:
        """``items`` with the parts of a known value split across its strings, or across the texts of its chunk
        records, replaced (as ``scan`` does for the values its detectors find)."""
        if any(isinstance(v, str) for v in items[1:]):
            for i, (parts, whole) in split_secrets(items, self._known_in).items():
                items[i] = REDACTED_VALUE if whole else _replace(items[i], parts)
        chunks = chunk_texts(items)
        if chunks is not None:
            texts = [c[1] if c is not None else None for c in chunks]
            for i, (parts, whole) in split_secrets(texts, self._known_in).items():
                where = chunks[i]
                if where is not None:
                    text = where[1]
                    items[i] = set_at(items[i], where[0], REDACTED_VALUE if whole else _replace(text, parts))
        return items

    # -- files already written -------------------------------------------------------------------
    def sweep(self, run_dir: Path, recorder: Any = None, *, reopen: bool = False) -> list[Path]:
        """Remove the known values from every file of the run (and from ``recorder.events``): those
        learned late, and any that a file written outside the recorder (an integration's) holds.

        With ``reopen`` the recorder's open events writer is closed around the rewrite and replaced
        by a new one on the new file (sharing its lock). Returns the files rewritten.
        """
        if recorder is not None:  # the streams' last pieces, read with nothing after them (for known values too)
            self.learn(self._streams.flush(self.streamed_find))
        if not self.values and not self._streams.noted:  # (a streamed value under 6 characters is noted, not learned)
            return []
        self.late = False
        changed = []
        for path in sorted(Path(run_dir).rglob("*")):
            if path.is_symlink() or not path.is_file() or path.name in {"final.json", "manifest.json"}:
                continue
            if path.name == "events.jsonl" and recorder is not None and path.parent == Path(recorder.run_dir):
                if self._sweep_events(path, recorder, reopen):
                    changed.append(path)
            elif self._sweep_file(path):
                changed.append(path)
        return changed

    def _sweep_file(self, path: Path) -> bool:
        data = path.read_bytes()
        if not self._holds(data) and not (path.suffix == ".json" and self._holds(_compact(data))):
            return False
        if path.suffix == ".jsonl":
            new = self._scrub_lines(data)
        elif path.suffix == ".json":
            try:
                loaded = orjson.loads(data)
            except orjson.JSONDecodeError:
                new = self.scrub_text(data.decode("utf-8", "replace")).encode()
            else:
                if screened(data, loaded)[1]:  # a key written twice: kept as written for its readers to report
                    return self._sweep_text(path, data)
                scrubbed = self.scrub(loaded)
                if scrubbed is loaded:
                    return False
                atomic_write_json(path, scrubbed)
                return True
        else:
            new = self.scrub_text(data.decode("utf-8", "replace")).encode()
        if new == data:  # a sign of a known value, but none there
            return False
        atomic_write_bytes(path, new)
        return True

    def _sweep_text(self, path: Path, data: bytes) -> bool:
        """``path`` (``data``) rewritten with the known values taken out of its text; True when it changed. A document
        writing a key twice is swept so: rewritten from orjson's reading, only the last value would be left, and its
        readers would no longer see (and report) which key came twice."""
        new = self.scrub_text(data.decode("utf-8", "replace")).encode()
        if new == data:
            return False
        atomic_write_bytes(path, new)
        return True

    def _scrub_lines(self, data: bytes) -> bytes:
        lines = data.splitlines(keepends=True)
        noted = self._streams.noted
        for i, line in enumerate(lines):
            if self._holds(line) or (noted and b'"id"' in line):
                try:
                    record = orjson.loads(line)
                except orjson.JSONDecodeError:
                    lines[i] = self.scrub_text(line.decode("utf-8", "replace")).encode()
                    continue
                if screened(line, record)[1]:  # a key written twice: rewritten from orjson's reading, only its last
                    lines[i] = self.scrub_text(line.decode("utf-8", "replace")).encode()  # value would be left
                    continue
                if isinstance(record, dict) and record.get("id") in noted:  # a streamed piece's part of a secret
                    record = {**record, "payload": self._streams.cut(record["id"], record.get("payload"))}
                    lines[i] = dumps_line(record)
                scrubbed = self.scrub(record)
                if scrubbed is not record:
                    lines[i] = dumps_line(scrubbed)
        return b"".join(lines)

    def _holds(self, data: bytes) -> bool:
        """Whether JSON text (a file, a line) may hold a known value: as written, disguised, or split across
        the strings of a list or the texts of chunk records (on one line, as events are written)."""
        known = self._known
        if known.holds(data) or _disguised_json(data):
            return True
        joined = lists_joined(data)
        if joined is not None and known.holds(joined):
            return True
        return b"},{" in data and any(b"},{" in line and self._split_in_line(line) for line in data.splitlines())

    def _split_in_line(self, line: bytes) -> bool:
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError:
            return False
        return any(run is None or self._known.holds(run) for run in chunk_runs(record))

    def _sweep_events(self, path: Path, recorder: Any, reopen: bool) -> bool:
        streams = self._streams
        # a run knowing only the environment's secrets, learned as it started, screened every event with them: its
        # events, in memory and in the file its recorder alone writes, hold none (searched again, a run of 10,000
        # events sealed 4x slower)
        if self._env is not None and not streams.noted:
            return False
        for event in recorder.events:  # what views and summaries read from memory
            event["payload"] = self.scrub(streams.cut(event.get("id"), event.get("payload")))
        writer = recorder.writer
        with writer.lock:  # the recorder appends under this lock, reading ``recorder.writer`` inside it
            data = path.read_bytes()
            new = self._scrub_lines(data) if streams.noted or self._holds(data) else data
            streams.swept()
            if new == data:
                return False
            atomic_write_bytes(path, new)
            if reopen:  # the old writer's file is the replaced one: the recorder continues on the new file
                recorder.replace_writer()
        writer.close()
        return True


class ScreenMemo(dict[Any, Any]):
    """What a run writes of each text its events repeat (a phase, an agent id), judged once by its screen: ``memo[text]``
    is a dict lookup (no Python call: the event hot path), and screens a text met for the first time (``shown``). The
    run empties it whenever it learns a value (``RunSecrets.memo``): one judged before may hold it. ``kept``: texts
    never screened (the runtime's own agent ids), put back each time. Only plain ``str`` texts are kept (a subclass
    may lie to a dict), at most ``KEPT``; anything else that is no ``str`` is shown as it is."""

    __slots__ = ("_secrets", "_kept", "__weakref__")
    KEPT = 4096

    def __init__(self, secrets: RunSecrets, kept: Mapping[str, str] | None = None) -> None:
        super().__init__(kept or {})
        self._secrets = secrets
        self._kept = dict(kept or {})

    def shown(self, text: Any) -> Any:
        """``text`` as written, with its secrets redacted (``redact`` without the random-word rule: an id may read
        random, ``asst_Ab3d…``), read as the characters it holds (``exact``)."""
        return self[text] if type(text) is str else self.__missing__(text)

    def __missing__(self, text: Any) -> Any:
        if not isinstance(text, str):
            return text
        values = self._secrets.values
        out = str(self._secrets.redact(exact(text), entropy=False))
        if type(text) is str and len(self) < self.KEPT:
            self[text] = out
            if self._secrets.values is not values:  # learned meanwhile (here or by another thread): judged again next
                self.pop(text, None)
        return out

    def forget(self) -> None:
        """Drop every text judged (the run learned a value), keeping ``kept``."""
        self.clear()
        self.update(self._kept)


def _heads(values: tuple[str, ...]) -> tuple[str, ...] | None:
    """The first characters of each value, searched in a flat payload's texts (``_texts_free``); None when too many."""
    heads = {v[:_ENV_HEAD] for v in values}
    return tuple(heads) if len(heads) <= _HEADS else None


def _as_scrubbed(value: Any) -> Any:
    """What ``RunSecrets.scrub`` returns for a value none of whose strings changes: the value itself, or, where it
    holds a tuple or a mapping that is no dict, a copy with those as a list and a dict (as scrubbing writes them)."""
    kind = type(value)
    if kind is dict or (kind is not list and isinstance(value, Mapping)):
        same = kind is dict or isinstance(value, dict)
        items: dict[Any, Any] = {}
        for key, item in value.items():
            items[key] = new = item if type(item) in _LEAVES else _as_scrubbed(item)
            same = same and new is item
        return value if same else items
    if kind is list or isinstance(value, (list, tuple)):
        items_l = [v if type(v) in _LEAVES else _as_scrubbed(v) for v in value]
        return value if isinstance(value, list) and all(a is b for a, b in zip(items_l, value)) else items_l
    return value


_LEAVES = frozenset({str, int, float, bool, type(None)})  # (a subclass of one goes the long way: it may be a container)


def _replace(text: str, parts: Iterable[str]) -> str:
    return for_text(text, parts).replaced(text, REDACTED_VALUE)


def _args(exc: BaseException) -> tuple[Any, ...]:
    try:
        args = exc.args
    except Exception:
        return ()
    return args[:8] if isinstance(args, tuple) else ()


def _compact(data: bytes) -> bytes:
    """A JSON document as one line (``b""`` when it is not JSON): the strings of its lists are adjacent only so
    (``_holds`` reads a split value there), a pretty-printed document puts a line break between them."""
    if b"[" not in data or b"\n" not in data:
        return b""
    try:
        return orjson.dumps(orjson.loads(data))
    except (orjson.JSONDecodeError, orjson.JSONEncodeError):
        return b""


def _attributes(exc: BaseException) -> dict[str, str]:
    """The text attributes of ``exc`` (its ``__dict__``, one level), each bounded: what its ``__str__`` may show."""
    try:
        items = list(vars(exc).items())[:32]
    except Exception:  # no ``__dict__`` (a slotted class), or one that refuses to be read
        return {}
    out: dict[str, str] = {}
    for name, value in items:
        if isinstance(name, str) and isinstance(value, bytes):
            value = value[:_SEEN].decode("utf-8", "replace")
        if isinstance(name, str) and isinstance(value, str):
            # a word under a secret-looking name (``self.token = "function"``) is screened as text, not learned whole
            out[name if looks_like_credential(value) else f"attribute {len(out)}"] = value[:_SEEN]
    return out


def scrub_text(text: str, values: Iterable[str] | Known) -> str:
    """Replace each value, and a cut-off start of one (8+ characters before the end of the text or
    before ``…``/``...``, as truncation leaves it), with ``"[REDACTED]"``; also a value written in
    character escapes (``\\u0048\\u0075…``, a character past U+FFFF as a surrogate pair).

    The text is read once for all the values (``known``), however many there are."""
    if type(text) is not str:
        text = exact(text)
    if not isinstance(values, Known):
        values = tuple(values)
        small = len(values) * len(text) <= SEARCHED  # bounded work searched value by value, the cache kept
        known = for_text(text, values) if small else known_of(values)
    else:
        known = values
    if not known.levels:
        return text
    if _escaped_in(text):
        text = _scrub_escaped(text, known)
    whole = known.spans(text)
    return replaced(text, spans([*whole, *known.cut_offs(text, whole)]), REDACTED_VALUE)


_LAST: tuple[tuple[str, ...], Known] = ((), Known())


def _in_names(value: str, names: Iterable[str]) -> bool:
    """Whether ``value`` stands in one of the tools' names a run shows and is no key by itself (``name_shown``)."""
    return any(value in name for name in names) and not find_in_text(value)


def known_of(values: tuple[str, ...]) -> Known:
    """The ``Known`` of a tuple of values; the last one is kept (a view passes ``known_everywhere()`` each time)."""
    global _LAST
    last = _LAST
    if last[0] is values or last[0] == values:
        return last[1]
    # a run learned more (``known_everywhere`` grows): the values are added as a level, not all compiled again
    known = last[1].plus(values) if last[1].values.issubset(values) else Known(values)
    _LAST = (values, known)
    return known


# a character escape in JSON text (its backslash doubled) or an HTML reference: a known value may hide behind one
_ESCAPE_IN_JSON = re.compile(rb"\\\\(?:\\\\)?[uUx0-3N/]|&#")
# a control character that shows as nothing, in JSON text: escaped (``\u0001``; DEL is written as itself)
_CONTROL_IN_JSON = re.compile(rb"\\u00[01][0-9a-fA-F]")


def _disguised_json(blob: bytes) -> bool:
    """Whether JSON text may hold a known value in a disguise: behind escapes, or split by invisible characters
    (the control characters are written ``\\u0000``…``\\u001f``; the others as themselves, in UTF-8)."""
    # both patterns but ``&#`` start with a backslash: a line holding none (most) is cleared by a ``find`` each (memchr),
    # not by two pattern scans of every byte (a third of the screen of a model call once the run knows a value)
    if blob.find(b"\\") >= 0 and (_ESCAPE_IN_JSON.search(blob) is not None or _CONTROL_IN_JSON.search(blob) is not None):
        return True
    if blob.find(b"&#") >= 0 or blob.find(b"\x7f") >= 0:
        return True
    return not blob.isascii() and reads_differently(blob.decode("utf-8", "replace"))


def _escaped_in(text: str) -> bool:
    """Whether ``text`` may hold a known value in a disguise (escapes, invisible characters)."""
    if not maybe_disguised(text):
        return False
    return (("\\" in text or "&" in text) and ESCAPE.search(text) is not None) or reads_differently(text)


def _scrub_escaped(text: str, known: Known) -> str:
    """``_scrub_read``, and for ASCII text written without escapes (where only control characters read as nothing)
    only around a run of them that stands between two characters a value holds side by side (``_scrub_controls``)."""
    if text.isascii() and not ("\\" in text or "&#" in text):
        return _scrub_controls(text, known)
    return _scrub_read(text, known)


@lru_cache(maxsize=16)
def _pairs(values: frozenset[str]) -> tuple[frozenset[str], int, str, str]:
    """The pairs of characters side by side in the values as they read, the longest value's length, and the classes of
    the pairs' first and second characters."""
    readings = [_reading(v) for v in values]
    pairs = frozenset(r[i : i + 2] for r in readings for i in range(len(r) - 1))
    firsts, seconds = (f"[{re.escape(''.join(sorted({p[n] for p in pairs})))}]" for n in (0, 1))
    return pairs, max(map(len, readings), default=0), firsts, seconds


@lru_cache(maxsize=64)
def _between(controls: bytes, firsts: str, seconds: str) -> re.Pattern[str]:
    """A run of the control characters ``controls`` between a character of ``firsts`` and one of ``seconds``: one of
    them first, the search skipping to it in C (a literal, when it is the only one, as a terminal's ESC is)."""
    run = f"[{re.escape(controls.decode())}]" if len(controls) > 1 else re.escape(controls.decode())
    return re.compile(f"{run}(?<={firsts}{run}){run}*(?={seconds})")


def _scrub_controls(text: str, known: Known) -> str:
    """``text`` with each known value that shows once its control characters are dropped replaced where it is
    written: only the stretches a value's length either side of a run of them that may stand inside a value (the
    characters beside it a pair some value holds) are read so. The ESC of each colour code of a terminal's output
    stands beside a ``[``: a megabyte of it costs a search for those runs."""
    pairs, longest, firsts, seconds = _pairs(known.values)
    if not pairs:
        return text
    controls = bytes(sorted(set(text.encode().translate(None, SHOWN_BYTES))))
    stretches: list[list[int]] = []
    for match in _between(controls, firsts, seconds).finditer(text):
        start, end = match.span()
        if text[start - 1] + text[end] in pairs:
            low, high = max(start - longest, 0), min(end + longest, len(text))
            if stretches and low <= stretches[-1][1]:
                stretches[-1][1] = high
            else:
                stretches.append([low, high])
    if not stretches:
        return text
    pieces, pos = [], 0
    for low, high in stretches:
        pieces += [text[pos:low], _scrub_read(text[low:high], known)]
        pos = high
    pieces.append(text[pos:])
    return "".join(pieces)


def _scrub_read(text: str, known: Known) -> str:
    """``text`` with each known value that shows once its escapes are decoded and its invisible characters
    dropped (``Hun\u200bter2…``) replaced where it is written: found in the reading in one pass, each
    occurrence mapped back to where it stands (touching ones joined, as a value split in two is one)."""
    if hides(text) or (("\\" in text or "&" in text) and ESCAPE.search(text) is not None):
        decoded, starts = readable(text)
        # each from its first character to the end of its last as written: a control character after it (the ESC of a
        # colour code, ``\x1b`` written in source) is no part of it, and is kept
        where = [(starts[a], written_end(text, starts[b - 1])) for a, b in known.spans(decoded) if b > a]
    else:  # nothing decoded, nothing dropped: the reading is the text folded, each character in its place (no list
        # of a million places built, and no search of the invisible characters' class at every place)
        where = [(a, written_end(text, b - 1)) for a, b in known.spans(folded(text)) if b > a]
    merged: list[list[int]] = []
    for start, end in where:
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return replaced(text, [(a, b) for a, b in merged], REDACTED_VALUE)


_VERSION = 0  # bumped whenever any run learns a value
_RUNS_VERSION = 0  # bumped whenever a run is registered (and so ``run_ids`` may change)
_UNION: tuple[int, tuple[str, ...]] = (0, ())
_UNION_ENV: frozenset[str] = frozenset()  # the environment's secrets ``_UNION`` was made without
_REGISTRY: OrderedDict[str, RunSecrets] = OrderedDict()
_REGISTRY_LOCK = threading.Lock()
_KEEP = 512  # runs remembered per process (a view of a finished run still scrubs what it shows)


def _reading(value: str) -> str:
    """``value`` as it reads: its characters read as another so read, its invisible ones dropped."""
    return hidden().sub("", folded(value)) if reads_differently(value) else value


# the pieces beside the id that name no secret: the kinds the package writes before it (``draft:``,
# ``approval:draft:``, ``exec:``; not any word and ``:``, as ``hunter:<id>`` is), a request id after it
# (``:req_<ULID>``), an authorization scheme before a JWT whose header is the id (``Bearer ``)
_NO_SECRET = re.compile(
    r"(?:approval:)?(?:draft|exec):|:req_[0-7][0-9A-HJKMNP-TV-Z]{25}|(?i:authorization:\s*)?(?i:bearer|basic|token)\s+"
)


def _without_own(value: str, own: str) -> list[str]:
    """What to learn of ``value``: itself, or, when it holds the run's own id (16+ characters: a shorter one is a
    word any secret may hold), the pieces around each occurrence of the id. Learned whole, it would hide the id
    wherever a record ends with it (a cut-off value keeps its head); a piece shorter than ``MIN_HUNTED`` is taken
    with the id's characters beside it, up to ``MIN_HUNTED`` (too short for a cut-off head, so the id alone is
    never one). With the id a JWT's header, the JWT is learned as its payload and signature."""
    if len(own) < 16 or own not in value:
        return [value]
    out, start = [], 0
    while start <= len(value):
        at = value.find(own, start)
        stop = len(value) if at < 0 else at
        if stop > start:
            piece, short = value[start:stop], MIN_HUNTED - (stop - start)
            if short > 0:  # the id's characters before it, or after it when it opens the value
                piece = value[max(start - short, 0) : stop] if start else value[start : stop + short]
            if _NO_SECRET.fullmatch(value[start:stop]) is None:
                out.append(piece)
        if at < 0:
            break
        start = at + len(own)
    return out


def for_run(run_dir: Any) -> RunSecrets:
    """The ``RunSecrets`` of a run directory in this process (created on first use)."""
    global _RUNS_VERSION
    key = os.path.realpath(os.fspath(run_dir))
    with _REGISTRY_LOCK:
        guard = _REGISTRY.get(key)
        if guard is None:
            _RUNS_VERSION += 1
            guard = _REGISTRY[key] = RunSecrets(os.path.basename(key))
            guard.learn_environ(environ_secrets())  # the environment's secrets, as it is when the run starts
            while len(_REGISTRY) > _KEEP:
                _REGISTRY.popitem(last=False)
        else:
            _REGISTRY.move_to_end(key)
        return guard


def runs_version() -> int:
    """A number that changes whenever ``run_ids`` may have (a run registered, another forgotten)."""
    return _RUNS_VERSION


def run_ids() -> list[str]:
    """The ids of the runs of this process (their folders' names): public, kept whole where a view quotes them."""
    with _REGISTRY_LOCK:
        return [g._own for g in _REGISTRY.values() if g._own]


def known_everywhere() -> tuple[str, ...]:
    """Every value any run of this process has learned but the environment's secrets (a cache of rows made before
    stays trusted while a process only holds those, ``frames.runindex``), longest first."""
    global _UNION, _UNION_ENV
    version, values = _UNION
    env = environ_secrets()  # the environment's secrets, learned by every run: ``known_shown`` adds them
    if version != _VERSION or _UNION_ENV is not env:  # (a value the environment no longer holds is kept here)
        with _REGISTRY_LOCK:
            guards = list(_REGISTRY.values())
        version, last = _VERSION, values
        values = tuple(sorted({v for g in guards for v in g.values if v not in env}, key=len, reverse=True))
        # nothing new (a run registered learns the environment's secrets): the same tuple, so what is kept by its
        # identity stays (``shown_known``'s compiled values, ``store.shownnames``' texts shown)
        if len(values) == len(last) and set(values) == set(last):
            values = last
        _UNION, _UNION_ENV = (version, values), env
    return values


_SHOWN: tuple[tuple[str, ...], frozenset[str], tuple[str, ...]] = ((), frozenset(), ())


def known_shown() -> tuple[str, ...]:
    """``known_everywhere`` and the environment's secrets as it is now (``environ``, read again when it changed: a
    variable ``load_dotenv()`` sets after import is hidden before any run starts): what a view hides."""
    global _SHOWN
    known, env = known_everywhere(), environ_secrets()
    last = _SHOWN
    if last[0] is known and last[1] is env:
        return last[2]
    values = tuple(sorted({*known, *env}, key=len, reverse=True)) if env else known
    if len(values) == len(last[2]) and set(values) == set(last[2]):  # the same values: the same tuple
        values = last[2]
    _SHOWN = (known, env, values)
    return values
