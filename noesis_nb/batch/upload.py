"""Copying a sealed run to an fsspec URL (``s3://bucket/runs`` …), its manifest verified on both sides.

The local run is checked against its manifest first (a run that does not match is not copied);
each listed file is then written under ``<url>/<episode_id>/`` and read back, and its size and
sha256 compared with the manifest; ``manifest.json`` goes last, so a reader never sees a manifest
vouching for files still on their way. A copy whose manifest is missing (a process killed mid-upload) is
not a copy yet: ``upload_missing`` completes it, and leaves one whose manifest is the run's own as it is.

One copy of a run at a time, across processes: a copy holds an ``flock`` on the sealed run's ``manifest.json``
(:mod:`.copylock`). Two processes that both see a run sealed (the batch that followed it, the one that sealed it)
thus copy it once: the second finds the copy whole and leaves it. ``upload_run_async`` waits for the other copy
without blocking the loop, and copies off it; ``upload_run`` called where a loop runs refuses to wait, naming it.
"""

from __future__ import annotations

import asyncio
import errno
import hashlib
import os
from pathlib import Path
from typing import Any

from .._jsonio import atomic_write_bytes
from .._threads import run_in_thread
from ..errors import InvalidOptionError, MissingExtraError, RunWriteError, refusal_fix
from ..secrets.quoted import quoted, quoted_text
from ..store import is_sealed, read_manifest
from ..store.artifacts import verify_manifest
from .copylock import UploadError, open_lock, wait_async, wait_blocking
from .destination import local_folder, refuse_copies_into_a_run

__all__ = [
    "upload_run",
    "upload_run_async",
    "upload_missing",
    "upload_missing_async",
    "UploadError",
    "check_destination",
    "copy_ended",
]

COPY_WAIT_S = 900.0  # how long a copy waits while another process copies the same run


def check_destination(url: str) -> None:
    """Refuse, before a batch runs anything, an ``upload_to`` whose file system is not installed or not known
    (otherwise every run would be made, and every copy then fail with the same import error)."""
    try:
        import fsspec
    except ImportError:
        raise MissingExtraError(
            f"upload_to={quoted(url)} needs fsspec, which is not installed; install it with: pip install 'noesis_nb[s3]'"
        ) from None
    protocol = url.split("://", 1)[0]
    try:
        fsspec.get_filesystem_class(protocol)
    except ImportError as exc:  # s3fs, gcsfs … missing: fsspec's own line names the package
        fix = "pip install 'noesis_nb[s3]'" if protocol.lower() in ("s3", "s3a") else quoted_text(str(exc), 200)
        raise MissingExtraError(
            f"upload_to={quoted(url)} needs the {protocol}:// file system, which is not installed; {fix}"
        ) from None
    except ValueError as exc:  # a protocol fsspec does not know
        raise InvalidOptionError(
            f"upload_to={quoted(url)}: fsspec knows no {quoted(protocol)} file system ({quoted_text(str(exc), 120)}); "
            "pass a URL such as 's3://bucket/runs' or 'file:///srv/runs'"
        ) from None


async def copy_ended(run_dir: Path | None, url: str, error: str | None) -> str | None:
    """Copy a batch entry's ended run to ``url`` unless its copy there is whole (whoever made it: this process, the
    one that sealed the run, a call killed mid-copy is completed); returns the entry's error after it: an upload's
    failure is added to what the entry said before. A run left unsealed (its recovery or its seal failed) is not
    copied: its error already says why, and the copy would only fail."""
    if run_dir is None or not is_sealed(run_dir):
        return error
    try:  # on a worker thread, whose wait for another process's copy blocks only it (and which a script's
        # ``asyncio.run`` lets end: a copy begun is finished, never cut by the loop's close)
        await asyncio.to_thread(upload_missing, run_dir, url)
    except Exception as exc:
        said = f"upload to {url} failed: {type(exc).__name__}: {exc}"
        return f"{error}; {said}" if error else said
    return error


