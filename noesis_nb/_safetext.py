"""Text for values the package does not control (an adapter's result, its exception, a scorer's value).

User objects may raise from ``__str__``/``__repr__``, lie about their size, refer to themselves or
hold hundreds of megabytes. Each function here returns bounded text and never raises (except
``KeyboardInterrupt``/``SystemExit``), so a hostile value can be named in a message but never
replaces the error it belongs to or freezes the loop converting it.
"""

from __future__ import annotations

import contextvars
import functools
import re
import reprlib
import shlex
import threading
import unicodedata
from typing import Any

__all__ = [
    "visible",
    "unseen_character",
    "unseen_escaped",
    "character_named",
    "unseen_kind",
    "unseen_said",
    "NAME_JOINERS",
    "capped_marks",
    "MARKS_KEPT",
    "magic_word",
    "safe_repr",
    "safe_str",
    "error_text",
    "type_name",
    "frame_given",
    "pandas_kind",
    "MAX_FREE_TEXT",
    "cut_free_text",
]

#: the most characters of text a person writes (a steer, a decision's reason) a run records or a reader takes
MAX_FREE_TEXT = 20_000


def cut_free_text(text: str) -> str:
    """``text`` at most ``MAX_FREE_TEXT`` characters: a longer one cut to fit, ending ``… [cut: N characters]`` (N
    its length as given). A decision file any program may write holds a reason of any size: each reader takes it so
    (screening a 10 MB reason cost every load seconds), as a policy's reason is recorded (``free_text_made_safe``)."""
    if len(text) <= MAX_FREE_TEXT:
        return text
    marker = f"… [cut: {len(text):,} characters]"
    return text[: MAX_FREE_TEXT - len(marker)] + marker


_CONTAINERS = (list, tuple, dict, set, frozenset)
_SEQ_LIMIT = 100  # items of a builtin container shown before "..."


class _Repr(reprlib.Repr):
    """``reprlib`` bounded per item, with room for ordinary values (a short dict reads as ``str(dict)``)."""

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.maxlevel = 6
        self.maxtuple = self.maxlist = self.maxarray = self.maxdict = _SEQ_LIMIT
        self.maxset = self.maxfrozenset = self.maxdeque = _SEQ_LIMIT
        self.maxstring = self.maxlong = self.maxother = max(limit, 20)

    def repr_instance(self, x: Any, level: int) -> str:
        return _cut(_call(repr, x), self.maxother)


def type_name(obj: Any) -> str:
    """``type(obj).__name__`` for any object (a hostile ``__getattribute__`` does not reach ``type``)."""
    try:
        return str(type(obj).__name__)
    except Exception:
        return "object"


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: max(limit - 1, 0)] + "…"


#: values whose ``str``/``repr`` is Python's own and returns at once: converted inline (the hot path)
_PLAIN = frozenset({str, int, float, bool, complex, type(None), bytes, bytearray})
#: how long a user object's ``__str__``/``__repr__`` may take before it is named instead (the loop waits that long)
TEXT_WAIT_S = 5.0
#: objects whose conversion did not return in time (id -> the object, kept so its id stays its own, and the method
#: that hung): named again at once, so one such object costs the wait once, not at every message that shows it
_HUNG: dict[int, tuple[Any, str]] = {}
_HUNG_KEPT = 64


def _call(fn: Any, obj: Any) -> str:
    """``fn(obj)`` (``str`` or ``repr``), or a description of what went wrong.

    A user object's ``__str__``/``__repr__`` runs on a daemon thread of its own, waited for at most ``TEXT_WAIT_S``:
    one that never returns (it waits on a lock, sleeps, loops) is named instead and its thread left running (Python
    cannot stop it), so the loop that asked goes on. Plain values, and objects keeping ``object``'s own methods, are
    converted inline (no thread). The thread runs in a copy of the caller's context (context variables read as
    inline); what a method reads from its caller's thread itself (``threading.local``, an sqlite connection made
    there) it does not see. A KeyboardInterrupt or SystemExit it raises is raised here, as inline.
    """
    kind = type(obj)
    if kind in _PLAIN or _object_own(kind, fn):
        return _convert(fn, obj)
    hung = _HUNG.get(id(obj))
    if hung is not None and hung[0] is obj:
        return _hung_text(hung[1], obj)
    box: list[Any] = []
    done = threading.Event()

    def convert() -> None:
        try:
            box.append(_convert(fn, obj))
        except BaseException as exc:  # KeyboardInterrupt/SystemExit of the user's method: raised in the caller
            box.append(exc)
        finally:
            done.set()

    # in a copy of the caller's context: a text read from a context variable (a ``decimal`` context, numpy's print
    # options, the user's own) is the one the caller would get inline
    context = contextvars.copy_context()
    threading.Thread(target=context.run, args=(convert,), name="noesis_nb-text", daemon=True).start()
    if not done.wait(TEXT_WAIT_S):
        if len(_HUNG) >= _HUNG_KEPT:
            _HUNG.pop(next(iter(_HUNG)))
        _HUNG[id(obj)] = (obj, fn.__name__)
        return _hung_text(fn.__name__, obj)
    if isinstance(box[0], BaseException):
        raise box[0]
    text: str = box[0]
    return text


