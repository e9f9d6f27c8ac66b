"""An adapter's exception, its secrets redacted before the cell's traceback shows it.

``handle.result()`` raises the adapter's own exception (its type is what ``except`` clauses
catch), and IPython prints its message into the notebook, which is saved and shared. So the
exception is kept and its message parts are redacted in place, as the run's files are: the
arguments, the file names and reasons some built-in errors print, notes (one that is no text as the
``str`` a traceback prints), and the text its own attributes hold (a ``__str__`` may build the message
from ``self.token``), through its cause and context. A message built from anything else (a closure, a slot)
that still shows a secret is printed redacted: the exception's class is swapped for a subclass of it, of the same name,
whose ``str`` and ``repr`` are redacted (``except`` and ``isinstance`` still match; a ``__setattr__`` that
refuses, as attrs' frozen classes do, is passed by). A built-in class's instance cannot change class: one whose
message still shows a secret (held in a dict, list or tuple argument) is replaced by a copy of that subclass
holding the same argument objects, the same fields (``ImportError.name``, ``OSError.characters_written``,
``SyntaxError.lineno``) and its texts redacted as the original's were (``SyntaxError.text``); the exception is
left unchanged when a field cannot be copied. A group holding such a copy is rebuilt as its own class
(``except DeployErrors`` still matches).

What changes for a program: ``handle.result()`` may raise that copy, not the object the adapter raised
(``is`` differs; type, arguments and fields are the same), and an exception whose cause or context was copied
is relinked to the copy (the adapter's own exception's ``__cause__`` then is the copy), so its traceback shows
the copy. Only what is shown is redacted: data a program that catches the error reads
(``e.args[0]["headers"]``) stays as raised, and a message longer than ``SHOWN_LIMIT`` is shown cut, so its cost
is bounded.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import GetSetDescriptorType, MemberDescriptorType
from typing import Any

from .display import shown, shown_cut
from .guard import scrub_text
from .names import REDACTED_VALUE, is_secret_key, looks_like_credential

__all__ = ["redact_exception"]

SHOWN_LIMIT = 20_000  # characters of a message scanned and shown: a 10,000-entry dict argument renders ~200,000
_TEXT_ATTRIBUTES = ("filename", "filename2", "strerror", "msg", "reason", "text")


def redact_exception(exc: BaseException) -> BaseException:
    """Redact in place what ``shown`` would hide from ``exc``'s message, cause, context and group members.

    Returns ``exc``, or, when its class is built in (no class swap) and its message still shows a secret (one held
    in a dict, list or tuple argument), a same-named copy shown redacted holding the same argument objects (a
    group holding such a member: the group rebuilt around the member's copy).
    """
    return _walk(exc, {})


def _walk(exc: BaseException, seen: dict[int, BaseException]) -> BaseException:
    pending: list[tuple[BaseException, BaseException | None, str]] = [(exc, None, "")]
    while pending:
        current, parent, slot = pending.pop()
        done = seen.get(id(current))
        if done is None:
            seen[id(current)] = current  # under way: a cycle back to it ends here
            done = seen[id(current)] = _shown_one(current, seen)
            pending.extend((e, done, s) for s in ("__cause__", "__context__") if (e := getattr(done, s)) is not None)
            if not isinstance(done, BaseExceptionGroup):  # a group's members were walked by ``_regrouped``
                pending.extend((e, None, "") for e in getattr(done, "exceptions", ()) if isinstance(e, BaseException))
        if parent is not None and done is not current:
            _relink(parent, slot, done)
    return seen[id(exc)]


def _shown_one(exc: BaseException, seen: dict[int, BaseException]) -> BaseException:
    """``exc`` with its parts redacted, its class swapped when its message still shows a secret, or its copy."""
    try:
        if isinstance(exc, BaseExceptionGroup):
            exc = _regrouped(exc, seen)
        named = _redact_one(exc)
        if not _shows_secret(exc, named):
            return exc
        try:
            _set(exc, "__class__", _shown_class(type(exc)))
        except TypeError:  # a built-in class: its instances keep their class
            return _shown_copy(exc, named)
    except Exception:  # an exception class that refuses changes keeps its message: never fail on the error path
        pass
    return exc


def _regrouped(group: BaseExceptionGroup[Any], seen: dict[int, BaseException]) -> BaseExceptionGroup[Any]:
    """``group`` with its members shown redacted; rebuilt as its own class (``derive``, or made anew for a subclass
    whose ``derive`` gives a plain group), then its attributes, notes, cause, context and traceback, when a member
    was replaced by its copy."""
    members = tuple(_walk(e, seen) for e in group.exceptions)
    if all(a is b for a, b in zip(members, group.exceptions, strict=True)):
        return group
    rebuilt = group.derive(members)
    if type(rebuilt) is not type(group):  # a subclass keeping ``derive``'s plain group: made as its own class
        rebuilt = BaseExceptionGroup.__new__(type(group), group.message, members)
    rebuilt.__dict__.update(vars(group))
    rebuilt.__cause__, rebuilt.__context__ = group.__cause__, group.__context__
    rebuilt.__suppress_context__ = group.__suppress_context__
    for copied, member in zip(members, group.exceptions, strict=True):  # a member caught while the group was handled
        for slot in ("__cause__", "__context__"):
            if copied is not member and getattr(copied, slot) is group:
                _relink(copied, slot, rebuilt)
    return rebuilt.with_traceback(group.__traceback__)


def _relink(parent: BaseException, slot: str, shown_exc: BaseException) -> None:
    """Point ``parent``'s cause or context at the copy that is shown (setting a cause sets ``__suppress_context__``)."""
    suppress = parent.__suppress_context__
    setattr(parent, slot, shown_exc)
    parent.__suppress_context__ = suppress


def _shown_copy(exc: BaseException, named: tuple[str, ...] = ()) -> BaseException:
    """``exc`` rebuilt as pickle would (``OSError``'s file names are in its reduced arguments) as its class's
    redacted subclass: the same argument and attribute objects, fields, cause, context and traceback, its texts
    redacted as ``exc``'s were. ``exc`` itself when its class cannot be rebuilt so (an extension class with its
    own constructor, a field that cannot be set the same)."""
    try:
        reduced = exc.__reduce__()
        if not (isinstance(reduced, tuple) and len(reduced) >= 2 and reduced[0] is type(exc)):
            return exc
        twin: BaseException = _shown_class(type(exc))(*reduced[1])
        if len(reduced) > 2 and isinstance(reduced[2], dict):
            twin.__dict__.update(reduced[2])
        if len(twin.args) != len(exc.args) or any(a is not b for a, b in zip(twin.args, exc.args, strict=True)):
            return exc
        if not _fields_kept(twin, exc, named):
            return exc
        twin.__cause__, twin.__context__ = exc.__cause__, exc.__context__
        twin.__suppress_context__ = exc.__suppress_context__
        _redact_one(twin)
        _printed_fields_shown(twin)
        return twin.with_traceback(exc.__traceback__)
    except Exception:  # never fail on the error path
        return exc


def _printed_fields_shown(twin: BaseException) -> None:
    """A ``SyntaxError``'s ``msg`` that is no text (a dict raised as its message) is printed by ``traceback`` and
    ``logging`` as it renders, not through ``str(exc)``: the shown copy holds that rendering redacted (its
    ``args`` keep the object raised)."""
    if isinstance(twin, SyntaxError) and twin.msg is not None and not isinstance(twin.msg, str):
        raised = twin.msg
        twin.msg = _safe(twin, lambda: str(raised))


_MISSING = object()
_SET_APART = frozenset({"__class__", "__dict__", "__weakref__", "args", "__traceback__", "__cause__", "__context__"})


def _fields_kept(twin: BaseException, exc: BaseException, named: tuple[str, ...]) -> bool:
    """Give ``twin`` each field ``exc``'s classes keep in C (``ImportError.name``, ``SyntaxError.text``,
    ``OSError.characters_written``) as ``exc`` has it, so a program reads what was raised; False when one cannot
    be (a read-only text differing only as redacted, a group's ``message``, is kept redacted)."""
    for cls in type(exc).__mro__:
        for name, slot in vars(cls).items():
            if name in _SET_APART or not isinstance(slot, (GetSetDescriptorType, MemberDescriptorType)):
                continue
            raised = _field(exc, name)
            if _same(_field(twin, name), raised):
                continue
            try:
                delattr(twin, name) if raised is _MISSING else setattr(twin, name, raised)
            except Exception:  # a read-only field
                pass
            now = _field(twin, name)
            if not (_same(now, raised) or (isinstance(raised, str) and now == _redacted(raised, named))):
                return False
    return True


def _field(exc: BaseException, name: str) -> Any:
    try:
        return getattr(exc, name)
    except Exception:  # a field not set (``characters_written``)
        return _MISSING


def _same(a: Any, b: Any) -> bool:
    """The same object, an equal number or text, or a tuple of the same objects (a group's ``exceptions``)."""
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, (int, float, str, bytes)):
        return bool(a == b)
    return isinstance(a, tuple) and len(a) == len(b) and all(x is y for x, y in zip(a, b, strict=True))


