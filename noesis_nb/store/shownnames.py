"""A run's id and folder as a person or a frame sees them, and that shown form found again.

A run folder named with a credential (``ep_ghp_…`` copied into a shared root) is read by every reader, and every
place that names it shows the name redacted by the one secret rule (``secrets.shown``): ``[REDACTED]``. The
shown form stays an address: a path or id holding ``[REDACTED]`` that names nothing is the one folder of its parent
whose shown form it is, so ``show(row.run_dir)`` and ``runs_df(row.run_dir)`` open the run a row names.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import RunNotFoundError
from ..ids import holds_credential, is_minted
from ..secrets.display import shown, shown_known
from ..secrets.guard import known_shown, runs_version, scrub_text
from ..secrets.names import REDACTED_VALUE

__all__ = ["shown_id", "shown_parts", "found_shown"]

_MEMO_MAX = 1 << 18  # texts shown kept (a root of 100,000 runs: its ids and paths)
#: what ``shown`` depends on besides a text (the values learned and the environment's secrets, this process's run
#: ids), and each text shown under them
_MEMO: tuple[tuple[str, ...], int, dict[str, str]] = ((), -1, {})


def _shown(text: str) -> str:
    """``shown(text)``, once per text while what it depends on is the same: a frame of a root of runs not named by
    minted ids reads each id and path once, and its warm reloads read none again (through the detectors' own memo of
    8,192 short texts, visited in the same order each time, a root of more runs missed it on every text)."""
    global _MEMO
    known, runs, memo = _MEMO
    now_known, now_runs = known_shown(), runs_version()
    if now_known is not known or now_runs != runs:
        memo = {}
        _MEMO = (now_known, now_runs, memo)
    out = memo.get(text)
    if out is None:
        if len(memo) >= _MEMO_MAX:
            memo.clear()
        out = memo[text] = _screened(text)
    return out


def _screened(text: str) -> str:
    """``shown(text)`` where ``text`` holds a credential of a known format or a secret-named value (as ids are
    refused for, ``ids.holds_credential``) or a value this process learned; a name that only looks random (a hash-
    named folder, an id with a suffix: ``ep_<ULID>0.zip``) is a name, kept as it is on disk."""
    out = shown(text)
    if out == text or holds_credential(text):
        return out
    known = shown_known()
    return out if known.levels and scrub_text(text, known) != text else text


def shown_id(text: str) -> str:
    """An episode id, or a run's path or URL, as it may be shown: the run's own name (the last part) redacted by
    ``shown`` when it holds a secret, the folders above it kept as given. They are the root the caller named: screened,
    a hash-named or bucket folder (``mlruns/1/<hex>/artifacts``) read as a key and one ``[REDACTED]`` could span
    several of them, so ``row.run_dir`` named nothing. A minted id (``ep_<ULID>``, a UUID, a hex digest;
    ``ids.is_minted``) is an id, as ``validate_id`` takes it: kept without a scan (one scan of a random-looking id
    costs a millisecond; a root holds 100,000 runs)."""
    head, sep, name = text.rpartition("/")
    return text if is_minted(name) else head + sep + _shown(name)


def shown_parts(text: str) -> str:
    """A file's path in a problem as it may be shown: each part screened alone (the run folder among them is not known
    here), so a redaction never spans a ``/`` and the path's shape stays readable."""
    return "/".join(part if not part or is_minted(part) else _shown(part) for part in text.split("/"))


def _could_show_as(name: str, part: str) -> bool:
    """A cheap test before ``shown``: ``name`` starts and ends as ``part`` does around its first and last ``[REDACTED]``."""
    head, tail = part.split(REDACTED_VALUE, 1)[0], part.rsplit(REDACTED_VALUE, 1)[-1]
    return name != part and len(name) >= len(head) + len(tail) and name.startswith(head) and name.endswith(tail)


def found_shown(path: Path) -> Path:
    """``path`` itself, or, when it names nothing and holds ``[REDACTED]``, the path whose shown form it is.

    Each missing part holding ``[REDACTED]`` is looked for among its parent's entries. Several that show alike (two
    runs named with two tokens) are no address: ``RunNotFoundError`` names how many and how to tell them apart."""
    text = str(path)
    if REDACTED_VALUE not in text or os.path.lexists(path):
        return path
    parts = path.parts
    at = Path(parts[0])
    for part in parts[1:]:
        step = at / part
        if REDACTED_VALUE in part and not os.path.lexists(step):
            try:
                names = os.listdir(at)
            except OSError:
                return path
            hits = [n for n in sorted(names) if _could_show_as(n, part) and _shown(n) == part]  # as shown_id shows it
            if len(hits) > 1:
                raise RunNotFoundError(
                    f"{shown(str(step))!r} is how {len(hits)} folders of {shown(str(at))!r} are shown (each name holds a "
                    "credential): no one of them is meant. Open each by its own path (os.listdir of that folder), or "
                    "rename them to plain ids"
                )
            if not hits:
                return path
            step = at / hits[0]
        at = step
    return at
