"""Whether a run is sealed: the one answer every reader and writer of a run asks for.

A seal ends with two documents, ``final.json`` then ``manifest.json``, each a regular file noesis_nb
writes atomically. Only such files count: a folder, a FIFO, a socket or a symbolic link (dangling or
not) in either place is no seal, and whoever asks gets the same answer from ``seal_state``. Such a
run was crafted or damaged; whatever would write into it (resume, a decision, recovery, a seal)
refuses it whole with ``SealDocumentError``, before writing anything, because it cannot tell whether
the run ended.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from ..errors import RunLifecycleError
from .runfiles import what_is

__all__ = ["SEAL_FILES", "SealDocumentError", "SealState", "seal_state", "refuse_odd_seal"]

SEAL_FILES = ("final.json", "manifest.json")


class SealDocumentError(RunLifecycleError):
    """A run's ``final.json`` or ``manifest.json`` is there but is not a regular file: nothing writes into the run."""

    def __init__(self, path: Path, what: str):
        self.path = Path(path)
        super().__init__(
            f"{self.path} is {what}, not the run's {self.path.name} (a regular file noesis_nb writes when it seals a "
            f"run), so whether run {self.path.parent.name} ended cannot be told and nothing is written into it. "
            f"Remove {self.path} (it is not a file noesis_nb wrote) or restore the run from a copy, then try again"
        )


@dataclass(frozen=True)
class SealState:
    """What a run's seal documents are now: ``final``/``manifest`` each a regular file of the run;
    ``odd``: the first of them that is there in another shape, and what it is (None when none is)."""

    final: bool
    manifest: bool
    odd: tuple[Path, str] | None = None

    @property
    def sealed(self) -> bool:
        """The seal is complete: ``manifest.json`` is written last (older Noēsis runs have no ``final.json``)."""
        return self.manifest

    @property
    def closed(self) -> bool:
        """Nothing may be added to the run: sealed, sealing (``final.json`` written) or an odd seal document."""
        return self.final or self.manifest or self.odd is not None

    def refuse_odd(self) -> None:
        """Raise ``SealDocumentError`` when a seal document is there in a shape noesis_nb never writes."""
        if self.odd is not None:
            raise SealDocumentError(*self.odd)


def seal_state(run_dir: str | os.PathLike[str]) -> SealState:
    """Look at both seal documents once, never following a link (``lstat``)."""
    found: dict[str, bool] = {}
    odd = None
    for name in SEAL_FILES:
        path = Path(run_dir) / name
        try:
            mode = os.lstat(path).st_mode
        except (FileNotFoundError, NotADirectoryError):  # (NotADirectory: the run itself is no folder, so no seal)
            found[name] = False
            continue
        found[name] = stat.S_ISREG(mode)
        if not found[name] and odd is None:
            odd = (path, "a symbolic link" if stat.S_ISLNK(mode) else what_is(mode))
    return SealState(found["final.json"], found["manifest.json"], odd)


def refuse_odd_seal(run_dir: str | os.PathLike[str]) -> SealState:
    """``seal_state`` of a run about to be written: ``SealDocumentError`` when a seal document is odd."""
    state = seal_state(run_dir)
    state.refuse_odd()
    return state
