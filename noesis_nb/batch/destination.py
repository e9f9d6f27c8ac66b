"""Where a copy of a run may go: the local folder an ``upload_to`` URL names, and the refusal of one in a run.

Nothing here builds a file system: an instance connects at once (FTP, SFTP, SMB) or probes the network (gcsfs asks
its metadata server), and these checks run on the notebook's loop, before a batch runs anything. Only the class of
the URL's protocol is looked at; a file system is built when a copy is made, off the loop.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import InvalidOptionError
from ..secrets.quoted import quoted, quoted_text
from ..store.roots import is_run_dir

__all__ = ["local_folder", "refuse_copies_into_a_run"]

_A_RUN_OF_ITS_OWN = ("events.jsonl", "final.json", "manifest.json")  # files only a run's own folder holds
_FIX = "pass a folder outside every run, such as 'file:///srv/run-copies', or a bucket; nothing was written"


def local_folder(url: str) -> Path | None:
    """The real local folder ``url`` names (``file://`` or ``local://``: links and ``..`` followed), or None for any
    other file system. Never builds one; a URL that cannot be read so is one ``InvalidOptionError``."""
    protocol = url.split("://", 1)[0]
    try:
        import fsspec

        cls = fsspec.get_filesystem_class(protocol)
        protocols = (cls.protocol,) if isinstance(cls.protocol, str) else tuple(cls.protocol)
        if not {"file", "local"} & set(protocols):
            return None
        return Path(os.path.realpath(cls._strip_protocol(url)))
    except Exception as exc:  # a NUL in the path, a name the system refuses, an unknown or missing protocol …
        raise InvalidOptionError(
            f"upload_to={quoted(url, 120)} cannot be read as a folder ({type(exc).__name__}: "
            f"{quoted_text(str(exc), 120)}); pass a URL such as 'file:///srv/run-copies' or 's3://bucket/runs'"
        ) from None


def refuse_copies_into_a_run(folder: Path, url: str) -> None:
    """Refuse copies written under ``folder`` (a real path) when it is a folder every reader lists as a run, or lies
    inside a run's own folder (a sealed run's manifest would no longer list all it holds, and the copies would be
    listed nowhere). Folders above count only when they surely are a run: a project folder that merely holds a
    ``state.json`` leaves the copies below it harmless."""
    for above in (folder, *folder.parents):
        if above == folder and is_run_dir(above):
            said = "is a run folder"
        elif is_run_dir(above) and any(_is_file(above / name) for name in _A_RUN_OF_ITS_OWN):
            said = f"lies inside a run folder, {quoted(str(above))}"
        else:
            continue
        raise InvalidOptionError(
            f"upload_to={quoted(url, 120)} {said}: each copy would be written into that run (run {quoted(above.name)}); {_FIX}"
        )


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:
        return False
