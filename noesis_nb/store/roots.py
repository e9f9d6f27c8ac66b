"""Finding runs: run roots, one run's directory from an id or path, and listing runs."""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator
from pathlib import Path

from .. import config
from .._safetext import frame_given
from ..errors import InvalidIdError, RunNotFoundError, RunsDirError
from ..ids import ascii_slips, holds_credential, validate_id
from ..secrets.hiddenparts import holds_hidden
from ..secrets.names import REDACTED_VALUE
from ..secrets.quoted import quoted
from .artifacts import read_json
from .runfiles import what_is
from .scan import MARKERS, scan_run_dirs_with_stats
from .shownnames import found_shown

__all__ = [
    "candidate_roots",
    "check_root",
    "find_run_dir",
    "iter_run_dirs",
    "is_run_dir",
    "linked_to",
    "refuse_run_as_root",
]


def is_run_dir(path: Path) -> bool:
    """True when ``path`` is a directory holding one of the run markers (never raises on odd paths)."""
    try:
        return path.is_dir() and any((path / m).is_file() for m in MARKERS)
    except OSError:  # a name too long for the file system, a permission problem…
        return False


def _a_run_of_its_own(path: Path) -> bool:
    """Whether ``path``, which :func:`is_run_dir` accepts, is surely a run's own folder: it holds ``events.jsonl``,
    or a ``state.json`` or ``summary.json`` naming an episode (else it is a user's folder that merely holds such a
    file: still listed as a run by every reader, so no runs may go inside it either)."""
    try:
        if (path / "events.jsonl").is_file():
            return True
    except OSError:
        return False
    state = read_json(path / "state.json", within=path) or {}
    episode = state.get("episode")
    if isinstance(episode, dict) and isinstance(episode.get("id"), str):
        return True
    summary = read_json(path / "summary.json", within=path) or {}
    return isinstance(summary.get("episode_id"), str)


def refuse_run_as_root(runs_dir: Path) -> None:
    """Raise ``RunsDirError`` when ``runs_dir`` is what every reader lists as one run (:func:`is_run_dir`), or lies
    inside a run's own folder: a new run (or a batch record) written there would be listed nowhere, and would change
    that run after it was sealed. Says whether it is a run, inside one, or a folder holding a run's file. Also when a
    folder it would make for ``runs_dir`` holds a credential in its name."""
    _refuse_credential_in_new_folders(runs_dir)
    _refuse_inside_a_run(runs_dir)
    if not is_run_dir(runs_dir):
        return
    if _a_run_of_its_own(runs_dir):
        raise RunsDirError(
            f"runs_dir {quoted(str(runs_dir))} is a run directory (run {quoted(runs_dir.name)}), not the folder that holds runs; "
            f"pass its parent, runs_dir={quoted(str(runs_dir.parent))}; nothing was written"
        )
    marker = next((m for m in MARKERS if (runs_dir / m).is_file()), None)
    if marker is None:  # removed since, or a folder of that name: nothing a reader would take for a run's file
        return
    raise RunsDirError(
        f"runs_dir {quoted(str(runs_dir))} holds a {marker}, so every listing takes the folder for one run and runs "
        f"written inside it would be listed nowhere; pass a folder of their own, e.g. runs_dir={quoted(str(runs_dir / 'runs'))}, "
        f"or move {marker} out; nothing was written"
    )


def _refuse_credential_in_new_folders(runs_dir: Path) -> None:
    """Raise ``RunsDirError`` when a folder not there yet, which writing runs under ``runs_dir`` would make, holds a
    credential of a known format in its name (``runs-ghp_…``): it would stand in clear on disk, in every path a view
    or a message names, while the run's files store it redacted. A folder already there is the user's own."""
    path = Path(os.path.abspath(runs_dir))
    while path != path.parent and not os.path.lexists(path):
        if holds_credential(path.name):
            # the folder is named by where it would go, not by its name: a key holding a ``/`` is cut into folders,
            # and one cut alone (``wJalrXUtnFEMI``) is no key to the detectors, so quoting it would show it bare
            below = path.parent
            while below != below.parent and not os.path.lexists(below):
                below = below.parent
            raise RunsDirError(
                f"runs_dir {quoted(str(runs_dir))} would make a folder under {quoted(str(below))} whose name holds what "
                "looks like a credential (a token or a password); pass a folder named without it; nothing was written"
            )
        path = path.parent


