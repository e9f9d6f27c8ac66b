"""Which process owns what it made: a counter that every forked child bumps, so no object needs ``os.getpid()``.

A child forked from the kernel (``os.fork``, a ``multiprocessing`` 'fork' pool) holds a copy of every
live episode: its open log, its counts and digest, its context, the run's lock. Writing through that
copy would put lines in the run its owner never counted. An object that writes a run notes
``generation`` when it is made (``Owner``) and compares it before each write: one integer compare
on the hot path, where ``os.getpid()`` would be a system call per event.
"""

from __future__ import annotations

import os

from .errors import ForkedChildError

__all__ = ["generation", "Owner"]

#: how many forks lie between this process and the first one that imported noesis_nb (0 there)
generation = 0


def _forked() -> None:
    global generation
    generation += 1


if hasattr(os, "register_at_fork"):  # POSIX; Windows has no fork
    os.register_at_fork(after_in_child=_forked)


class Owner:
    """The process an object was made in: ``here`` is False in a forked child of it, and ``check`` raises there."""

    __slots__ = ("generation", "pid")

    def __init__(self) -> None:
        self.generation = generation
        self.pid = os.getpid()

    @property
    def here(self) -> bool:
        return self.generation == generation

    def check(self, episode_id: str, doing: str) -> None:
        """Raise ``ForkedChildError`` (naming ``episode_id``, both pids and the fix) unless this is the owning process."""
        if self.generation != generation:
            raise ForkedChildError(episode_id, self.pid, os.getpid(), doing)
