"""Whose event a line is: an id said twice in one log, or an event naming another episode than the rest of its log.

Both would be counted silently (a line appended twice doubles a call's tokens and cost; another
run's event lands in this run's totals), so every frame reports them, with the same words and
lines. The checks cost nothing per event on a good run: ids are compared in one ``set`` built at
C speed, and a run's owner by counting its ``"episode_id":"<folder>"`` bytes; only a run where
either finds something looks at its events one by one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..secrets.quoted import quoted

__all__ = ["any_repeated", "repeated_ids", "names_only", "other_episodes"]


def any_repeated(ids: Sequence[Any]) -> bool:
    """Whether a text id occurs twice among ``ids`` (None, an absent id, is no id); one ``set`` at C speed."""
    seen = set(ids)
    return len(seen) - (None in seen) < len(ids) - ids.count(None)


def repeated_ids(ids: Sequence[Any], line: Callable[[int], int]) -> list[tuple[int, str]]:
    """``(index, reason)`` for each event whose ``id`` an earlier event of the same log has; ``line(i)``: event i's line."""
    first: dict[Any, int] = {}
    out = []
    for i, event_id in enumerate(ids):
        if type(event_id) is not str:
            continue
        j = first.setdefault(event_id, i)
        if j != i:
            out.append(
                (
                    i,
                    f"id {quoted(event_id, 60)} is the id of the event on line {line(j)} too: the same event written "
                    "twice (a line appended again?); both lines are read and counted. Remove the repeated line",
                )
            )
    return out


def names_only(data: bytes, episode: str, events: int) -> bool:
    """Whether ``events`` lines of ``data`` each name ``episode`` (compact or spaced JSON), by counting the bytes.

    True is the common case; False (another name, none, or the name said elsewhere in a payload too)
    asks for ``other_episodes`` over the parsed events.
    """
    name = episode.encode()
    compact = data.count(b'"episode_id":"' + name + b'"')
    return compact == events or compact + data.count(b'"episode_id": "' + name + b'"') == events


def other_episodes(episode_ids: Sequence[Any], episode: str, as_read: Sequence[Any] | None = None) -> list[tuple[int, str]]:
    """``(index, reason)`` for each event whose ``episode_id`` is not its log's: the run's folder ``episode`` when
    an event names it, else the first event's (a renamed copy of a run names its old folder throughout: the
    summary's episode is checked against the folder by ``runs_df``, the events against each other here).
    ``as_read``: the ids before their events were redacted, so that an id hidden whole is named by its own length
    (not that of ``[REDACTED]``), as ``runs_df`` names it from the log's bytes."""
    owner = episode if episode in episode_ids else next((e for e in episode_ids if type(e) is str), episode)
    out = []
    for i, named in enumerate(episode_ids):
        if named == owner:
            continue
        said = "names no episode (episode_id is missing)" if named is None else f"names episode {quoted(named, 60)}"
        raw = as_read[i] if as_read is not None else named
        if raw is not named and type(raw) is str and said.startswith("names episode <a "):
            said = f"names episode <a {len(raw)}-character value that looks like a key, not shown>"
        out.append(
            (
                i,
                f"{said}, but it is in the log of {quoted(owner, 60)}; it is read as that run's event, as the run's "
                "folder names the run. Move it to its own run's log, or fix its episode_id",
            )
        )
    return out
