"""An adapter's exception that holds a secret is raised by ``handle.result()`` with the secret redacted.

IPython prints the raised exception into the notebook, which is saved and shared, so what the cell
shows must hold no more than the run's files do: every shape of the secret corpus, in the message,
in a chained cause, in a note, in an ``OSError``'s file name, and in a message the class builds from
its own attributes or from elsewhere, through ``result()``, ``error``, the traceback as printed and
the run's files. The exception keeps its type, so ``except`` clauses still catch it.
"""

from __future__ import annotations

import asyncio
import copy
import gc
import pickle
import random
import traceback
import weakref
from pathlib import Path
from typing import Any

import pytest
from IPython.core import ultratb

import noesis_nb
from noesis_nb.errors import ToolRejected
from tests.hardening.secret_corpus import corpus, leaks, run_files

SHAPES = corpus(random.SystemRandom().randrange(2**32))


class AuthError(Exception):
    """A message built from a secret-named attribute, not from the arguments."""

    def __init__(self, token: str) -> None:
        self.token = token
        super().__init__("auth failed")

    def __str__(self) -> str:
        return f"auth failed for {self.token}"


class DeployError(Exception):
    """A message built from an attribute of an ordinary name."""

    def __init__(self, detail: str) -> None:
        self.detail = detail.encode()
        super().__init__()

    def __str__(self) -> str:
        return f"deploy failed: {self.detail.decode()}"


def _closure_error(text: str) -> type[Exception]:
    """An error class whose message comes from a closure: no part of the instance holds it."""

    class ClosureError(Exception):
        def __str__(self) -> str:
            return f"closure failed: {text}"

        def __repr__(self) -> str:
            return f"ClosureError({text!r})"

    return ClosureError


