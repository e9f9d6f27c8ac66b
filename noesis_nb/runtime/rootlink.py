"""Saying where new runs go when the default runs root is reached through a symbolic link.

``./.noesis`` or ``./.noesis/episodes`` may be a link: a user's, to a bigger disk, or one that came
with a repository checkout and sends runs (tasks, tool output, secrets redacted or not) into another
project. Links are followed, so linked roots keep working; but the first run a process creates
under a linked default root warns once, naming the real folder, so the redirection is never silent.
A root the user chose (``runs_dir=``, ``config.set``, ``$NOESIS_RUNS_DIR``) does not warn: its
target is what they asked for.
"""

from __future__ import annotations

import os
import threading
import warnings
from pathlib import Path

from .. import config
from ..secrets.quoted import quoted
from ..store.roots import linked_to

__all__ = ["RunsDirLinked", "warn_if_default_root_linked"]

_warned: set[str] = set()
_lock = threading.Lock()


class RunsDirLinked(UserWarning):
    """The default runs root leads through a symbolic link to another folder, where new runs are written."""


def warn_if_default_root_linked(explicit: str | os.PathLike[str] | None) -> None:
    """Warn (once per process and root) when new runs go to the default root and it is a link elsewhere."""
    root = config.runs_dir(explicit)
    if explicit is not None or root != Path(".noesis") / "episodes":
        return
    target = linked_to(root)
    if target is None:
        return
    with _lock:
        if target in _warned:
            return
        _warned.add(target)
    warnings.warn(
        f"new runs go to {quoted(target)}: {quoted(str(root))} leads there through a symbolic link. If that is where you keep "
        "runs, set NOESIS_RUNS_DIR (or noesis_nb.config.set(runs_dir=...)) to it and this warning goes; if the link "
        "came with files you do not trust (a repository checkout), remove the link (what it leads to stays)",
        RunsDirLinked,
        stacklevel=4,
    )