def _set(exc: BaseException, name: str, value: Any) -> None:
    """``setattr``, past a ``__setattr__`` that refuses (attrs' frozen classes): what is shown is redacted."""
    try:
        setattr(exc, name, value)
    except TypeError:  # a class Python itself refuses to change
        raise
    except Exception:
        object.__setattr__(exc, name, value)


def _redact_one(exc: BaseException) -> tuple[str, ...]:
    """Redact ``exc``'s parts in place; returns the values of its secret-named attributes (``self.token``),
    which no detector may recognise and which are scrubbed from its other texts too."""
    named = _attributes(exc)
    args = exc.args
    redacted = tuple(_redacted(a, named) for a in args)
    if any(new is not old for new, old in zip(redacted, args, strict=True)):
        _set(exc, "args", redacted)
    for name in _TEXT_ATTRIBUTES:
        value = getattr(exc, name, None)
        if isinstance(value, str) and (new := _redacted(value, named)) != value:
            _set(exc, name, new)
    notes = getattr(exc, "__notes__", None)
    if isinstance(notes, list):
        notes[:] = [_note_shown(n, named) for n in notes]
    elif isinstance(notes, Sequence) and not isinstance(notes, (str, bytes)):  # set by hand, not by add_note
        _set(exc, "__notes__", [_note_shown(n, named) for n in notes])
    elif notes is not None:  # ``traceback`` prints its repr, IPython each item it iterates: shown as one note
        _set(exc, "__notes__", [_note_shown(_safe(exc, lambda: repr(notes)), named)])
    return named


