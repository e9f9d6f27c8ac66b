"""``EpisodePaused``: how an adapter is unwound when its episode pauses with nobody waiting in this process."""

from __future__ import annotations

__all__ = ["EpisodePaused"]


class EpisodePaused(BaseException):
    """Unwinds the adapter when the episode pauses and nobody waits in this process (``solve``).

    A ``BaseException`` so that an adapter's ``except Exception`` does not swallow it.
    """
