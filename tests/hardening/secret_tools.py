"""Importable tools for the secret tests (a resume in another process re-imports them by name)."""

from __future__ import annotations

import json
import os
from pathlib import Path


def call_api(url: str, *, auth: str, marker: str) -> dict:
    """Pretend to call ``url`` with ``auth``; appends one line per call to ``marker`` and echoes the auth back."""
    with open(marker, "a", encoding="utf-8") as fh:
        fh.write(json.dumps({"pid": os.getpid(), "auth_len": len(auth)}) + "\n")
    return {"status": 200, "url": url, "echo": f"authorised with {auth}"}


def calls(marker: str | Path) -> int:
    path = Path(marker)
    return len(path.read_text().splitlines()) if path.exists() else 0