def _refuse_inside_a_run(runs_dir: Path) -> None:
    """Raise ``RunsDirError`` when a folder above ``runs_dir`` (its real path: ``..`` and links followed) is a run's
    own folder. Only a sure run counts here: a stray ``state.json`` in a project folder leaves the runs below it
    harmless, while a run's folder is changed (a sealed one's manifest no longer lists all it holds)."""
    try:
        real = Path(os.path.realpath(runs_dir))
    except (OSError, ValueError):  # a path the system cannot resolve: the folder checks that follow say why
        return
    for above in real.parents:
        if is_run_dir(above) and _a_run_of_its_own(above):
            raise RunsDirError(
                f"runs_dir {quoted(str(runs_dir))} lies inside the run directory {quoted(str(above))} (run "
                f"{quoted(above.name)}); "
                "runs written there would change that run and be listed nowhere; pass a folder outside it, "
                f"e.g. runs_dir={quoted(str(above.parent))}; nothing was written"
            )


def check_root(
    root: str | os.PathLike[str],
    *,
    label: str = "runs root",
    wanted: str = "the folder that holds the run directories",
    reading: bool = False,
) -> Path:
    """``root`` as a Path; a root that exists but is no folder (a file, FIFO, device, a link leading nowhere)
    is one clear error, where listing it would say "no runs" (a root not made yet is fine: no runs yet).
    ``reading``: the root is only read, so its name is not refused (``config.check_path``)."""
    path = Path(config.check_path(root, "runs_dir", reading=reading))
    try:
        os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return path
    except OSError as exc:  # a name too long, a loop of links on the way, a parent this user may not search
        fix = "each name in a path is at most 255 bytes" if exc.errno == errno.ENAMETOOLONG else "check the path"
        said = f"{label} {quoted(str(path))} cannot be looked up ({exc.strerror})"
        raise RunNotFoundError(f"{said}: {fix}; pass {wanted}") from None
    if path.is_dir():
        if not os.access(path, os.R_OK | os.X_OK):  # listed, it would look empty: "no runs" where there may be many
            raise RunNotFoundError(
                f"{label} {quoted(str(path))} cannot be read by this user; ask its owner for read access "
                "(chmod a+rX on the folder), or pass one you can read"
            )
        return path
    try:
        what = f"{what_is(path.stat().st_mode)}, not a folder"
    except OSError:
        what = f"a symbolic link to {quoted(os.readlink(path))}, which leads nowhere (a missing path or a loop)"
    raise RunNotFoundError(f"{label} {quoted(str(path))} is {what}; pass {wanted}")


def linked_to(root: str | os.PathLike[str]) -> str | None:
    """The real folder ``root`` leads to when one of its own parts is a symbolic link (``.noesis -> /big/disk``);
    None when none is (or it cannot be told)."""
    part = Path()
    for name in Path(root).parts:
        part = part / name
        try:
            if part.is_symlink():
                return os.path.realpath(root)
        except OSError:
            return None
    return None


def candidate_roots() -> list[Path]:
    """Roots an id is looked up in when no ``runs_dir=`` is given, in order: ``ns.set``/``$NOESIS_RUNS_DIR``;
    ./.noesis/episodes; ./runs; ./.noesis/runs."""
    roots = [config.runs_dir()]
    roots += [Path(".noesis") / "episodes", Path("runs"), Path(".noesis") / "runs"]
    seen: set[Path] = set()
    unique = []
    for root in roots:
        key = root.resolve() if root.exists() else root.absolute()
        if key not in seen:
            seen.add(key)
            unique.append(root)
    return unique


def _remote_run(url: str) -> str:
    """What to say for a run given by URL where a run on this machine is needed (``show``, approvals, resume)."""
    shown = url.partition("?")[0] + (f"?{REDACTED_VALUE}" if "?" in url else "")  # the query may hold a signature
    return (
        f"{quoted(shown)} is a URL: a run is opened (shown, approved, resumed) from a run directory on this machine "
        "only. Read a remote root's runs as frames with noesis_nb.runs_df(url) / events_df(url); to open one, copy its "
        "folder here first (fsspec's fs.get(url, 'runs/<id>', recursive=True), aws s3 cp --recursive, …) and pass "
        "that run directory"
    )