class _Shows:
    """A note that is no text: ``traceback`` and IPython print it as its ``str``."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __str__(self) -> str:
        return self.text


class _ShowsOther(str):
    """A text note that prints something else (its own ``__str__``)."""

    def __new__(cls, text: str) -> _ShowsOther:
        made = super().__new__(cls, "see the log")
        made.text = text  # type: ignore[attr-defined]
        return made

    def __str__(self) -> str:
        return self.text  # type: ignore[attr-defined,no-any-return]


_ODD_NOTES: dict[str, Any] = {
    "note of an object": lambda text: [_Shows(text)],
    "note of a str subclass": lambda text: [_ShowsOther(text)],
    "note of bytes": lambda text: [text.encode()],
    "note of a dict": lambda text: [{"detail": text}],
    "notes not a sequence": lambda text: {text},
}


def _failing(shape: Any, how: str) -> Any:
    def agent(task: str, ctx: Any) -> str:
        if how == "message":
            raise ValueError(f"deploy failed: {shape.text}")
        if how == "cause":
            try:
                raise KeyError(shape.text)
            except KeyError as inner:
                raise RuntimeError("the call failed") from inner
        if how == "note":
            error = ValueError("deploy failed")
            error.add_note(f"with {shape.text}")
            raise error
        if how == "notes set by hand":
            error = ValueError("deploy failed")
            error.__notes__ = (f"with {shape.text}",)  # a traceback prints any sequence of notes
            raise error
        if how in _ODD_NOTES:
            error = ValueError("deploy failed")
            error.__notes__ = _ODD_NOTES[how](f"with {shape.text}")  # printed as its str (a set: as its repr)
            raise error
        if how == "group member":
            raise ExceptionGroup("deploys failed", [ValueError("one failed"), OSError(f"with {shape.text}")])
        if how == "named attribute":
            raise AuthError(shape.value)
        if how == "attribute":
            raise DeployError(shape.text)
        if how == "closure":
            raise _closure_error(shape.text)()
        raise FileNotFoundError(2, "No such file or directory", f"/srv/keys/{shape.text}.pem")

    return agent


KINDS: dict[str, type[BaseException]] = {
    "message": ValueError,
    "cause": RuntimeError,
    "note": ValueError,
    "notes set by hand": ValueError,
    **dict.fromkeys(_ODD_NOTES, ValueError),
    "group member": ExceptionGroup,
    "os error": FileNotFoundError,
    "named attribute": AuthError,
    "attribute": DeployError,
}
HOWS = [
    "message",
    "cause",
    "note",
    "notes set by hand",
    *_ODD_NOTES,
    "group member",
    "os error",
    "named attribute",
    "attribute",
    "closure",
]


@pytest.mark.parametrize("how", HOWS)
def test_a_secret_in_the_adapters_exception_is_redacted_where_the_cell_shows_it(tmp_path: Path, how: str) -> None:
    async def cell() -> list[tuple[str, bytes]]:
        shown: list[tuple[str, bytes]] = []
        # one run a shape, all started at once (each writes its own run directory; their file syncs overlap)
        handles = [noesis_nb.start("deploy", using=_failing(shape, how), runs_dir=tmp_path) for shape in SHAPES]
        for shape, handle in zip(SHAPES, handles, strict=True):
            await handle
            assert handle.status == "error"
            kind = KINDS.get(how, Exception)
            with pytest.raises(kind) as raised:
                handle.result()
            printed = "".join(traceback.format_exception(raised.value))
            assert "[REDACTED]" in printed, printed
            shown.append((f"{shape.name}: traceback", printed.encode()))
            ipython = "".join(ultratb.ListTB(theme_name="nocolor").get_exception_only(type(raised.value), raised.value))
            shown.append((f"{shape.name}: IPython's traceback", ipython.encode()))
            shown.append((f"{shape.name}: error", repr(handle.error).encode()))
            shown.extend((f"{shape.name}: {where}", blob) for where, blob in run_files(handle.run_dir))
        return shown

    found = leaks(SHAPES, asyncio.run(cell()))
    assert found == [], found


def test_an_error_whose_message_no_part_holds_keeps_its_class_name_and_pickles(tmp_path: Path) -> None:
    shape = SHAPES[0]
    error_class = _closure_error(shape.text)

    def agent(task: str, ctx: Any) -> str:
        raise error_class("boom")

    async def cell() -> BaseException:
        handle = noesis_nb.start("deploy", using=agent, runs_dir=tmp_path)
        await handle
        try:
            handle.result()
        except error_class as caught:  # the `except` of the class the adapter raised still matches
            return caught
        raise AssertionError("not raised")

    caught = asyncio.run(cell())
    printed = "".join(traceback.format_exception(caught))
    assert f"{error_class.__qualname__}: closure failed: " in printed and "[REDACTED]" in printed, printed
    assert leaks([shape], [("printed", printed.encode()), ("repr", repr(caught).encode())]) == []
    assert type(pickle.loads(pickle.dumps(AuthError("x" * 12)))) is AuthError


class SlottedError(Exception):
    """A message built from a slot: the instance has no ``__dict__`` to redact."""

    __slots__ = ("held",)

    def __init__(self, held: str) -> None:
        self.held = held
        super().__init__()

    def __str__(self) -> str:
        return f"slotted failed: {self.held}"


class UnknownToken(Exception):
    """``token`` naming a word of a model's vocabulary, not a credential."""

    def __init__(self, token: str) -> None:
        self.token = token
        super().__init__(f"token {token!r} is not in the model's vocabulary")


def _raised(tmp_path: Path, error: BaseException) -> tuple[BaseException, str]:
    def agent(task: str, ctx: Any) -> str:
        raise error

    async def cell() -> BaseException:
        handle = noesis_nb.start("use the model", using=agent, runs_dir=tmp_path)
        await handle
        try:
            handle.result()
        except type(error) as caught:
            return caught
        raise AssertionError("not raised")

    caught = asyncio.run(cell())
    return caught, "".join(traceback.format_exception(caught))


def test_a_slotted_exception_whose_message_shows_a_secret_is_redacted(tmp_path: Path) -> None:
    shape = SHAPES[0]
    caught, printed = _raised(tmp_path, SlottedError(shape.text))
    assert "slotted failed: " in printed and isinstance(caught, SlottedError)
    assert leaks([shape], [("printed", printed.encode()), ("repr", repr(caught).encode())]) == []


@pytest.mark.parametrize("word", ["function", "the", "Basic"])
def test_a_word_under_a_secret_looking_attribute_name_is_neither_redacted_nor_learned(tmp_path: Path, word: str) -> None:
    """``self.token = "function"`` is a vocabulary entry: redacted and learned, every "function" the run writes
    afterwards (its result, its summary) would read [REDACTED]."""
    caught, printed = _raised(tmp_path, UnknownToken(word))
    assert getattr(caught, "token", None) == word and f"token {word!r}" in printed
    (run,) = [p for p in tmp_path.iterdir() if p.name.startswith("ep_")]
    assert "[REDACTED]" not in (run / "events.jsonl").read_text()


