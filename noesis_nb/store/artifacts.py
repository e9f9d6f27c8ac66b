"""Run-directory documents: read summary/state/final/manifest, write and verify the manifest."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from .._jsonio import atomic_write_json, sha256_file
from .._jsonkeys import Repeated, checked
from .eventlog import FileDigest, now_iso
from .ownership import holder
from .paths import run_path
from .patience import await_until, follow_up, running_loop, wait_until
from .runfiles import UnreadableRunFile, read_file, what_is
from .sealing import seal_state

__all__ = [
    "taken_back_if_sealed",
    "read_json",
    "read_json_checked",
    "read_summary",
    "read_state",
    "read_final",
    "read_manifest",
    "write_manifest",
    "verify_manifest",
    "ManifestCheck",
    "is_sealed",
    "sweep_transients",
    "transient_name",
    "odd_entries",
    "MANIFEST_KINDS",
]

MANIFEST_KINDS = {"summary.json": "summary", "state.json": "state", "events.jsonl": "events", "learn.jsonl": "learn"}


def read_json(path: str | os.PathLike[str], *, within: str | os.PathLike[str] | None = None) -> dict[str, Any] | None:
    """A JSON document as a dict, or None when the file is absent or not a JSON object.

    It is also None when the path is not a readable regular file — a directory, a FIFO, no
    permission, or (given ``within``, the run directory) a symlink leading out of the run:
    a run's documents are never read from outside it. A key written twice in one object is read as unknown
    (``read_json_checked`` says so).
    """
    return read_json_checked(path, within=within)[0]


def read_json_checked(
    path: str | os.PathLike[str], *, within: str | os.PathLike[str] | None = None
) -> tuple[dict[str, Any] | None, Repeated | None]:
    """(``read_json``, what to report of a key it writes twice in one object, read as unknown; else None)."""
    try:
        got = read_file(os.fspath(path), None if within is None else os.fspath(within))
        value = None if got is None else orjson.loads(got[0])
    except (UnreadableRunFile, orjson.JSONDecodeError):
        return None, None
    if not isinstance(value, dict) or got is None:
        return None, None
    return checked(got[0], value)


def read_summary(run_dir: Path) -> dict[str, Any] | None:
    return read_json(Path(run_dir) / "summary.json", within=run_dir)


def read_state(run_dir: Path) -> dict[str, Any] | None:
    return read_json(Path(run_dir) / "state.json", within=run_dir)


def read_final(run_dir: Path) -> dict[str, Any] | None:
    return read_json(Path(run_dir) / "final.json", within=run_dir)


def read_manifest(run_dir: Path) -> dict[str, Any] | None:
    return read_json(Path(run_dir) / "manifest.json", within=run_dir)


#: what ``taken_back_if_sealed`` says of a decision the run's seal came before: gone, or to go unless listed
TAKEN_BACK = "the decision was taken back"
TAKEN_BACK_LATER = (
    "the decision came too late for it: another process is sealing the run, and the decision file is taken back "
    "once that seal is written, unless the seal lists it (then it stays in the run, unused)"
)


def taken_back_if_sealed(run_dir: Path, path: Path, patience_s: float = 5.0) -> str:
    """Remove ``path`` (a decision just written into ``run_dir``) when the run was sealed meanwhile without it.

    A decision is written after a check that the run is not sealed: a seal may fall between the two.
    The manifest lists the files present when it is written, after ``final.json``; so without
    ``final.json`` now, it will list this file. While a seal is under way its manifest is waited
    for; a sealer that died mid-way leaves the seal to ``resume_run``, which lists the file too.
    Returns ``TAKEN_BACK`` when the file was taken back (nothing may be added to a sealed run), else "".

    On a thread running an event loop (a kernel: a cell, a click) nothing is waited for (``store.patience``):
    while another process's seal is under way, the decision is too late for its episode (``TAKEN_BACK_LATER``
    now: whether the seal lists it is not known yet), and a task on that loop takes the file back once the
    manifest is written, unless the manifest lists it."""
    run_dir = Path(run_dir)
    if not seal_state(run_dir).final:
        return ""
    loop = running_loop()
    if loop is not None and not _seal_settled(run_dir):
        follow_up(loop, _take_back_once_sealed(run_dir, Path(path), patience_s))
        return TAKEN_BACK_LATER
    wait_until(lambda: _seal_settled(run_dir), patience_s)
    return TAKEN_BACK if _take_back_unlisted(run_dir, Path(path)) else ""


def _seal_settled(run_dir: Path) -> bool:
    """The seal under way is done (the manifest is written), or nobody is writing it any more."""
    return seal_state(run_dir).sealed or holder(run_dir) is None


async def _take_back_once_sealed(run_dir: Path, path: Path, patience_s: float) -> None:
    await await_until(lambda: _seal_settled(run_dir), patience_s)
    _take_back_unlisted(run_dir, path)


def _take_back_unlisted(run_dir: Path, path: Path) -> bool:
    """Remove ``path`` when the run is sealed and its manifest does not list it; True if removed."""
    if not seal_state(run_dir).sealed:  # its sealer died (resume_run will list the file) or is still at it
        return False
    files = (read_manifest(run_dir) or {}).get("files")
    listed = {f.get("name") for f in files if isinstance(f, dict)} if isinstance(files, list) else set()
    if path.relative_to(run_dir).as_posix() in listed:
        return False
    path.unlink(missing_ok=True)
    return True


def is_sealed(run_dir: Path) -> bool:
    """A sealed run has ``manifest.json``, a regular file (the last file of a seal; older Noēsis runs have no
    ``final.json``); ``store.sealing`` says why nothing else counts.

    With ``final.json`` and no manifest the seal was cut short: the run accepts no more events,
    and ``resume_run`` writes the manifest."""
    return seal_state(run_dir).sealed


def write_manifest(
    run_dir: Path, episode_id: str, known: Mapping[str, FileDigest] | None = None, *, created_at: str | None = None
) -> dict[str, Any]:
    """Hash every regular file under the run (except the manifest and transient files) into ``manifest.json``.

    ``created_at``: the run's time of sealing (an imported run's recorded end); default the time of writing.

    ``known`` gives files whose writer kept their hash as it wrote them (``events.jsonl``): each
    one still the same file, unchanged since, is listed without reading it again, so sealing
    does not grow with the run. Symbolic links are never followed, so nothing outside the run is ever hashed or
    described as part of it: every seal refuses a run holding a link, FIFO, socket or device (``odd_entries``)
    before it writes anything, so a sealed run holds only what its manifest lists.
    """

    run_dir = Path(run_dir)
    target = run_path(run_dir, "manifest.json")
    known = known or {}
    files: list[dict[str, Any]] = []
    for path in _regular_files(run_dir):
        name = path.relative_to(run_dir).as_posix()
        if name == "manifest.json" or _transient(path):
            continue
        kept = known.get(name)
        if kept is not None and kept.matches(path):
            digest, size = f"sha256:{kept.sha256}", kept.size
        else:
            size = path.stat().st_size
            digest = sha256_file(path)
        files.append({"name": name, "sha256": digest, "size_bytes": size, "kind": MANIFEST_KINDS.get(name, "attachment")})
    manifest = {
        "schema_version": "manifest/1.0",
        "episode_id": episode_id,
        "created_at": created_at or now_iso(),
        "files": sorted(files, key=lambda f: f["name"]),
        "signer": None,
    }
    atomic_write_json(target, manifest)
    return manifest


def _non_folders(run_dir: Path, *, hidden_folders: bool) -> Iterator[os.DirEntry[str]]:
    """Each entry below ``run_dir`` that is not a folder, walking folders without following any link (folders whose
    name starts with ``.`` only with ``hidden_folders``); the kind comes from the folder listing (no stat call)."""
    stack = [run_dir]
    while stack:
        folder = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            if not entry.is_dir(follow_symlinks=False):
                yield entry
            elif hidden_folders or not entry.name.startswith("."):
                stack.append(Path(entry.path))


def _regular_files(run_dir: Path, *, hidden_folders: bool = False) -> list[Path]:
    """Regular files below ``run_dir``, sorted, walking folders without following any link
    (folders whose name starts with ``.`` only with ``hidden_folders``)."""
    return sorted(Path(e.path) for e in _non_folders(run_dir, hidden_folders=hidden_folders) if e.is_file(follow_symlinks=False))


def odd_entries(run_dir: Path) -> list[tuple[str, str]]:
    """``(name in the run, what it is)`` of each entry below ``run_dir`` that is neither a folder nor a regular file
    (a symbolic link, a FIFO, a socket, a device), hidden folders included, sorted; nothing is followed or opened.

    A manifest lists regular files only: a run sealed with such an entry would hold something its manifest does not
    list (Noēsis' "the manifest lists every file"), so a seal refuses it and ``verify_manifest`` reports it."""
    run_dir = Path(run_dir)
    out: list[tuple[str, str]] = []
    for entry in _non_folders(run_dir, hidden_folders=True):
        if entry.is_file(follow_symlinks=False):
            continue
        try:
            mode = entry.stat(follow_symlinks=False).st_mode
        except OSError:  # gone meanwhile
            continue
        what = "a symbolic link" if stat.S_ISLNK(mode) else what_is(mode)
        out.append((Path(entry.path).relative_to(run_dir).as_posix(), what))
    return sorted(out)


def _transient(path: Path) -> bool:
    """Locks, claims and temp files exist only while a writer works; they are not part of the run."""
    return transient_name(path.name)


def transient_name(name: str) -> bool:
    """Whether a file named ``name`` is a lock, claim or temp file: never listed in a manifest (``write_manifest``)."""
    return name.startswith(".") or name.endswith((".lock", ".claim", ".tmp"))


def sweep_transients(run_dir: Path) -> list[str]:
    """Remove what writers leave only while they work (or when killed mid-write): temp files of atomic
    writes, exclusive-create temps, claims and create locks. Only the run's owner calls this, right
    before sealing; a decision another process is writing at that moment writes its temp again
    (``create_exclusive_json``). Returns the names removed."""
    run_dir = Path(run_dir)
    removed = []
    for path in _regular_files(run_dir, hidden_folders=True):
        name = path.name
        ours = (name.startswith(".") and (name.endswith(".tmp") or name.endswith(".new"))) or path.suffix in {".claim", ".lock"}
        if ours and name != ".owner.lock":
            path.unlink(missing_ok=True)
            removed.append(path.relative_to(run_dir).as_posix())
    return removed


@dataclass
class ManifestCheck:
    """Result of checking a run against its manifest: ``status`` is ok, missing, mismatch or no_manifest.

    ``problems`` are readable lines; ``details`` the same as ``(listed name, reason)`` pairs.
    """

    status: str
    problems: list[str] = field(default_factory=list)
    details: list[tuple[Any, str]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.status == "ok"


def verify_manifest(run_dir: Path, *, quick: bool = False) -> ManifestCheck:
    """Re-hash each listed file. A listed file that is absent gives ``missing``; a changed one ``mismatch``.

    ``quick``: the frames' check of a sealed run (``frames.sealsizes``): each listed file's size, and only a file
    modified after manifest.json (the seal's last file: an edit keeping the size leaves it newer) is hashed.

    A malformed entry (not an object, a name leaving the run, a size that is not a whole number)
    is a ``mismatch``; a listed file that is a symlink, directory or other non-file is never
    hashed through (a mismatch too): the manifest vouches for the run's own bytes only.
    """
    run_dir = Path(run_dir)
    manifest = read_manifest(run_dir)
    if manifest is None:
        return ManifestCheck("no_manifest", ["manifest.json is absent or unreadable"])
    check = ManifestCheck("ok")
    sealed_ns = _mtime_ns(run_dir / "manifest.json") if quick else None
    files = manifest.get("files")
    if not isinstance(files, list):
        _fail(check, "mismatch", "files", f"manifest.json has no list of files ({type(files).__name__})")
        return check
    for entry in files:
        name = entry.get("name") if isinstance(entry, dict) else None
        if not isinstance(name, str) or not _relative(name):
            _fail(
                check,
                "mismatch",
                name,
                f"{name!r}: not a relative path inside the run"
                if isinstance(entry, dict)
                else f"{entry!r}: an entry that is not an object",
            )
            continue
        path = run_dir / name
        try:
            st = os.lstat(path)
        except OSError:
            _fail(check, "missing", name, f"{name}: listed in manifest.json but missing")
            continue
        if not stat.S_ISREG(st.st_mode) or any((run_dir / p).is_symlink() for p in _parents(name)):
            _fail(check, "mismatch", name, f"{name}: not a regular file of the run (a symlink, directory or device); not hashed")
            continue
        listed, digest = entry.get("size_bytes"), entry.get("sha256")
        if listed is not None and (type(listed) is not int or st.st_size != listed):
            _fail(check, "mismatch", name, f"{name}: size {st.st_size} != {listed!r}")
        elif digest is None or isinstance(digest, str) and quick and sealed_ns is not None and st.st_mtime_ns <= sealed_ns:
            continue  # at its size, and (quick) not modified after the seal: judged by its size
        elif not isinstance(digest, str) or sha256_file(path) != digest:
            _fail(check, "mismatch", name, f"{name}: sha256 differs from manifest")
    if not quick:
        listed = {e.get("name") for e in files if isinstance(e, dict)}
        for name, what in odd_entries(run_dir):
            if name not in listed:  # a listed one is said above
                _fail(check, "mismatch", name, f"{name}: {what} in the sealed run, not a file its manifest lists")
    return check


def _mtime_ns(path: Path) -> int | None:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:  # gone since it was read: every file is hashed
        return None


def _fail(check: ManifestCheck, status: str, name: Any, reason: str) -> None:
    check.problems.append(reason)
    check.details.append((name, reason))
    if check.status == "ok" or (status == "mismatch" and check.status == "missing"):
        check.status = status


def _relative(name: str) -> bool:
    parts = name.split("/")
    return (
        bool(name)
        and not name.startswith("/")
        and "\\" not in name
        and "\x00" not in name
        and all(p not in ("", ".", "..") for p in parts)
    )


def _parents(name: str) -> list[str]:
    parts = name.split("/")[:-1]
    return ["/".join(parts[: i + 1]) for i in range(len(parts))]
