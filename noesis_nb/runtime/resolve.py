"""``using=`` resolution and adapter invocation, as Noēsis' loader and adapter actuator do it.

Resolution: executor-like objects as is; zero-argument callables are factories; ``"pkg.mod:attr"``;
a file or package path (factory names ``make, build, create, factory, make_graph, build_graph``,
then objects ``graph, flow, app``); short names via ``flows.<name>`` then ``noesis_user.<name>``.
Invocation: ``invoke`` → ``run`` → ``__call__``, after ``__noesis_input_mapper__``.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import inspect
import sys
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import UsingResolutionError
from ..secrets.quoted import keys_hidden, quoted, quoted_text

__all__ = ["Adapter", "minimal_adapter", "resolve_using", "using_label", "did_you_mean"]

_FACTORY_NAMES = ("make", "build", "create", "factory", "make_graph", "build_graph")
_OBJECT_NAMES = ("graph", "flow", "app")


@dataclass
class Adapter:
    """A resolved ``using=`` target: what to call, how, and under which label."""

    target: Any
    label: str
    call: Callable[..., Any]
    wants_context: str | None
    is_async: bool
    input_mapper: Callable[[str], Any] | None

    def prepare_input(self, task: str) -> Any:
        return self.input_mapper(task) if self.input_mapper else task

    def invoke(self, payload: Any, ctx: Any) -> Any:
        """Call the adapter with its input, and the context when its signature asks for one."""
        if self.wants_context == "keyword":
            return self.call(payload, ctx=ctx)
        if self.wants_context == "positional":
            return self.call(payload, ctx)
        return self.call(payload)


def using_label(using: Any) -> str:
    """The display label Noēsis stores: a string as is, a callable's name, else the class name."""
    if isinstance(using, str):
        return using
    func = using.func if isinstance(using, functools.partial) else using
    if inspect.isfunction(func) or inspect.ismethod(func) or inspect.isbuiltin(func):
        return str(getattr(func, "__name__", None) or type(func).__name__)
    return type(using).__name__


def _is_executor_like(obj: Any) -> bool:
    if inspect.isclass(obj):
        return False
    if hasattr(obj, "execute") or hasattr(obj, "invoke"):
        return True
    return callable(obj) and (_required_params(obj) >= 1 or _takes_task_otherwise(obj))


