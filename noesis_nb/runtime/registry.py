"""Episodes started in this process and not finished yet, by episode id.

Strong references: a background task must not be collected while it runs. Resume paths ask
here first so they never open a second writer on an episode that is live in this process.
A forked child starts with none: the episodes it inherited are its parent's, which it may
decide on (or resume) only as any other process does, through the run directory.
"""

from __future__ import annotations

import os
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .handle import EpisodeHandle

__all__ = ["live_handles", "register", "forget"]

_LIVE: dict[str, EpisodeHandle] = {}
_LOCK = threading.Lock()


def _forked() -> None:
    global _LOCK
    _LIVE.clear()
    _LOCK = threading.Lock()  # a thread of the parent may have held it at the fork


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forked)


def live_handles() -> dict[str, EpisodeHandle]:
    """Episodes started in this process that have not finished (by episode id)."""
    with _LOCK:
        return dict(_LIVE)


def register(handle: EpisodeHandle) -> None:
    with _LOCK:
        _LIVE[handle.episode_id] = handle


def forget(episode_id: str) -> None:
    with _LOCK:
        _LIVE.pop(episode_id, None)
