"""Finding run directories under a root: the one scan (``roots.iter_run_dirs`` wraps it).

A run directory holds one of ``events.jsonl``, ``summary.json``, ``state.json``, ``final.json``; one label level
is followed; results are sorted by name. String paths and the fewest system calls, for roots of
many thousands of runs.
"""

from __future__ import annotations

import os
import re
import stat
import time

from .runfiles import ROOT_SETTLE_NS, times_settled

__all__ = ["MARKERS", "scan_run_dirs_with_stats", "stray_run_files", "stray_reason", "shown_path", "stray_id", "forget_folders"]

MARKERS = ("events.jsonl", "summary.json", "state.json", "final.json")  # final.json: a sealed run whose log is gone
_EVENTS = os.sep + "events.jsonl"
_Stamp = tuple[int, int, int, int]  # a folder's device, inode, mtime and ctime (ns): which folder, and as it was
_STRAYS: dict[str, tuple[_Stamp, list[tuple[str, str]]]] = {}  # root -> (its stamp when listed, its strays)
#: folder of a root found to be no run -> (its stamp when listed, its sub-folders): a reload of a root of many
#: such folders (empty ``ep_…`` folders, a user's own) stats each once, not four times and a listing
_NOT_RUNS: dict[str, tuple[_Stamp, tuple[tuple[str, bool], ...]]] = {}
#: root -> its folders named like a run (``ep_…``) its last scan found holding no run (``stray_run_files`` says them)
_NO_RUN_FOLDERS: dict[str, list[str]] = {}
_NOT_RUNS_MAX = 1 << 20  # a bound on what is kept: past it, everything is forgotten and found again
_MARKER_NAMES = frozenset(m.casefold() for m in MARKERS)


def forget_folders() -> None:
    """Forget the folders found to be no run and each root's strays: the next scan lists every folder again
    (``frames.clear_cache`` calls it, so a cleared cache keeps nothing a load read)."""
    _NOT_RUNS.clear()
    _STRAYS.clear()


# control characters (line breaks, terminal escapes) and bidi overrides: a crafted name must not rewrite a message
_HIDDEN = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def shown_path(path: str) -> str:
    """``path`` as text a message can hold: bytes that are not UTF-8 and hidden characters as backslash escapes
    (``ep_\\xff.zip``, ``ep_\\x1b[2J``), so the name reads as it is and still finds the file."""
    text = os.fsencode(path).decode("utf-8", "backslashreplace")
    if not _HIDDEN.search(text):
        return text
    return _HIDDEN.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


def stray_id(name: str, ids: set[str]) -> str | None:
    """The id of ``ids`` that the stray entry ``name`` is of: the name itself or the name without its
    suffixes (``ep_1.zip`` and ``ep_1.tar.gz`` are of ``ep_1``, never of ``ep_10``); None when none is."""
    while True:
        if name in ids:
            return name
        stem, dot, _ = name.rpartition(".")
        if not dot or not stem:
            return None
        name = stem


#: what a symbolic link in a runs root is when it is not followed (``_followed``)
LINK_OUT = "a symbolic link, not yours, to a folder outside the runs root"
#: a folder named like a run (``ep_…``, or a link to one) holding no run file and no run below it
NO_RUN_FILES = "a folder holding no run file"
#: a link named like a run leading back to the runs root, or to a folder the scan reaches in it anyway
#: (``_looped_links``): its runs are read once, where they are
LINK_TO_ROOT = "a symbolic link back to the runs root itself"
LINK_IN_ROOT = "a symbolic link to a folder of the runs root"
#: the same links by any other name: ``again -> .`` is skipped and said; a shortcut to a run or a label of the root
#: (``latest -> ep_…``, ``labels -> label``: ``ALIAS_IN_ROOT``) is skipped and not said (``_shortcut``): nothing is lost,
#: and a shortcut kept on purpose is no problem of every load
ALIAS_OF_ROOT = "a symbolic link back to the runs root itself, its runs read where they are"
ALIAS_IN_ROOT = "a symbolic link to a folder of the runs root, its runs read where they are"
#: a link followed (this user's own) to a folder holding no run and no folder of runs (``x -> /etc``)
LINK_NO_RUN = "a symbolic link to a folder holding no run"