def upload_run(run_dir: Path, url: str, storage_options: dict[str, Any] | None = None) -> str:
    """Copy the sealed run ``run_dir`` to ``<url>/<episode_id>`` and verify the copy; returns the copy's URL.

    Blocks the calling thread while it copies. While another process copies the same run it waits for that
    copy, except on a thread that runs an event loop (a notebook cell): there it raises ``UploadError`` at once,
    and ``await upload_run_async(...)`` waits without blocking the kernel."""
    return _upload(run_dir, url, storage_options, keep_whole=False)


async def upload_run_async(run_dir: Path, url: str, storage_options: dict[str, Any] | None = None) -> str:
    """``upload_run`` for a notebook cell or a coroutine: the loop goes on while another process copies the same
    run (the wait is awaited, and cancellable) and while the files are copied (on a thread of their own)."""
    return await _upload_async(run_dir, url, storage_options, keep_whole=False)


def upload_missing(run_dir: Path, url: str, storage_options: dict[str, Any] | None = None) -> str:
    """``upload_run``, unless ``<url>/<episode_id>/manifest.json`` is already the run's own (its copy is whole: the
    manifest goes last, after every file was read back): a batch called again completes copies cut short."""
    return _upload(run_dir, url, storage_options, keep_whole=True)


async def upload_missing_async(run_dir: Path, url: str, storage_options: dict[str, Any] | None = None) -> str:
    """``upload_missing`` awaited: the loop goes on while another process copies the run, and while it is copied."""
    return await _upload_async(run_dir, url, storage_options, keep_whole=True)


def _upload(run_dir: Path, url: str, storage_options: dict[str, Any] | None, *, keep_whole: bool) -> str:
    run_dir = _sealed(run_dir, url)
    fd = open_lock(run_dir)
    try:
        wait_blocking(fd, f"{url}/{run_dir.name}", COPY_WAIT_S, instead="await noesis_nb.batch.upload_run_async(...)")
        return _copy(run_dir, url, storage_options, keep_whole=keep_whole)
    finally:
        os.close(fd)


async def _upload_async(run_dir: Path, url: str, storage_options: dict[str, Any] | None, *, keep_whole: bool) -> str:
    run_dir = await asyncio.to_thread(_sealed, run_dir, url)
    fd = open_lock(run_dir)
    copying = False
    try:
        await wait_async(fd, f"{url}/{run_dir.name}", COPY_WAIT_S)

        def copy_then_unlock() -> str:  # the lock is given up when the copy ends, even if its await was cancelled
            try:
                return _copy(run_dir, url, storage_options, keep_whole=keep_whole)
            finally:
                os.close(fd)

        copying = True
        result: str = await run_in_thread(copy_then_unlock, name="noesis_nb-upload")
        return result
    finally:
        if not copying:
            os.close(fd)


def _sealed(run_dir: Path, url: str) -> Path:
    check_destination(url)
    run_dir = Path(run_dir)
    if not is_sealed(run_dir):
        raise UploadError(f"run {run_dir.name} is not sealed; only sealed runs are uploaded")
    return run_dir


