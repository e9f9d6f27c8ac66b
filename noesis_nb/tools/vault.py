"""In-memory store of the real payloads (and callables) of drafts prepared in this process.

Records on disk hold secret-free payloads; the real values needed to dispatch live here only,
keyed by run directory and draft id, and are dropped once the draft has executed. A draft
prepared in another process executes from its stored payload instead (see ``usecases``).
"""

from __future__ import annotations

import copy
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["VaultEntry", "DispatchVault", "PROCESS_VAULT"]


@dataclass(frozen=True)
class VaultEntry:
    fingerprint: str
    payload: dict[str, Any]
    func: Callable[..., Any] | None = None


class DispatchVault:
    """Thread-safe map ``(run_dir, draft_id) -> VaultEntry``."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: dict[tuple[str, str], VaultEntry] = {}

    @staticmethod
    def _key(run_dir: Path, draft_id: str) -> tuple[str, str]:
        return os.path.realpath(run_dir), draft_id

    def put(self, run_dir: Path, draft_id: str, entry: VaultEntry) -> None:
        with self._lock:
            self._entries[self._key(run_dir, draft_id)] = entry

    def get(self, run_dir: Path, draft_id: str, fingerprint: str) -> VaultEntry | None:
        """The entry, if one exists for this exact request fingerprint (a copy of the payload)."""
        with self._lock:
            entry = self._entries.get(self._key(run_dir, draft_id))
        if entry is None or entry.fingerprint != fingerprint:
            return None
        return VaultEntry(entry.fingerprint, copy.deepcopy(entry.payload), entry.func)

    def clear(self) -> None:
        """Forget every entry (what a process that did not prepare the drafts holds: nothing)."""
        with self._lock:
            self._entries.clear()

    def discard(self, run_dir: Path, draft_id: str) -> None:
        with self._lock:
            self._entries.pop(self._key(run_dir, draft_id), None)


PROCESS_VAULT = DispatchVault()