def stray_reason(what: str) -> str:
    """What to say of an entry named like a run that is ``what`` (a file, a link to no folder…), and what to do."""
    if what == NO_RUN_FILES:
        return (
            "not a run: no summary.json, state.json or events.jsonl in this folder named like one (an episode killed "
            "before its first write, a copy that left its files behind); left out. Copy the run's files back into "
            "it, or move the folder out of the runs root"
        )
    if what in (LINK_TO_ROOT, LINK_IN_ROOT):
        return (
            f"named like a run but {what}: the runs it leads to are read once, where they are, so it is left out "
            "(read through it too, their events, tokens and costs would count twice). Remove the link, or give it a "
            "name no run has (not ep_…) if it is a shortcut"
        )
    if what in (ALIAS_OF_ROOT, ALIAS_IN_ROOT):
        return (
            f"{what}: skipped (read through it too, their events, tokens and costs would count twice); nothing is "
            "lost. Keep it if it is a shortcut, or remove the link (what it leads to stays)"
        )
    if what == LINK_NO_RUN:
        return (
            f"{what} (no events.jsonl, summary.json or state.json in it or in a folder of it); skipped. Point it at "
            "a folder of runs, or pass the folder it leads to as a source of its own if runs are deeper"
        )
    if what == LINK_OUT:
        return (
            f"{what}: not followed (anyone who can write to a shared root could point a run at any folder); left out. "
            "Copy the run into the root, or pass the folder it points to as a source of its own"
        )
    return (
        f"named like a run but {what}, not a run folder; left out. A run is a folder holding events.jsonl: "
        "unpack it here if it is an archived run, or move it out of the runs root"
    )


def stray_run_files(root: str) -> list[tuple[str, str]]:
    """(path, what it is) of each entry of ``root`` named like a run (``ep_…``) that is no folder: a zipped run,
    a run copied flat, a file saved under a run's name. The scan looks at folders only, so without this such an
    entry would be left out of every listing without a word. A root that is itself a run has none."""
    if _probe(root, unreadable=False)[0]:
        return []
    try:
        stamp = _stamp(os.stat(root))
    except OSError:  # absent, not a folder, no permission: said by ``check_root``
        return []
    kept = _STRAYS.get(root)
    if kept is not None and kept[0] == stamp:  # the scan just listed the root: each folder is listed once
        return sorted(list(kept[1]) + _still_empty(root))
    found: list[tuple[str, str]] = []
    children = _children(root, found)
    looped = _looped_links(root, children)
    found += [link for link in looped if not _shortcut(link)] + _links_to_no_run(children, {path for path, _ in looped})
    return sorted(found + _still_empty(root))


def _shortcut(link: tuple[str, str]) -> bool:
    """Whether a (path, what) of ``_looped_links`` is a shortcut (a link not named like a run to a run or a label of
    the root, ``latest -> ep_…``): its runs are read where they are, and it is no problem (not said)."""
    return link[1] == ALIAS_IN_ROOT


def _links_to_no_run(children: list[tuple[str, bool]], looped: set[str]) -> list[tuple[str, str]]:
    """(path, ``LINK_NO_RUN``) of each link among ``children`` (not one of ``looped``) that is no run and leads to no
    folder holding one, as the scan reads it (``stray_run_files`` without the scan's own finding). Links are rare."""
    said = []
    for child, linked in children:
        if linked and child not in looped and not _probe(child)[0]:
            if not any(_probe(grand)[0] for grand, _ in _children(child)):
                said.append((child, LINK_NO_RUN))
    return said


