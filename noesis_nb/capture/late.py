"""Model calls no run can hold, said once instead of lost unsaid.

A task (or a thread given the adapter's context) that the adapter starts and leaves running carries its episode's
capture on: a call it makes after the episode ended cannot be added to the sealed run, so one ``CallAfterEpisode``
warning per episode names it with the fix. And a background response one episode left running, retrieved to its end
in another, is the first episode's call: the other one writes nothing of it, and one ``CallOfAnotherEpisode`` warning
per response says so. Only these paths, never a recorded call's, do any of this work.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable
from typing import Any

from ..secrets import shown_cut
from . import usage as u
from .billing import billed_provider

__all__ = ["CallAfterEpisode", "CallOfAnotherEpisode", "began_late", "LEFT", "left_running", "ended_elsewhere"]

_told: set[str] = set()  # the episodes a late call was said for (once each)
_lock = threading.Lock()
#: background response id -> the episode that ended while it ran (it wrote the call abandoned, usage unknown); the
#: newest ``_LEFT_MAX`` are kept
LEFT: dict[str, str] = {}
_LEFT_MAX = 1024


class CallAfterEpisode(UserWarning):
    """A model call began after the episode whose adapter started its task or thread had ended: no run records it."""


class CallOfAnotherEpisode(UserWarning):
    """A background response retrieved to its end in one episode was created in another: its usage is not recorded."""


def began_late(episode_id: str, provider: str, options: Any, client: Any, api: Callable[[str, Any], str | None]) -> None:
    """Say once per episode that a model call began after episode ``episode_id`` ended (a request ``api`` names no
    model API of, a retrieve or a list, says nothing). Never raises: capture never breaks the program it watches."""
    try:
        if episode_id in _told or api(provider, options) is None:
            return
        with _lock:
            if episode_id in _told:
                return
            _told.add(episode_id)
        body = u.get(options, "json_data")
        model = body.get("model") if isinstance(body, dict) else None
        named = f"{billed_provider(client, provider)} {shown_cut(model, 120) if isinstance(model, str) else '(no model)'}"
        warnings.warn(
            f"a model call ({named}) began after episode {episode_id} ended, in a task or thread its adapter started "
            "and left running: no run records it (its tokens are billed all the same); await the task (or join the "
            "thread) inside the adapter, before it returns",
            CallAfterEpisode,
            stacklevel=4,
        )
    except Exception:
        pass


def left_running(response_id: str | None, episode_id: str) -> None:
    """Episode ``episode_id`` ended while its background response ``response_id`` ran (written abandoned)."""
    if not response_id:
        return
    with _lock:
        LEFT.pop(response_id, None)
        LEFT[response_id] = episode_id
        while len(LEFT) > _LEFT_MAX:
            del LEFT[next(iter(LEFT))]


def ended_elsewhere(episode_id: str, response_id: str, status: str, result: Any) -> None:
    """A retrieve in episode ``episode_id`` saw the end of a background response another episode left running: said
    once per response (that episode's run is sealed, its call written with usage unknown). Never raises."""
    try:
        with _lock:
            began = LEFT.get(response_id)
            if began is None or began == episode_id:
                return
            del LEFT[response_id]
        usage = u.get(result, "usage")
        counts = [u.get(usage, k) if usage is not None else None for k in ("input_tokens", "output_tokens")]
        known = all(type(n) is int for n in counts)
        tokens = f"{counts[0]} input and {counts[1]} output tokens" if known else "its tokens"
        warnings.warn(
            f"episode {episode_id} saw background response {shown_cut(response_id, 120)!r} end ({shown_cut(status, 40)}), "
            f"but episode {began} created it and ended while it ran (its run records the call abandoned, usage unknown): "
            f"{tokens} are recorded in no run; poll the response to its end in the adapter that created it",
            CallOfAnotherEpisode,
            stacklevel=4,
        )
    except Exception:
        pass
