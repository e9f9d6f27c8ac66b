"""Per-run problems found while loading: collected (``strict=False``) or raised (``strict=True``).

A problem's reason may quote a value from a run (``duration_sec is '…'``): every problem a frame says, in
``df.attrs["errors"]`` or raised, goes through one screen (``screened``) with what the load's runs reveal as secrets
(``Problems.hide``) and what the process learned, so it never shows a value the frame's rows hide.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .._keywords import check_yes_no
from ..errors import EventLogCorruption, EventLogIntegrityError, NoesisNbError, quoted_path
from ..secrets.guard import known_shown
from ..secrets.revealed import scrubbed

__all__ = ["LoadProblem", "RunLoadError", "Problems", "screened", "CUT_IN_SEALED_RUN", "NO_EVENTS_IN_SEALED_RUN", "SEAL_CHANGE"]

# a sealed run's events.jsonl that ends mid-line: an event lost (a copy cut short), not one still being written
CUT_IN_SEALED_RUN = "the last line is cut off (no newline) although the run is sealed; it is not read"
# a sealed run (its final.json there) whose log is gone: a copy that left it behind, not a run that wrote nothing
NO_EVENTS_IN_SEALED_RUN = (
    "missing although the run is sealed (final.json is there); its events, model calls and tool events are not known."
    " Copy the run's events.jsonl back"
)


#: ``LoadProblem.kind`` of a file found at another size than its run's manifest.json lists (``sealsizes``)
SEAL_CHANGE = "seal_change"


@dataclass(frozen=True)
class LoadProblem:
    """What went wrong, where: ``path`` of the file, 1-based ``line`` (None for whole documents), ``reason``.

    ``kind`` marks a problem code acts on (``SEAL_CHANGE``), set where it is made; None for the rest. It is no
    part of what a problem says (equal problems with other kinds are one fact) nor of ``as_dict``."""

    path: str
    line: int | None
    reason: str
    kind: str | None = field(default=None, compare=False, kw_only=True)

    def as_dict(self) -> dict[str, object]:
        return {"path": self.path, "line": self.line, "reason": self.reason}


def screened(problem: LoadProblem, values: frozenset[str]) -> LoadProblem:
    """``problem`` with ``values`` and the values the process learned redacted in its reason (the path names the
    file, as the frames name it); the same object when it quotes none."""
    hidden = values.union(known_shown()) if values else frozenset(known_shown())
    if not hidden:
        return problem
    reason = scrubbed(problem.reason, hidden)
    return problem if reason == problem.reason else LoadProblem(problem.path, problem.line, reason, kind=problem.kind)


class RunLoadError(NoesisNbError, ValueError):
    """A run file could not be read (``strict=True``). ``problem`` says which file and line."""

    def __init__(self, problem: LoadProblem):
        self.problem = problem
        path = quoted_path(problem.path)  # a run root or folder name may hold a key: the message is shown
        where = path if problem.line is None else f"{path}, line {problem.line}"
        super().__init__(
            f"{where}: {problem.reason}. Pass strict=False to skip this run's bad parts and get them in df.attrs['errors']."
        )


class Problems:
    """The problems of one load. ``strict`` turns the first one into an exception naming path and line."""

    def __init__(self, strict: bool):
        self.strict = check_yes_no("strict", strict)
        self.items: list[LoadProblem] = []
        # one fact found by two readers of a run (its row, its calls), whatever class each made it with, is said once
        self._seen: set[tuple[str, int | None, str]] = set()
        self._later: list[LoadProblem] = []  # strict: raised once the load's own problems had their turn (``settle``)
        self.hidden: frozenset[str] = frozenset()  # what the load's runs reveal as secrets: no problem says it

    def hide(self, values: frozenset[str]) -> None:
        """Hide ``values`` (what a run of the load reveals) in every problem said, before and after."""
        if values and not values.issubset(self.hidden):
            self.hidden = self.hidden | values

    def _raise(self, problem: LoadProblem) -> None:
        raise RunLoadError(screened(problem, self.hidden))

    def _keep(self, problem: LoadProblem) -> None:
        said = (problem.path, problem.line, problem.reason)
        if said not in self._seen:
            self._seen.add(said)
            self.items.append(problem)

    def add(self, path: str, reason: str, line: int | None = None) -> None:
        problem = LoadProblem(str(path), line, reason)
        if self.strict:
            self._raise(problem)
        self._keep(problem)

    def add_corruptions(self, corruptions: list[EventLogCorruption]) -> None:
        for c in corruptions:
            if self.strict:  # pragma: no cover - parse_lines raises itself when strict
                raise EventLogIntegrityError(c)
            self._keep(LoadProblem(c.path, c.line_number, c.reason))

    def extend(self, problems: list[LoadProblem]) -> None:
        for p in problems:
            if self.strict:
                self._raise(p)
            self._keep(p)

    def extend_later(self, problems: list[LoadProblem]) -> None:
        """``extend``, but a strict load raises these only at ``settle``: a file changed since its run was sealed is
        said after the problem that change made in it (the line it broke names more than the file's new size)."""
        if self.strict:
            self._later.extend(problems)
            return
        for p in problems:
            self._keep(p)

    def settle(self) -> None:
        """Raise the first problem ``extend_later`` kept back (strict), if no other was raised before."""
        if self._later:
            first, self._later = self._later[0], []
            self._raise(first)

    def as_records(self) -> list[dict[str, object]]:
        """The problems said, each through ``screened`` with what the load's runs reveal."""
        self.settle()
        return [screened(p, self.hidden).as_dict() for p in self.items]
