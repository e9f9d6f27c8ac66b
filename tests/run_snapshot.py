"""What a run directory holds, to show a refused call changed nothing: every entry, its kind, bytes and mtime."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any


def snapshot(run_dir: Path) -> dict[str, Any]:
    """Every entry under ``run_dir`` (the folder itself too, never through a link): mode, mtime in ns and the bytes
    of regular files."""
    shot: dict[str, Any] = {}
    for folder, dirs, files in os.walk(run_dir):
        for name in [".", *dirs, *files]:
            path = Path(folder, name)
            st = os.lstat(path)
            body = path.read_bytes() if os.path.isfile(path) and not os.path.islink(path) else None
            shot[str(path.relative_to(run_dir))] = (st.st_mode, st.st_mtime_ns, body)
    return shot