def _takes_task_otherwise(fn: Any) -> bool:
    """A callable with no required positional parameter that still is an adapter, never a zero-argument factory:
    one taking ``*args`` (a decorator's wrapper without ``functools.wraps``) or needing a keyword (``def agent(*, task)``,
    named by the signature check rather than called with nothing)."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(
        p.kind == p.VAR_POSITIONAL or (p.kind == p.KEYWORD_ONLY and p.default is p.empty and p.name != "ctx") for p in params
    )


def _required_params(fn: Any) -> int:
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return 1
    return sum(
        1 for p in sig.parameters.values() if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    )


def _from_module(module: Any, where: str) -> Any:
    for name in _FACTORY_NAMES:
        factory = getattr(module, name, None)
        if callable(factory):
            return factory() if _required_params(factory) == 0 else factory
    for name in _OBJECT_NAMES:
        if hasattr(module, name):
            return getattr(module, name)
    raise UsingResolutionError(
        f"{where} defines none of the factories {_FACTORY_NAMES} nor the objects {_OBJECT_NAMES}; "
        f"add e.g. `def make(): return my_agent` or pass using='{where}:<attr>'"
    )


@contextmanager
def _importing(using: str, what: str, module: str | None = None) -> Iterator[None]:
    """The user's module raised while it was imported: one error naming it, the exception and the line of the user's
    code it rose at. An ImportError is the user's too (an import in their file is missing), unless it says ``module``
    itself is not there: that one goes on to the caller (a wrong module path, or the next short-name prefix)."""
    try:
        yield
    except UsingResolutionError:
        raise
    except ImportError as exc:
        if module is not None and _is_the_module(exc, module):
            raise
        missing = exc.name if isinstance(exc, ModuleNotFoundError) and exc.name else None
        if missing is None:
            said, fix = f"ImportError: {quoted_text(str(exc), 200)}", "fix that import"
        else:
            said = f"module {quoted(missing)} is not installed"
            fix = f"install it (pip install {quoted(missing.split('.')[0])}) or fix the import"
        raise UsingResolutionError(
            f"using={quoted(using)}: importing {what} stopped{_raised_at(exc)}: {said}; {fix}, then run the cell again"
        ) from exc
    except Exception as exc:
        text = exc.msg if isinstance(exc, SyntaxError) and exc.msg else str(exc)  # its place is said once, below
        raise UsingResolutionError(
            f"using={quoted(using)}: importing {what} raised {type(exc).__name__}: {quoted_text(text, 200)}"
            f"{_raised_at(exc)}; fix the module and run the cell again"
        ) from exc


def _is_the_module(exc: ImportError, module: str) -> bool:
    """Whether ``exc`` says ``module`` (or a package on its path) is not there, rather than something it imports."""
    name = exc.name if isinstance(exc, ModuleNotFoundError) else None
    return name is not None and (module == name or module.startswith(name + "."))


def _raised_at(exc: BaseException) -> str:
    """`` at file.py:3`` in the user's code: a SyntaxError's own place, else the last frame outside importlib."""
    if isinstance(exc, SyntaxError) and exc.filename and exc.lineno:
        return f" at {Path(exc.filename).name}:{exc.lineno}"
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if not f.filename.startswith("<frozen ")]
    return f" at {Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else ""


def _load_path(path: Path) -> Any:
    file = path / "__init__.py" if path.is_dir() else path
    if path.is_dir() and not file.is_file():  # a plain folder (the working folder, when using='' or '.') is no package
        raise UsingResolutionError(
            f"using={quoted(str(path))} is a folder with no __init__.py, so there is no package to import; pass a .py "
            f"file in it (using={quoted(str(path / 'agent.py'))}), a package directory, or a function"
        )
    name = f"_noesis_using_{abs(hash(str(file.resolve())))}"
    spec = importlib.util.spec_from_file_location(name, file)
    if spec is None or spec.loader is None:
        raise UsingResolutionError(f"cannot import {quoted(str(path))} as Python; pass a .py file or a package directory")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        with _importing(str(path), repr(str(path))):
            spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)  # half-imported: the next try runs the file afresh
        raise
    return module


def _resolve_string(using: str) -> Any:
    _refuse_text(using)
    if ":" in using and not _exists(Path(using)):
        mod_name, _, attr = using.partition(":")
        try:
            with _importing(using, f"module {quoted(mod_name)}", mod_name):
                module = importlib.import_module(mod_name)
        except ImportError as exc:
            raise UsingResolutionError(
                f"using={quoted(using)}: cannot import module {quoted(mod_name)} ({keys_hidden(str(exc))}); check the "
                f"module path and sys.path"
            ) from exc
        try:
            obj = getattr(module, attr) if "." not in attr else functools.reduce(getattr, attr.split("."), module)
        except AttributeError as exc:
            raise UsingResolutionError(
                f"using={quoted(using)}: module {quoted(mod_name)} has no attribute {quoted(attr)}"
            ) from exc
        if _is_executor_like(obj):
            return obj
        return obj() if callable(obj) and not inspect.isclass(obj) and _required_params(obj) == 0 else obj
    path = Path(using)
    if _exists(path):
        return _from_module(_load_path(path.expanduser()), using)
    tried = []
    for prefix in ("flows", "noesis_user"):
        name = f"{prefix}.{using}"
        tried.append(name)
        try:
            with _importing(using, f"module {quoted(name)}", name):
                module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name and (name.startswith(exc.name) or exc.name == name):
                continue
            raise
        return _from_module(module, name)
    guess = did_you_mean(using, _notebook_names()).removeprefix("; ")  # the likeliest fix first, then the rules
    raise UsingResolutionError(
        f"using={quoted(using)} names no agent{' — ' + guess if guess else '.'} It is not a file, a 'module:attr' path, "
        f"nor an importable short name ({keys_hidden(', '.join(tried))}); pass a function (or an object with invoke/run), "
        "'pkg.mod:factory' or a file path"
    )


def _notebook_names() -> dict[str, Any]:
    """The interactive namespace (a notebook's, in a kernel): where a misspelled agent name most likely points."""
    main = sys.modules.get("__main__")
    return dict(vars(main)) if main is not None else {}


def did_you_mean(name: str, namespace: dict[str, Any]) -> str:
    """``"; did you mean janitor (defined in this notebook)?"`` for callables named close to ``name``, else ``""``;
    ``"; 'janitor' is a string; pass the function: using=janitor."`` when the notebook's function has exactly that name
    (asking whether one meant the name one typed helps nobody)."""
    import difflib

    names = [k for k, v in namespace.items() if not k.startswith("_") and callable(v) and not inspect.isclass(v)]
    if name in names:
        return f"; {quoted(name, 80)} is a string; pass the function: using={name}."
    spelt = {n.lower(): n for n in reversed(names)}  # My_Agent for my_agent: difflib alone compares case as it is
    close = [spelt[c] for c in difflib.get_close_matches(name.lower(), list(spelt), n=3, cutoff=0.6)]
    if not close:
        return ""
    return f"; did you mean {' or '.join(close)} (defined in this notebook)?"


def minimal_adapter() -> Adapter:
    """The adapter ``ns.run`` uses (label ``core.minimal``): completes the plan without external calls."""

    def minimal(task: str) -> str:
        return "Completed minimal step."

    return Adapter(target=minimal, label="core.minimal", call=minimal, wants_context=None, is_async=False, input_mapper=None)


def refuse_non_adapter(using: Any) -> None:
    """Raise when ``using`` is given but could be no adapter whatever run it is for (``using=5``, ``using=''``,
    ``using='pkg.mod:'``, a class, a module): checked before any run is looked up, without importing, calling or
    reading anything (what a name resolves to is found later, when the run needs its adapter)."""
    if using is None or isinstance(using, Adapter):
        return
    if isinstance(using, str):
        _refuse_text(using)
        return
    _refuse_kind(using)
    if callable(using) or any(callable(getattr(using, name, None)) for name in ("invoke", "run")):
        return
    raise UsingResolutionError(
        f"using={quoted(using, 60)} (type {type(using).__name__}) is no adapter; pass a function such as "
        "def agent(task, ctx), an object with invoke/run, or 'pkg.mod:attr'"
    )


def _refuse_kind(using: Any) -> None:
    """Raise for a value of a kind that is never an adapter however it is resolved: a class, a coroutine, a module,
    a collection of adapters."""
    if inspect.isclass(using):
        raise UsingResolutionError(
            f"using={using.__name__} is a class; pass an instance ({using.__name__}(...)) "
            "or a zero-argument factory that returns one"
        )
    if inspect.iscoroutine(using):
        using.close()  # never awaited: closed here so Python does not warn about it later
        raise UsingResolutionError(
            f"using= got a coroutine ({using.__qualname__}(...) called, not awaited); pass the function itself: "
            f"using={using.__qualname__}"
        )
    if inspect.ismodule(using):
        raise UsingResolutionError(
            f"using={using.__name__} is a module; pass one of its functions, using={using.__name__}.<function> "
            f"(or the string '{using.__name__}:<function>')"
        )
    if isinstance(using, (list, tuple, set, dict)):
        raise UsingResolutionError(
            f"using= got a {type(using).__name__}: an episode runs one adapter; pass one, or run several over "
            "the same tasks with noesis_nb.batch(tasks, using=[...])"
        )


#: the forms a ``using=`` string may take, said by every refusal of one
_FORMS = "pass 'pkg.mod:attr' (a module path, a colon, an attribute), a .py file or package path, or a short name"


def _refuse_text(using: str) -> None:
    """Raise for a string that names no agent on its face: blank, holding a NUL or a line break (no file or module
    name does), or with a colon but neither an existing path nor ``module:attribute`` made of Python names."""
    if not using.strip():  # '' is Path('.'): it would be read as the working folder
        raise UsingResolutionError(
            f"using={quoted(using)} is blank and names no agent; pass a function such as def agent(task, ctx), "
            "'pkg.mod:attr' or a file path"
        )
    if any(c in using for c in "\x00\n\r"):
        raise UsingResolutionError(
            f"using={quoted(using, 80)} holds a NUL or a line break, which no file or module name has; {_FORMS}"
        )
    if _exists(Path(using)):
        return
    if ":" in using:
        module, _, attr = using.partition(":")
        bad = [part for part in (*module.split("."), *attr.split(".")) if not part.isidentifier()]
        if bad:
            why = "nothing" if not bad[0] else quoted(bad[0], 40)
            raise UsingResolutionError(
                f"using={quoted(using, 80)} is no file here, and not a 'module:attribute' path: {why} where a Python "
                f"name belongs; {_FORMS}"
            )
    elif not all(part.isidentifier() for part in using.split(".")):  # a short name is imported as flows.<name>
        guess = did_you_mean(using, _notebook_names()).removeprefix("; ")
        raise UsingResolutionError(
            f"using={quoted(using, 80)} names no agent{' — ' + guess if guess else ''}: it is no file here, and not "
            f"a module name; {_FORMS}"
        )


def _exists(path: Path) -> bool:
    """Whether ``path`` exists; False for a string no file can have (too long, ``~nobody/…``, a NUL) rather than
    the OS error it raises."""
    try:
        return path.expanduser().exists()
    except (OSError, ValueError, RuntimeError):
        return False


def resolve_using(using: Any) -> Adapter:
    """Resolve ``using=`` to an :class:`Adapter`, raising one clear error when it cannot."""
    if isinstance(using, Adapter):
        return using
    if using is None:
        raise UsingResolutionError("using= is required: pass a callable, an object with invoke/run, or 'pkg.mod:factory'")
    label = using_label(using)
    target = using
    if isinstance(using, str):
        target = _resolve_string(using)
    else:
        _refuse_kind(using)
    if not isinstance(using, str) and not _is_executor_like(using) and callable(using):
        target = using()  # zero-argument factory; the label stays the factory's name
        if not callable(target) and not hasattr(target, "invoke") and not hasattr(target, "run"):
            raise UsingResolutionError(
                f"using={label} takes no arguments, so it was called as a factory, and it returned {quoted(target, 60)}, "
                "which is no adapter; an adapter takes the task: def agent(task) or def agent(task, ctx)"
            )
    if inspect.isclass(target):
        raise UsingResolutionError(
            f"using={quoted(label)} resolved to the class {target.__name__}; return an instance from the factory instead"
        )
    call = None
    for name in ("invoke", "run"):
        method = getattr(target, name, None)
        if callable(method):
            call = method
            break
    if call is None and callable(target):
        call = target
    if call is None:
        if target is using and not hasattr(target, "execute"):
            raise UsingResolutionError(
                f"using={quoted(using, 60)} (type {type(using).__name__}) is no adapter; pass a function such as "
                "def agent(task, ctx), an object with invoke/run, or 'pkg.mod:attr'"
            )
        hint = " (execute()-only adapters are not supported by solve)" if hasattr(target, "execute") else ""
        raise UsingResolutionError(
            f"using={quoted(label)} resolved to {type(target).__name__}, which has no invoke, run or __call__{hint}"
        )
    _check_signature(call, label)
    mapper = getattr(target, "__noesis_input_mapper__", None)
    return Adapter(
        target=target,
        label=label,
        call=call,
        wants_context=_wants_context(call),
        is_async=inspect.iscoroutinefunction(call) or (callable(call) and inspect.iscoroutinefunction(type(call).__call__)),
        input_mapper=mapper if callable(mapper) else None,
    )


def _check_signature(fn: Any, label: str) -> None:
    """An adapter is called with the task, and the context as a second argument or keyword ``ctx``: a signature
    that needs anything else would fail on every call, so it is named now."""
    try:
        params = list(inspect.signature(_wrapped_by(fn)).parameters.values())
    except (TypeError, ValueError):
        return
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    takes_more = any(p.kind == p.VAR_POSITIONAL for p in params)
    required = [p.name for p in positional if p.default is p.empty]
    keywords = [p.name for p in params if p.kind == p.KEYWORD_ONLY and p.default is p.empty and p.name != "ctx"]
    fix = "an adapter is called as agent(task) or agent(task, ctx) (or with the keyword ctx=)"
    if keywords:
        raise UsingResolutionError(
            f"using={quoted(label)} requires the keyword argument(s) {', '.join(keywords)}, which are never passed; {fix}"
        )
    if not positional and not takes_more:
        raise UsingResolutionError(f"using={quoted(label)} takes no task argument; {fix}")
    if len(required) > 2:
        raise UsingResolutionError(
            f"using={quoted(label)} requires {len(required)} arguments ({', '.join(required)}); {fix}: "
            "give the others defaults, or bind them with functools.partial"
        )


def _wrapped_by(fn: Any) -> Any:
    """What a decorator's bare ``wrapper(*args, **kwargs)`` (made without ``functools.wraps``) passes its arguments
    to, when it closes over exactly one function: its signature says what the adapter takes; else ``fn``."""
    try:
        kinds = {p.kind for p in inspect.signature(fn).parameters.values()}
    except (TypeError, ValueError):
        return fn
    if not kinds or not kinds <= {inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD}:
        return fn
    cells = getattr(fn, "__closure__", None) or ()
    inner = []
    for cell in cells:
        try:
            value = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        if inspect.isfunction(value) or inspect.ismethod(value):
            inner.append(value)
    return inner[0] if len(inner) == 1 else fn


def _wants_context(fn: Any) -> str | None:
    """``"keyword"`` for a ``ctx`` keyword-only parameter, ``"positional"`` for a second positional one."""
    try:
        params = list(inspect.signature(_wrapped_by(fn)).parameters.values())
    except (TypeError, ValueError):
        return None
    if any(p.name == "ctx" and p.kind == p.KEYWORD_ONLY for p in params):
        return "keyword"
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return "positional" if len(positional) >= 2 else None
