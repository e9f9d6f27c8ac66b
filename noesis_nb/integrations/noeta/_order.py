"""Envelopes delivered live, released in each task's ``seq`` order (Noeta's commit order).

Noeta hands each committed envelope to its subscribers on the thread that committed it, so two commits on two threads
may arrive swapped. The run is append-only: an envelope is held until every lower ``seq`` of its task has arrived,
then released with the ones it was waiting for. ``release_all`` (once the client call that committed them has
returned: nothing earlier is still on its way) lets the held ones go in ``seq`` order past a ``seq`` never
delivered. One arriving after a higher ``seq`` of its task was released cannot take its place any more: it is
released at once, marked late (the row says ``out_of_order``), never dropped. An envelope without a whole-number
``seq`` is released as it comes.
"""

from __future__ import annotations

from typing import Any

__all__ = ["SeqOrder"]

Released = list[tuple[dict[str, Any], bool]]  # (envelope, arrived after a higher seq of its task was released)


class SeqOrder:
    """Holds envelopes that arrive ahead of their turn (not thread-safe: its caller holds a lock)."""

    def __init__(self) -> None:
        self._next: dict[str, int] = {}  # repr(task_id) -> the seq released next
        self._held: dict[str, dict[int, dict[str, Any]]] = {}  # repr(task_id) -> seq -> envelope

    def arrive(self, envelope: dict[str, Any]) -> Released:
        """The envelopes ``envelope`` lets go, in order (none while one before it is missing)."""
        seq = envelope.get("seq")
        if type(seq) is not int:  # (a bool is no seq)
            return [(envelope, False)]
        task = repr(envelope.get("task_id"))
        expected = self._next.get(task, 0)
        if seq < expected:  # behind what was released: a repeat (the folder says so) or late
            return [(envelope, True)]
        held = self._held.setdefault(task, {})
        if seq > expected:
            held.setdefault(seq, envelope)  # a repeat of a held one is the folder's to see: it comes again later
            return []
        out: Released = [(envelope, False)]
        expected += 1
        while expected in held:
            out.append((held.pop(expected), False))
            expected += 1
        self._next[task] = expected
        return out

    def release_all(self) -> Released:
        """Every held envelope, each task's in ``seq`` order: the ones before them are not coming."""
        out: Released = []
        for task, held in self._held.items():
            if held:
                out.extend((held[seq], False) for seq in sorted(held))
                self._next[task] = max(held) + 1
                held.clear()
        return out