def _object_own(kind: Any, fn: Any) -> bool:
    """``kind`` keeps ``object``'s ``__repr__`` (and ``__str__``, for ``str``): its text is its name and address."""
    own_repr: Any = object.__repr__
    own_str: Any = object.__str__
    try:
        return bool(kind.__repr__ is own_repr and (fn is repr or kind.__str__ is own_str))
    except Exception:
        return False


def _hung_text(method: str, obj: Any) -> str:
    return f"<{type_name(obj)} object; its __{method}__ did not return within {TEXT_WAIT_S:g} s>"


def _convert(fn: Any, obj: Any) -> str:
    try:
        text = fn(obj)
        if isinstance(text, str):
            return text
        raise TypeError(f"__{fn.__name__}__ returned {type_name(text)}")
    except RecursionError:
        return f"<{type_name(obj)} object nested too deeply to show>"
    except Exception as exc:
        return f"<{type_name(obj)} object; its __{fn.__name__}__ raised {type_name(exc)}>"


def safe_repr(obj: Any, limit: int = 400) -> str:
    """``repr(obj)`` of at most ``limit`` characters; a long str/bytes is cut before it is converted."""
    if isinstance(obj, (str, bytes, bytearray)) and len(obj) > limit:
        return _cut(_call(repr, obj[: limit + 1]), limit)
    if isinstance(obj, _CONTAINERS):
        try:
            return _cut(_Repr(limit).repr(obj), limit)
        except Exception:
            pass
    return _cut(_call(repr, obj), limit)


def safe_str(obj: Any, limit: int = 400) -> str:
    """``str(obj)`` of at most ``limit`` characters; builtin containers are shown bounded (``safe_repr``)."""
    if isinstance(obj, str):
        return _cut(str.__str__(obj[: limit + 1]), limit)
    if isinstance(obj, (bytes, bytearray, *_CONTAINERS)):
        return safe_repr(obj, limit)
    return _cut(_call(str, obj), limit)


def error_text(exc: BaseException, limit: int = 2000) -> str:
    """``str(exc)`` bounded, or ``repr`` of its first argument when ``__str__`` raises; '' when it says nothing.

    An exception class that keeps ``BaseException.__str__`` is read from its arguments, each bounded: ``str`` of
    ``ValueError(<10 million items>)`` would build all of it to show the first few hundred characters.
    """
    args = getattr(exc, "args", None) if type(exc).__str__ is BaseException.__str__ else None
    if isinstance(args, tuple):
        if not args:
            return ""
        return safe_str(args[0], limit) if len(args) == 1 else safe_repr(args, limit)
    text = safe_str(exc, limit)
    if text.startswith(f"<{type_name(exc)} object; its __str__ raised"):
        try:
            args = exc.args
        except Exception:
            return text
        if isinstance(args, tuple) and args:
            return safe_repr(args[0], limit) if not isinstance(args[0], str) else safe_str(args[0], limit)
    return text


def pandas_kind(value: Any) -> str | None:
    """``"Series"`` or ``"DataFrame"`` for a pandas one (duck-typed: pandas is not imported), else None."""
    kind = type(value).__name__
    return kind if kind in ("Series", "DataFrame") and type(value).__module__.startswith("pandas") else None


def frame_given(value: Any, wanted: str) -> str | None:
    """What to say when ``value``, a pandas Series or DataFrame, is given as ``wanted``, with the expression that
    gives the id; None for anything else."""
    kind = pandas_kind(value)
    if kind is None:
        return None
    try:
        if kind == "Series" and "episode_id" in value.index:  # a row of runs_df (or any frame with the column)
            return f"got a frame's row where {wanted} goes; pass row['episode_id'] ({safe_repr(value['episode_id'], 60)})"
        if kind == "DataFrame" and "episode_id" in value.columns:
            ids = value["episode_id"]
            pick = "df['episode_id']" if "ids" in wanted else "df['episode_id'].iloc[0]"
            first = f" ({safe_repr(ids.iloc[0], 60)}, …)" if len(ids) else " (the frame is empty)"
            return f"got a DataFrame where {wanted} goes; pass {pick}{first}"
        if kind == "Series" and "ids" not in wanted:
            first = f" ({safe_repr(value.iloc[0], 60)})" if len(value) else " (the Series is empty)"
            values = "1 value" if len(value) == 1 else f"{len(value)} values"
            return f"got a Series of {values} where {wanted} goes; pass one of them, e.g. ids.iloc[0]{first}"
    except Exception:  # an odd frame: the generic message is said instead
        return None
    if kind == "DataFrame":
        return f"got a DataFrame where {wanted} goes; pass its episode id column, e.g. df['episode_id']"
    return None