def _looped_links(root: str, children: list[tuple[str, bool]]) -> list[tuple[str, str]]:
    """(path, what it is) of each link of ``root`` that ``_once_each`` drops, whatever its name: one back to the
    root, or to a folder of it (a run, or a label of runs) the scan reaches without it. Links are rare; only they
    are resolved."""
    said: list[tuple[str, str]] = []
    real_root = None
    for child, linked in children:
        if not linked:
            continue
        real_root = real_root or os.path.realpath(root)
        real = os.path.realpath(child)
        inside = os.path.relpath(real, real_root).split(os.sep) if real.startswith(os.path.join(real_root, "")) else []
        named = os.path.basename(child).startswith("ep_")
        if real == real_root:
            said.append((child, LINK_TO_ROOT if named else ALIAS_OF_ROOT))
        elif 0 < len(inside) <= 2 and not any(part.startswith(".") for part in inside):
            said.append((child, LINK_IN_ROOT if named else ALIAS_IN_ROOT))
    return said


def _still_empty(root: str) -> list[tuple[str, str]]:
    """The folders of ``root`` named like a run (``ep_…``) that its last scan found holding no run, and still do (a
    folder becomes a run by files put into it, which leave the root's own stamp as it was): looked at again, they
    are few; the runs are not (no system call a run)."""
    said: list[tuple[str, str]] = []
    for child in _NO_RUN_FOLDERS.get(root, ()):
        if _probe(child)[0]:
            continue
        kept = _NOT_RUNS.get(child)  # its sub-folders as last listed, while its stamp holds (no listing again)
        try:
            grands = kept[1] if kept is not None and _stamp(os.stat(child)) == kept[0] else _children(child)
        except OSError:  # gone since
            continue
        if not any(_probe(grand)[0] for grand, _ in grands):
            said.append((child, NO_RUN_FILES))
    return said


def _stamp(st: os.stat_result) -> _Stamp:
    return (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_ctime_ns)


def _remember_strays(root: str, stamp: _Stamp | None, strays: list[tuple[str, str]]) -> None:
    """Keep what the scan found in ``root`` besides run folders, for ``stray_run_files`` to use while the root is
    the same folder, unchanged (``stamp``: another folder in its place, or an mtime set back, changes it). Only a
    root settled for ``ROOT_SETTLE_NS``: an entry made within the file system's timestamp tick of the listing could
    leave the times as they were (the same care git takes with racy files)."""
    _STRAYS.pop(root, None)
    if stamp is None or not times_settled(stamp[2], window_ns=ROOT_SETTLE_NS):  # an old mtime: a new entry would change it
        return
    if len(_STRAYS) >= 64:  # a handful of roots in a session; never grows without bound
        _STRAYS.pop(next(iter(_STRAYS)), None)
    _STRAYS[root] = (stamp, sorted(strays))


def _what(entry: os.DirEntry[str]) -> str:
    try:
        mode = entry.stat(follow_symlinks=False).st_mode
    except OSError:
        return "not a folder"
    if stat.S_ISLNK(mode):
        return "a symbolic link to no folder"
    return "a file" if stat.S_ISREG(mode) else "not a folder"


def _followed(entry: os.DirEntry[str], root: str) -> bool:
    """Whether a symbolic link to a folder found in a runs root is read as a run (or label) folder: when it leads
    inside the root (``root``: its real path), or the link is this user's own (a folder of links to one's runs).
    A link someone else put into a shared root is not followed: it could point a run at ``/etc`` or at another
    user's folder, shown as a run of that root."""
    real = os.path.realpath(entry.path)
    if real == root or real.startswith(os.path.join(root, "")):
        return True
    try:
        return entry.stat(follow_symlinks=False).st_uid == os.getuid()
    except OSError:
        return False