def _note_shown(note: Any, named: tuple[str, ...]) -> Any:
    """A note redacted; one that is no text (an object, bytes, a dict) is printed as its ``str``, so when that
    rendering shows a secret the note becomes the rendering redacted."""
    if type(note) is str:  # a str subclass may print something else (its own ``__str__``): judged as printed
        return _redacted(note, named)
    try:
        text = str(note)
    except Exception:  # printed as ``<note str() failed>``: nothing of it shown
        return note
    new = _redacted(text, named) if isinstance(text, str) else text
    return note if new is text else new


def _attributes(exc: BaseException) -> tuple[str, ...]:
    """Redact the text ``exc``'s own attributes hold, one level deep (a secret-named one whole, others by
    ``shown``); returns the secret-named values it replaced."""
    attributes = getattr(exc, "__dict__", None)
    if not isinstance(attributes, dict):
        return ()
    named: list[str] = []
    for name, value in list(attributes.items()):
        if not isinstance(name, str) or name.startswith("__") or isinstance(value, BaseException):
            continue
        text = value.decode("utf-8", "replace") if isinstance(value, bytes) else value
        if isinstance(text, str) and is_secret_key(name) and looks_like_credential(text):
            named.append(text)
            attributes[name] = REDACTED_VALUE if isinstance(value, str) else REDACTED_VALUE.encode()
            continue
        new = _attribute_redacted(value)
        if new is not value:
            attributes[name] = new
    return tuple(named)


def _attribute_redacted(value: Any) -> Any:
    """A text attribute with its secrets redacted (the same object when it holds none, or is no text: a
    container is not walked on the error path; a message it shows is caught by ``_shown_message``)."""
    if isinstance(value, str):
        return _redacted(value, ())
    if isinstance(value, bytes):
        text = value.decode("utf-8", "replace")
        new = shown(text)
        return value if new == text else new.encode("utf-8", "replace")
    return value