_TABLE: dict[str, str] = {}


class TabledError(Exception):
    """A message looked up in a module's table: no part of the instance holds it, and pickle can import it."""

    def __str__(self) -> str:
        return f"lookup failed: {_TABLE.get(self.args[0], '?')}"


class TabledRejection(ToolRejected):
    """A rejection (its own ``__init__``) whose message is looked up in a module's table."""

    def __str__(self) -> str:
        return f"rejected: {_TABLE.get(self.tool, '?')}"


def _printed(error: BaseException) -> list[tuple[str, bytes]]:
    return [
        ("str", str(error).encode()),
        ("repr", repr(error).encode()),
        ("traceback", "".join(traceback.format_exception(error)).encode()),
    ]


@pytest.mark.parametrize("how", ["copy", "deepcopy"])
def test_a_copy_of_an_error_shown_redacted_stays_redacted(tmp_path: Path, how: str) -> None:
    shape = SHAPES[0]
    error_class = _closure_error(shape.text)
    caught, _ = _raised(tmp_path, error_class("boom"))
    copied = getattr(copy, how)(caught)
    assert isinstance(copied, error_class) and copied.args == ("boom",)
    assert leaks([shape], _printed(copied)) == []


def test_an_unpickled_error_shown_redacted_stays_redacted_and_is_caught_by_its_class(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shape = SHAPES[0]
    monkeypatch.setitem(_TABLE, "k", shape.text)
    caught, _ = _raised(tmp_path, TabledError("k"))
    try:
        raise pickle.loads(pickle.dumps(caught))
    except TabledError as unpickled:
        assert type(unpickled).__name__ == "TabledError" and unpickled.args == ("k",)
        assert leaks([shape], _printed(unpickled)) == []


def test_an_error_of_its_own_arguments_shown_redacted_pickles_and_stays_redacted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shape = SHAPES[0]
    monkeypatch.setitem(_TABLE, "fs.list", shape.text)
    caught, _ = _raised(tmp_path, TabledRejection("fs.list", "no", draft_id="d1"))
    for again in (pickle.loads(pickle.dumps(caught)), copy.deepcopy(caught)):
        assert isinstance(again, TabledRejection) and (again.tool, again.draft_id) == ("fs.list", "d1")
        assert leaks([shape], _printed(again)) == []


def test_an_error_class_shown_redacted_is_freed_once_unused() -> None:
    from noesis_nb.secrets.exceptions import redact_exception

    error_class = _closure_error(SHAPES[0].text)
    error = redact_exception(error_class("boom"))
    assert type(error) is not error_class and isinstance(error, error_class)  # its message is shown redacted
    gone = weakref.ref(error_class)
    del error_class, error
    gc.collect()
    assert gone() is None


_KEY = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd"


def _refusals(runs_dir: Path) -> list[tuple[str, Any]]:
    from noesis_nb.integrations.agui import agui_rows
    from noesis_nb.integrations.noetic import import_noetic
    from noesis_nb.integrations.taisce import import_taisce

    event = {"api_key": _KEY, "kind": "x"}
    return [
        ("a Noetic log that is one event", lambda: import_noetic(event, task="t", runs_dir=runs_dir)),
        ("a Noetic line that is no JSON", lambda: import_noetic([f'{{"key": "{_KEY}"'], task="t", runs_dir=runs_dir)),
        ("a Noetic line that is no event", lambda: import_noetic([event], task="t", runs_dir=runs_dir)),
        ("a Taisce transcript as text", lambda: import_taisce(f'{{"content": "key {_KEY}"}}', task="t", runs_dir=runs_dir)),
        ("a Taisce transcript that is one dict", lambda: import_taisce(event, task="t", runs_dir=runs_dir)),
        ("an AG-UI item that is no event", lambda: list(agui_rows([event]))),
    ]


@pytest.mark.parametrize("case", range(6))
def test_a_recording_refused_for_its_shape_does_not_echo_a_secret_it_holds(tmp_path: Path, case: int) -> None:
    what, refuse = _refusals(tmp_path)[case]
    with pytest.raises(Exception) as info:
        refuse()
    message = str(info.value)
    assert _KEY[8:20] not in message and _KEY[-12:] not in message, (what, message)
    assert "[REDACTED]" in message, (what, message)  # the shape is still shown, the key's place marked