def _children(
    path: str, strays: list[tuple[str, str]] | None = None, root: str | None = None, plain: list[bool] | None = None
) -> list[tuple[str, bool]]:
    """(path, reached through a symbolic link) of each folder in ``path``, by name; entries named like a run
    that are no folder, and links to folders that are not followed (``_followed``; ``root``: the real path of the
    runs root, ``path``'s own by default), go to ``strays`` when it is given (the same listing serves
    ``stray_run_files``); such links are left out whether or not it is given. ``plain`` is told False when the
    listing failed or holds a symbolic link or an entry named as a run's marker file (in any case): what such an
    entry leads to can change while ``path`` itself stays as it was."""
    names = []
    found: list[tuple[str, str]] = []
    real_root = root
    try:
        with os.scandir(path) as it:
            for e in it:
                name = e.name
                if plain is not None and (e.is_symlink() or name.casefold() in _MARKER_NAMES):
                    plain.append(False)
                if name.startswith("."):
                    continue
                if e.is_dir():
                    linked = e.is_symlink()
                    if linked:
                        real_root = real_root or os.path.realpath(path)
                        if not _followed(e, real_root):
                            found.append((e.path, LINK_OUT))
                            continue
                    names.append((name, linked))
                elif name.startswith("ep_"):
                    found.append((e.path, _what(e)))
    except OSError:  # absent, not a folder, no permission, a name too long…
        if plain is not None:
            plain.append(False)
        return []
    if strays is not None:
        strays.extend(found)
    names.sort()
    prefix = path if path.endswith(os.sep) else path + os.sep
    return [(prefix + name, linked) for name, linked in names]


def _probe(path: str, unreadable: bool = True) -> tuple[bool, os.stat_result | None]:
    """(is a run dir, stat of its events.jsonl): one ``stat`` for a typical run.

    A folder this user may not search (``chmod 0``, another account's run) counts as a run: left out, it
    would vanish from every listing without a word; kept, each reader says it cannot be read."""
    try:
        return True, os.stat(path + _EVENTS)
    except PermissionError:
        return unreadable, None
    except OSError:
        pass
    isfile = os.path.isfile  # returns False (never raises) for odd paths
    return any(isfile(os.path.join(path, m)) for m in MARKERS[1:]), None


def scan_run_dirs_with_stats(root: str) -> list[tuple[str, os.stat_result | None]]:
    """Run directories under ``root`` (or ``root`` itself), label folders expanded, sorted, each with the
    stat of its ``events.jsonl`` (None when absent) taken on the way."""
    is_run, st = _probe(root, unreadable=False)  # a root that cannot be read is said by ``check_root``
    if is_run:
        return [(root, st)]
    try:
        stamp: _Stamp | None = _stamp(os.stat(root))  # before the listing: a change during it makes new times
    except OSError:
        stamp = None
    strays: list[tuple[str, str]] = []
    out: list[tuple[str, os.stat_result | None, bool]] = []
    children = _children(root, strays)
    empty: list[str] = []
    no_run_links: list[tuple[str, str]] = []
    real_root: str | None = None
    settled_before = time.time_ns() - ROOT_SETTLE_NS  # taken before any folder's stamp below
    not_runs = _NOT_RUNS
    for child, linked in children:
        kept = None if linked else not_runs.get(child)
        if kept is not None:
            try:
                child_st = os.stat(child)
                same = _stamp(child_st) == kept[0]
            except OSError:
                same = False
            if same:  # the same folder, no entry made, renamed or removed in it since: still no run
                grands: tuple[tuple[str, bool], ...] | list[tuple[str, bool]] = kept[1]
            else:
                not_runs.pop(child, None)  # (another thread's load may have let it go already)
                kept = None
        if kept is None:
            try:
                out.append((child, os.stat(child + _EVENTS), linked))  # a run: one stat
                continue
            except PermissionError:  # a folder this user may not search: a run, said by each reader (``_probe``)
                out.append((child, None, linked))
                continue
            except OSError:
                pass
            real_root = real_root or os.path.realpath(root)  # a label's links are judged against the runs root
            found = _no_run(child, linked, real_root, settled_before)
            if found is None:
                out.append((child, None, linked))
                continue
            grands = found
        runs_below = len(out)
        for grand, grand_linked in grands:
            is_run, st = _probe(grand)
            if is_run:
                out.append((grand, st, linked or grand_linked))
        if len(out) == runs_below and os.path.basename(child).startswith("ep_"):  # named as a run, holding none
            empty.append(child)
        elif len(out) == runs_below and linked:  # a link followed to no run: said, not skipped silently
            no_run_links.append((child, LINK_NO_RUN))
    looped = _looped_links(root, children)
    strays += [link for link in looped if not _shortcut(link)]
    strays += [(path, what) for path, what in no_run_links if path not in {p for p, _ in looped}]
    _remember_strays(root, stamp, strays)
    if empty or root in _NO_RUN_FOLDERS:
        if len(_NO_RUN_FOLDERS) >= 64:
            _NO_RUN_FOLDERS.clear()
        _NO_RUN_FOLDERS[root] = empty
    return _once_each(root, out)