def _redacted(value: Any, named: tuple[str, ...]) -> Any:
    """A string with its secrets redacted (the same object when it holds none)."""
    if isinstance(value, str):
        new = shown(scrub_text(value, named) if named else value)
        return value if new == value else new
    return value


def _shows_secret(exc: BaseException, named: tuple[str, ...]) -> bool:
    """Whether ``str(exc)``/``repr(exc)``, its parts redacted, still show a secret, or are too long to scan whole
    (a container's rendering may be huge: it is then shown cut, ``_safe``). Python's own rendering prints a
    self-referencing container as ``{...}``."""
    if type(exc).__str__ is _str and type(exc).__repr__ is _repr:
        return False
    for render in (str, repr):
        try:
            text = render(exc)
        except Exception:  # a message that cannot be built shows nothing
            continue
        if len(text) > SHOWN_LIMIT or _redacted(text, named) != text:
            return True
    return False


_ATTRIBUTE = "_noesis_nb_shown_class_"
_IMMUTABLE: dict[type, type] = {}  # built-in and extension classes, which take no attribute and live as long


def _shown_class(cls: type) -> type:
    """The same-named subclass of ``cls`` whose ``str``/``repr`` are redacted, made once per class.

    Kept on ``cls`` itself (a cycle the collector frees with it): in a weak-key table the subclass, holding
    ``cls`` as its base, kept every class it was made for alive.
    """
    shown_cls: type | None = vars(cls).get(_ATTRIBUTE) or _IMMUTABLE.get(cls)
    if shown_cls is not None:
        return shown_cls
    namespace = {
        "__str__": _str,
        "__repr__": _repr,
        "__reduce__": _reduce,
        "__module__": cls.__module__,
        "__qualname__": cls.__qualname__,
        "__doc__": cls.__doc__,
        "__slots__": (),  # a slotted class's instance may change class only to one of the same layout
    }
    metaclass: Any = type(cls)  # a custom metaclass makes the subclass too (one that refuses: the message stays)
    shown_cls = metaclass(cls.__name__, (cls,), namespace)
    try:
        type.__setattr__(cls, _ATTRIBUTE, shown_cls)
    except (TypeError, AttributeError):
        _IMMUTABLE[cls] = shown_cls
    return shown_cls


def _safe(exc: BaseException, render: Any) -> str:
    try:
        text = render()
    except Exception:  # never raise on the error path
        return f"<{type(exc).__name__}: its message could not be shown>"
    if isinstance(text, str) and len(text) > SHOWN_LIMIT:
        return f"{shown_cut(text, SHOWN_LIMIT)}… ({len(text) - SHOWN_LIMIT:,} more characters not shown)"
    return shown(text) if isinstance(text, str) else text


def _str(self: BaseException) -> str:
    return _safe(self, super(type(self), self).__str__)


def _repr(self: BaseException) -> str:
    return _safe(self, super(type(self), self).__repr__)


def _reduce(self: BaseException) -> Any:
    """Rebuilt as the original class would be (the subclass is not importable by its name), then shown redacted
    again: a pickled or copied exception prints as the one it copies (``except`` and ``isinstance`` still match)."""
    reduced = super(type(self), self).__reduce__()
    if not (isinstance(reduced, tuple) and len(reduced) >= 2 and isinstance(reduced[1], tuple)):
        return reduced
    shown_cls, cls = type(self), type(self).__mro__[1]
    make = cls if reduced[0] is shown_cls else reduced[0]
    args = tuple(cls if a is shown_cls else _redacted(a, ()) for a in reduced[1])
    return (_rebuilt, (cls, make, args), *reduced[2:])


def _rebuilt(cls: type[BaseException], make: Any, args: tuple[Any, ...]) -> Any:
    """``make(*args)`` (as unpickling the original would), as ``cls``'s redacted subclass."""
    exc = make(*args)
    if type(exc) is cls:
        try:
            exc.__class__ = _shown_class(cls)
        except TypeError:  # a built-in class: a copy as its redacted subclass (state is set on it after)
            return _shown_copy(exc)
    return exc