def find_run_dir(
    target: str | os.PathLike[str],
    runs_dir: str | os.PathLike[str] | None = None,
    *,
    instead: str = "pass runs_dir= or the run directory path",
) -> Path:
    """The run directory of an episode id, or ``target`` itself when it is a run directory.

    ``instead``: what an unknown id's error tells the caller to pass (a frame takes no ``runs_dir=``).

    Looks in each candidate root for ``<root>/<id>`` and one label level ``<root>/<label>/<id>``. A ``runs_dir`` that
    is no path is refused whether or not it is needed (a run directory given as ``target`` does not read it).
    """
    config.check_path(runs_dir, reading=True)
    said = frame_given(target, "an episode id or run directory")
    if said is not None:
        raise InvalidIdError(said)
    if not isinstance(target, (str, os.PathLike)) and isinstance(getattr(target, "episode_id", None), str):
        kind = type(target).__name__
        raise InvalidIdError(
            f"got {'an' if kind[:1] in 'AEIOU' else 'a'} {kind} where an episode id or run directory goes; pass its episode_id "
            f"(handle.episode_id, {quoted(target.episode_id)}), or use the handle's own methods "
            "(handle.approve(approver_id=...), handle.reject(...), await handle)"
        )
    if not isinstance(target, (str, os.PathLike)):
        raise InvalidIdError(
            f"{quoted(target)} is not an episode id or a run directory; pass an id such as 'ep_01K9...' "
            "(a str) or the run directory's path"
        )
    if isinstance(target, str) and "://" in target and not target.startswith("file://"):
        raise InvalidIdError(_remote_run(target))
    if isinstance(target, os.PathLike) or (isinstance(target, str) and (os.sep in target or "/" in target)):
        path = found_shown(Path(os.path.expanduser(target)))  # a row's shown ``…/[REDACTED:<mark>]`` is its run
        if is_run_dir(path):
            return path
        if any(len(part.encode("utf-8", "surrogateescape")) > 255 for part in path.parts):
            raise InvalidIdError(
                f"{quoted(str(target), 60)}… has a path component longer than 255 bytes, which no file system "
                "allows; pass the run directory's real path or its episode id"
            )
        if isinstance(target, str):
            what, instead = _why_not_a_run(path)
            raise InvalidIdError(
                f"{quoted(target)} is neither an episode id (ids have no '/' or '..') nor a run directory: {what}; {instead}"
            )
        what, instead = _why_not_a_run(path)
        raise RunNotFoundError(f"{quoted(str(path))} is not a run directory: {what}; {instead}")
    if holds_hidden(target):  # an id as a frame or a view shows it: the one run of a root shown so
        for root in [Path(os.path.expanduser(runs_dir))] if runs_dir is not None else candidate_roots():
            found = found_shown(root / target)
            if found.name != target and is_run_dir(found):
                return found
        if "[REDACTED:" in target:  # marked (``secrets.namemarks``): a run of another root, or of another user's key
            where = quoted(str(runs_dir)) if runs_dir is not None else "the default runs roots"
            raise RunNotFoundError(
                f"{quoted(target)} is a run's id as a frame shows it (its name holds a credential), but no run folder in "
                f"{where} is shown so; pass the runs root it is in as runs_dir=, or the run_dir a frame shows"
            )
    episode_id = validate_id(target)
    if runs_dir is not None:  # a file or FIFO given as the runs dir: say so, not "no run under it"
        check_root(Path(os.path.expanduser(config.check_path(runs_dir, reading=True))), label="runs_dir", reading=True)
    # runs_dir= names the one place to look: a run of the same id in a default root (./runs…) is another run
    roots = [Path(os.path.expanduser(config.check_path(runs_dir, reading=True)))] if runs_dir is not None else candidate_roots()
    for root in roots:
        direct = root / episode_id
        if is_run_dir(direct):
            return direct
    for root in roots:
        if root.is_dir():
            for label in _subdirs(root):
                nested = label / episode_id
                if is_run_dir(nested):
                    return nested
    for root in roots:
        direct = root / episode_id
        if os.path.lexists(direct):  # named so, but no run there: say what it is rather than "no run"
            what, instead = _why_not_a_run(direct)
            raise RunNotFoundError(f"{quoted(str(direct))} is not a run directory: {what}; {instead}")
    searched = ", ".join(repr(str(r)) for r in roots)  # repr: a crafted name prints no control character
    starting = sorted({p.name for root in roots for p in _subdirs(root) if p.name.startswith(episode_id)})
    if starting:  # a part of an id: ids are taken whole (a prefix could name another run tomorrow)
        named = ", ".join(starting[:3]) + (f" and {len(starting) - 3} more" if len(starting) > 3 else "")
        raise RunNotFoundError(
            f"no run is named {quoted(episode_id)}; it is the start of {len(starting)} run id(s): {named}; pass a whole id"
        )
    close = close_run_id(episode_id, roots)
    if close:  # one character off an id that is there: a typo, most likely
        slips = ascii_slips(episode_id, close)  # an id typed with look-alike letters: an id, shown (never a key)
        typed = repr(episode_id) if slips is not None else quoted(episode_id)
        said = f" It differs by {slips}" if slips is not None else ""
        raise RunNotFoundError(f"no run {typed} under {searched} (did you mean {quoted(close)}?{said})")
    if runs_dir is None and os.path.isdir(episode_id):  # a folder here, named without a slash, where no run has that id
        here = Path(episode_id)
        if is_run_dir(here):  # a run's folder in the current directory (a user inside a runs folder): that run
            return here
        what, instead = _why_not_a_run(here)  # ``"runs"``: say what it is rather than "no run 'runs' under …, 'runs'"
        raise RunNotFoundError(f"{quoted(episode_id)} is a folder here, not a run's id or directory: {what}; {instead}")
    if runs_dir is not None:  # looked in that one place only: say where the run is, or that the place is missing
        if not os.path.lexists(roots[0]):
            raise RunNotFoundError(
                f"no run {quoted(episode_id)}: runs_dir {searched} does not exist; pass the folder that holds the run"
            )
        elsewhere = next((str(r / episode_id) for r in candidate_roots() if is_run_dir(r / episode_id)), None)
        if elsewhere is not None:
            raise RunNotFoundError(
                f"no run {quoted(episode_id)} under runs_dir {searched}, the only place looked in; there is one at "
                f"{quoted(elsewhere)}: pass its folder as runs_dir=, or leave runs_dir= out"
            )
    raise RunNotFoundError(
        f"no run {quoted(episode_id)} under {searched}; {instead}, or check the id with %noesis list "
        "(noesis_nb.ns.list_runs() in code)"
    )