def _no_run(child: str, linked: bool, real_root: str, settled_before: int) -> list[tuple[str, bool]] | None:
    """The sub-folders of ``child``, a folder of the root with no ``events.jsonl``, or None when it is a run all the
    same (``_probe``'s other markers; its listing tells when none of them is there, without a stat for each).
    Remembered in ``_NOT_RUNS`` with its stamp when a later load may trust it. A folder becomes a run only by an
    entry made or renamed in it, which changes its mtime and ctime (a chmod changes its ctime), so the stamp is taken before the
    listing, and the listing must show no entry named as a marker and no link (a marker that is a link, or a folder
    that is not one, can become a run's file with the folder unchanged). Its times must be older than
    ``settled_before`` (``ROOT_SETTLE_NS`` before the load began), or an entry made within the file system's tick
    could leave them as they were. A folder reached through a link is never remembered."""
    try:
        stamp: _Stamp | None = None if linked else _stamp(os.stat(child))
    except OSError:
        stamp = None
    plain: list[bool] = []
    grands = _children(child, None, real_root, plain)
    if plain:  # an entry named as a marker, a link, or no listing: the markers looked at as ``_probe`` does
        isfile = os.path.isfile
        if any(isfile(os.path.join(child, m)) for m in MARKERS[1:]):
            return None
    elif stamp is not None and stamp[2] < settled_before and stamp[3] < settled_before:
        if len(_NOT_RUNS) >= _NOT_RUNS_MAX:
            _NOT_RUNS.clear()
        _NOT_RUNS[child] = (stamp, tuple(grands))
    return grands


def _once_each(root: str, found: list[tuple[str, os.stat_result | None, bool]]) -> list[tuple[str, os.stat_result | None]]:
    """Each run once: a run reached through a link to a run already found (``again -> .`` in the root, an
    alias of one run) is dropped, or every frame would count it twice. Links are rare; only they are resolved."""
    if not any(linked for _, _, linked in found):
        return [(path, st) for path, st, _ in found]
    base = root if root.endswith(os.sep) else root + os.sep
    real_base = os.path.join(os.path.realpath(root), "")
    seen = {real_base + path[len(base) :] for path, _, linked in found if not linked}
    kept = set()
    # the shallowest path of a linked run wins (``ep_b``, a link to a run elsewhere, over ``again/ep_b`` through
    # ``again -> .``): the name it has in the root
    for path, _, _ in sorted((f for f in found if f[2]), key=lambda f: (f[0].count(os.sep), f[0])):
        real = os.path.realpath(path)
        if real not in seen:
            seen.add(real)
            kept.add(path)
    return [(path, st) for path, st, linked in found if not linked or path in kept]