# Characters that show as nothing or make text read other than it is: controls (terminal escapes), every
# format character (zero-width spaces, soft hyphen, BOM, word joiner, bidi marks, overrides and isolates,
# tags, Arabic and Egyptian format marks), variation selectors, line and paragraph separators, and blank
# fillers. A command ``cat safe\u200b.txt`` must not read as ``cat safe.txt`` on the card that approves it.
_INVISIBLE = (
    "\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u00ad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2"
    "\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b\u200e\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\u3164"
    "\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb"
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff"
)
_JOINERS = "\u200c\u200d"  # zero-width (non-)joiners: part of emoji and Persian words in prose, hidden in names
# prose (a task, a message, a hover text) keeps what writing needs (bidi marks in Hebrew and Persian, soft
# hyphens, emoji tag sequences and variation selectors): controls, what reorders text, zero-width spaces and
# byte-order marks are shown
_HIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u200b\u2028-\u202e\u2066-\u2069\ufeff]")
_HIDDEN_EXACT = re.compile(f"[{_INVISIBLE}{_JOINERS}]")


#: the characters with no width a name may hold: ZWNJ and ZWJ (Persian, Hindi and Kurdish words, emoji sequences
#: such as a technologist) and the emoji variation selector U+FE0F (``❤️``)
NAME_JOINERS = "\u200c\u200d\ufe0f"
_UNSEEN_CATEGORIES = frozenset({"Cc", "Cf", "Co", "Cs", "Zl", "Zp"})
# Unicode's default-ignorable code points outside those categories: the combining grapheme joiner, the Hangul and
# Khmer fillers, the Mongolian free variation selectors, the variation selectors (and their supplement, in the tag
# block), the ones kept unassigned to be ignored (U+2065, U+FFF0-U+FFF8, the tag block); and the blank braille pattern
_IGNORABLE = re.compile(
    "[\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u2065\u2800\u3164\ufe00-\ufe0f\uffa0\ufff0-\ufff8\U000e0000-\U000e0fff]"
)


def unseen_character(text: str, *, allowed: str = "", assigned: bool = False) -> str | None:
    """The first character of ``text`` no name may hold, None when there is none: a control, format, private-use,
    surrogate or line-separating character (categories Cc, Cf, Co, Cs, Zl, Zp: a NUL, an escape, a zero-width space,
    a direction mark, a soft hyphen, a tag character), a default-ignorable one (a Hangul filler, a variation selector),
    a noncharacter (U+FDD0-U+FDEF and the last two of each plane, U+FFFE, U+FFFF, U+10FFFE…: never text) or a space
    but the ASCII one (a no-break space). Two names that read the same are then one name. ``allowed``: the characters
    of ``NAME_JOINERS`` a kind of name is spelled with. One rule for every name typed in code: a model, provider,
    request id, tool name, steer's sender.

    A code point this Python's Unicode tables do not assign is taken, as a name in free text may hold an emoji or a
    letter newer than those tables; ``assigned`` refuses it too, for a name that keys records and files (an approver
    id, a principal): such a code point may be given a format or invisible character's meaning later, and the name
    must stay one name whatever Python reads it."""
    if text.isascii():
        return next((ch for ch in text if ch < " " or ch == "\x7f"), None)
    for ch in text:
        if ch in allowed:
            continue
        category = unicodedata.category(ch)
        if category in _UNSEEN_CATEGORIES or (category == "Zs" and ch != " ") or _IGNORABLE.match(ch):
            return ch
        if category == "Cn" and (assigned or _noncharacter(ch)):
            return ch
    return None


def _noncharacter(ch: str) -> bool:
    """One of Unicode's 66 noncharacters: U+FDD0-U+FDEF and U+xxFFFE, U+xxFFFF of each plane."""
    code = ord(ch)
    return 0xFDD0 <= code <= 0xFDEF or code & 0xFFFE == 0xFFFE


def unseen_escaped(text: str, *, allowed: str = "", assigned: bool = False) -> str:
    """``text`` with each character ``unseen_character`` finds written as its backslash escape (``gpt\\u3164``): a
    name in a message reads as typed, the characters no reader sees shown."""
    if unseen_character(text, allowed=allowed, assigned=assigned) is None:
        return text
    return "".join(
        ch.encode("unicode_escape").decode("ascii") if unseen_character(ch, allowed=allowed, assigned=assigned) else ch
        for ch in text
    )


