"""The commands that reach a run from a new cell, in this kernel or after a restart (what a view tells a person
whose buttons can no longer act).

An id alone is found only under the roots a fresh kernel searches (``$NOESIS_RUNS_DIR``, ``./.noesis/episodes``,
``./runs``, ``./.noesis/runs``); ``ns.set(runs_dir=…)`` and ``--runs-dir`` are gone after a restart, so a run kept
anywhere else is named with its runs dir.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .._envvars import path_from_env
from .._safetext import magic_word, visible
from ..errors import InvalidIdError, InvalidOptionError
from ..ids import validate_id
from ..secrets import shown

__all__ = ["show_call", "magic_line", "inbox_line", "batch_call"]


def _target(episode_id: str, run_dir: Any) -> tuple[str, bool]:
    """What finds the run, and whether it is a path: its folder's name (the id a new kernel looks for, whatever id its
    files claim), or the folder itself when its name is no id (a run copied or renamed by hand, a hostile folder)."""
    if not run_dir:
        return str(episode_id), False
    name = Path(run_dir).name
    try:  # the very rule show() and the magics apply: a name they refuse (``-copy``, ``.x``) is named by its path
        validate_id(name)
    except InvalidIdError:
        return str(Path(run_dir).absolute()), True
    return name, False


def _runs_dir(run_dir: Any) -> str | None:
    """The runs dir to name for ``run_dir``, or None when a fresh kernel finds the run by its id alone."""
    if not run_dir:
        return None
    parent = Path(run_dir).parent
    start = _starting_dir()  # a fresh kernel starts there (the notebook's folder), whatever os.chdir did since
    fresh = [start / ".noesis" / "episodes", start / "runs", start / ".noesis" / "runs"]
    configured = _env_root()
    if configured:
        fresh.append(start / Path(configured).expanduser())
    try:
        if any(parent.resolve() == root.resolve() for root in fresh):
            return None
    except (OSError, ValueError):  # a path the system cannot resolve: named whole below
        pass
    return _folder(parent, start)


def _folder(folder: Path, start: Path) -> str:
    """``folder`` as a fresh kernel started in ``start`` finds it: relative when under it (as short as typed)."""
    try:
        where = folder.resolve()
        inside = os.path.relpath(where, start.resolve())
        return inside if not inside.startswith("..") else str(where)
    except (OSError, ValueError):  # a path the system cannot resolve (or on another drive): name it whole
        return str(folder.absolute())


def _env_root() -> str:
    """``$NOESIS_RUNS_DIR`` as a fresh kernel reads it (stripped; "" when it names no folder a kernel would use)."""
    try:
        return path_from_env("NOESIS_RUNS_DIR")
    except InvalidOptionError:  # a fresh kernel refuses it too: no root found through it
        return ""


def _starting_dir() -> Path:
    """The folder this kernel started in (IPython's ``starting_dir``), else the current one."""
    try:
        from IPython import get_ipython

        started = getattr(get_ipython(), "starting_dir", None)
    except Exception:  # IPython missing or broken: the current folder
        started = None
    return Path(started) if isinstance(started, str) and started else Path.cwd()


def show_call(episode_id: str, run_dir: Any) -> str:
    """``noesis_nb.show('ep_…')``, with ``runs_dir=`` when an id alone would not find it (every hidden character shown)."""
    target, is_path = _target(episode_id, run_dir)
    root = None if is_path else _runs_dir(run_dir)
    # (redacted: a folder made elsewhere may hold a credential in its name, and a view's text is saved with the notebook)
    return shown(visible(f"noesis_nb.show({target!r}" + (f", runs_dir={root!r})" if root else ")"), exact=True))


def magic_line(command: str, episode_id: str, run_dir: Any) -> str:
    """``%noesis <command> ep_…``, with ``--runs-dir`` when an id alone would not find it; ``$`` and braces in the
    folder's name doubled, as the magic reads ``$name`` and ``{expr}`` (``runs_{1}`` would be read as ``runs_1``);
    every hidden character shown."""
    target, is_path = _target(episode_id, run_dir)
    root = None if is_path else _runs_dir(run_dir)
    line = f"%noesis {command} {magic_word(target)}" + (f" --runs-dir {magic_word(root)}" if root else "")
    return shown(visible(line, exact=True))


def inbox_line(root: Any) -> str:
    """``%noesis inbox --runs-dir …`` for the runs under ``root`` (always named: a fresh kernel's default root may be
    another), with the folder's ``$`` and braces doubled and every hidden character shown, as ``magic_line``."""
    return shown(visible(f"%noesis inbox --runs-dir {magic_word(_folder(Path(root), _starting_dir()))}", exact=True))


def batch_call(batch_id: str, root: Any, *, rerun_failed: bool = False) -> str:
    """``noesis_nb.batch(tasks, using=…, batch_id='…', root='…')``: the call that continues a recorded batch from a new
    cell (its tasks and adapters are the user's to pass again; the root always named, as ``inbox_line``)."""
    folder = _folder(Path(root), _starting_dir())
    rerun = ", rerun_failed=True" if rerun_failed else ""
    return shown(visible(f"noesis_nb.batch(tasks, using=…, batch_id={str(batch_id)!r}, root={folder!r}{rerun})", exact=True))