def close_run_id(episode_id: str, roots: list[Path]) -> str | None:
    """The id of a run under ``roots`` closest to ``episode_id`` when it looks like a typo of it (said only on error)."""
    import difflib

    names = [p.name for root in roots for p in _subdirs(root) if p.name != episode_id]  # never the id itself
    folded = [n for n in names if n.casefold() == episode_id.casefold()]  # ids are case-sensitive: one typed in small
    if len(folded) == 1:  # letters (``show(h.episode_id.lower())``) is many characters off, but one run
        return folded[0]
    slips = [n for n in names if ascii_slips(episode_id, n) is not None]  # O for 0, l or I for 1: however many
    if len(slips) == 1:
        return slips[0]
    close = difflib.get_close_matches(episode_id, names, n=1, cutoff=0.9)
    return close[0] if close else None


def _why_not_a_run(path: Path) -> tuple[str, str]:
    """(what ``path`` is instead of a run directory, what to pass instead), in words a newcomer can act on."""
    usual = "pass an id such as 'ep_01K9...' or a run directory's path"
    try:
        if not path.exists():
            return "nothing is there", usual
        if not path.is_dir():
            return "it is a file", usual
        if not os.access(path, os.R_OK | os.X_OK):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))
        runs = [os.path.relpath(p, path) for p, _ in scan_run_dirs_with_stats(str(path))]
        if runs:
            named = ", ".join(runs[:2]) + (f" and {len(runs) - 2} more" if len(runs) > 2 else "")
            return (
                f"it is a runs folder holding {len(runs)} run(s) ({named})",
                f"pass one of them, or load them all with runs_df({quoted(str(path))})",
            )
        with os.scandir(path) as it:
            empty = next(it, None) is None
    except PermissionError as exc:
        return (
            f"this user may not read it ({exc.strerror or exc})",
            "ask its owner for read access (chmod -R a+rX on the folder) or copy the run somewhere you can read",
        )
    except OSError as exc:
        return f"it cannot be read ({exc.strerror or exc})", usual
    return ("it is an empty folder" if empty else f"it holds none of {', '.join(MARKERS)}"), usual


def _subdirs(root: Path) -> Iterator[Path]:
    try:
        with os.scandir(root) as it:
            for entry in it:
                if entry.is_dir() and not entry.name.startswith("."):
                    yield Path(entry.path)
    except (FileNotFoundError, NotADirectoryError, PermissionError):
        return


def iter_run_dirs(root: str | os.PathLike[str]) -> Iterator[Path]:
    """Run directories under ``root``: its children, plus children of label folders (one level), by name."""
    for path, _ in scan_run_dirs_with_stats(str(root)):
        yield Path(path)