def _copy(run_dir: Path, url: str, storage_options: dict[str, Any] | None, *, keep_whole: bool) -> str:
    import fsspec

    check = verify_manifest(run_dir)
    if not check.ok:
        raise UploadError(f"run {run_dir.name} does not match its manifest ({'; '.join(check.problems[:3])}); not uploaded")
    manifest = read_manifest(run_dir) or {}
    folder = local_folder(url)
    if folder is not None:  # before the file system is built: a refused copy writes nothing
        refuse_copies_into_a_run(folder, url)
        _refuse_copy_onto_run(folder / run_dir.name, run_dir, url)
    fs, base = fsspec.core.url_to_fs(url, **(storage_options or {}))  # connects, for a remote one: off the loop
    target = f"{base.rstrip('/')}/{run_dir.name}"
    manifest_bytes = (run_dir / "manifest.json").read_bytes()
    if keep_whole and _copied(fs, f"{target}/manifest.json", manifest_bytes):
        return f"{url.rstrip('/')}/{run_dir.name}"
    files = [f for f in manifest.get("files", []) if isinstance(f, dict)]
    local = "file" in _protocols(fs)  # a folder there must exist before a file is written into it (not so in a bucket)
    put = _put_local if local else _put_remote
    for listed in files:
        name = str(listed["name"])
        data = (run_dir / name).read_bytes()
        put(fs, target, name, data, url)
        back = fs.cat_file(f"{target}/{name}")
        if len(back) != listed.get("size_bytes") or f"sha256:{hashlib.sha256(back).hexdigest()}" != listed.get("sha256"):
            raise UploadError(f"{url}/{run_dir.name}/{name}: the copy does not match the manifest; upload the run again")
    put(fs, target, "manifest.json", manifest_bytes, url)
    if fs.cat_file(f"{target}/manifest.json") != manifest_bytes:
        raise UploadError(f"{url}/{run_dir.name}/manifest.json: the copy differs; upload the run again")
    return f"{url.rstrip('/')}/{run_dir.name}"


def _put_local(fs: Any, target: str, name: str, data: bytes, url: str) -> None:
    """Write one file of a local copy whole or not at all (a temp file beside it, then a rename): a destination that
    fills or refuses mid-copy leaves no torn file, above all no empty ``manifest.json`` vouching for a half copy."""
    try:
        atomic_write_bytes(Path(f"{target}/{name}"), data)
    except OSError as exc:
        raise _refused(url, target, name, exc) from None


def _put_remote(fs: Any, target: str, name: str, data: bytes, url: str) -> None:
    """Write one file of a copy in a store (an object is put whole: no temp file is needed)."""
    try:
        fs.pipe_file(f"{target}/{name}", data)
    except OSError as exc:
        raise _refused(url, target, name, exc) from None


def _refused(url: str, target: str, name: str, exc: OSError) -> UploadError:
    """One line naming the copy's file, why it was refused and the fix; the copy stays incomplete (no manifest)."""
    reason = exc.reason if isinstance(exc, RunWriteError) else (exc.strerror or str(exc))
    code = errno.errorcode.get(exc.errno or 0)
    return UploadError(
        f"{url.rstrip('/')}/{target.rsplit('/', 1)[-1]}/{name}: the copy was refused ({reason}{f', {code}' if code else ''}); "
        f"{refusal_fix(exc.errno)}, then call the batch (or upload_run) again: it completes copies cut short. "
        "The copy has no manifest until then, so nothing reads it as whole"
    )


def _refuse_copy_onto_run(target: Path, run_dir: Path, url: str) -> None:
    """Refuse a local copy whose folder is the run itself (``upload_to`` naming its runs root): each file would be
    truncated and written over itself, a kill mid-way leaving the sealed run damaged. A copy inside a run is
    refused before (``destination.refuse_copies_into_a_run``)."""
    if os.path.realpath(target) == os.path.realpath(run_dir):
        raise InvalidOptionError(
            f"upload_to={quoted(url)} would copy run {run_dir.name} onto itself ({quoted(str(target))}): a copy goes to another "
            "folder than the runs root; pass a URL such as 'file:///srv/run-copies' or 's3://bucket/runs'; "
            "nothing was written"
        )


def _copied(fs: Any, path: str, manifest_bytes: bytes) -> bool:
    """Whether ``path`` holds these manifest bytes (the copy was completed); False when absent or another."""
    try:
        return bool(fs.cat_file(path) == manifest_bytes)
    except FileNotFoundError:
        return False


def _protocols(fs: Any) -> tuple[str, ...]:
    protocol = getattr(fs, "protocol", ())
    return (protocol,) if isinstance(protocol, str) else tuple(protocol)