def unseen_kind(ch: str) -> str:
    """What ``unseen_character`` refused ``ch`` as: ``control character`` (a NUL, a line end, an escape), ``non-ASCII
    space`` (a no-break space), ``noncharacter``, ``code point`` (one Python's tables do not assign) or ``invisible
    character`` (a format character, a filler, a variation selector)."""
    category = unicodedata.category(ch)
    if category == "Cc":
        return "control character"
    if category == "Zs":
        return "non-ASCII space"
    if category == "Cn" and not _IGNORABLE.match(ch):
        return "noncharacter" if _noncharacter(ch) else "code point"
    return "invisible character"


def character_named(ch: str) -> str:
    """``'\\u200e' (U+200E LEFT-TO-RIGHT MARK)``: a character no reader sees, named so it can be found (``'\\uffff'
    (U+FFFF, a noncharacter)``, ``'\\u0378' (U+0378, unassigned)`` for a code point without a name)."""
    named = unicodedata.name(ch, "")
    if not named and unicodedata.category(ch) == "Cn":
        named = ", a noncharacter" if _noncharacter(ch) else ", unassigned"
    elif named:
        named = " " + named
    return f"{ascii(ch)} (U+{ord(ch):04X}{named})"


def unseen_said(ch: str, position: int) -> str:
    """``holds the invisible character '\\u200e' (U+200E LEFT-TO-RIGHT MARK) at position 7``: the one phrase every
    message refusing a value for a character in it says, after the value. The kind is ``unseen_kind``'s for a
    character ``unseen_character`` finds (a control, an invisible character, a non-ASCII space, a noncharacter), and
    ``character`` for one refused by another rule (a letter drawn like an ASCII one, a blank where none may stand)."""
    kind = unseen_kind(ch) if unseen_character(ch, assigned=True) is not None else "character"
    return f"holds the {kind} {character_named(ch)} at position {position}"


#: combining marks kept on one base character: enough for written languages (Vietnamese stacks two, pointed Hebrew
#: and Tibetan up to four), too few for "Zalgo" text, whose hundreds of marks draw over the rows above and below
MARKS_KEPT = 4


@functools.cache
def _mark_piles() -> re.Pattern[str]:
    """A run of more than ``MARKS_KEPT`` non-spacing or enclosing marks (and the joiners between them); built once,
    when the first text that is not ASCII is shown (the Unicode tables are read then, in a few tens of ms)."""
    ranges: list[str] = []
    start = None
    for code in [*range(0x300, 0x20000), *range(0xE0000, 0xE1000), 0x10FFFF]:
        mark = unicodedata.category(chr(code)) in ("Mn", "Me") and code != 0x10FFFF
        if mark and start is None:
            start = code
        elif not mark and start is not None:
            ranges.append(f"{re.escape(chr(start))}-{re.escape(chr(code - 1))}" if code - 1 > start else re.escape(chr(start)))
            start = None
    marks = "".join(ranges) + _JOINERS
    return re.compile(f"([{marks}]{{{MARKS_KEPT}}})[{marks}]+")


def capped_marks(text: str, *, exact: bool = False) -> str:
    """``text`` with at most ``MARKS_KEPT`` combining marks on each character: a pile of them (Zalgo text) would draw
    over neighbouring rows. ``exact`` (names, ids) shows where marks were dropped with one ``\ufffd``."""
    if text.isascii():
        return text
    return _mark_piles().sub("\\1\ufffd" if exact else "\\1", text)


def visible(text: str, *, exact: bool = False) -> str:
    """``text`` with control and reordering characters shown as ``\ufffd`` (nothing reordered, no terminal escape),
    and no pile of combining marks (:func:`capped_marks`).

    ``exact`` shows every invisible character too (zero-width spaces and joiners, bidi marks, variation selectors,
    tags): for names, ids and commands, where two spellings that look the same must not read the same. Prose
    keeps them, as Hebrew, Persian, hyphenated German and emoji need them."""
    hidden = _HIDDEN_EXACT if exact else _HIDDEN
    text = capped_marks(text, exact=exact)
    return hidden.sub("\ufffd", text) if hidden.search(text) else text


def magic_word(word: str) -> str:
    """``word`` as it must be typed in a ``%noesis`` line to arrive as it is: quoted when it holds spaces or quotes,
    with ``{``/``}`` and a ``$`` before a name doubled (the magic reads ``{expr}`` and ``$name`` in each argument)."""
    return shlex.quote(re.sub(r"\$(?=[\w.])", "$$", word).replace("{", "{{").replace("}", "}}"))
