"""A run's id and folder as a person or a frame sees them, and that shown form found again.

A run folder named with a credential (``ep_ghp_…`` copied into a shared root) is read by every reader, and every
place that names it shows the name redacted by the one secret rule (``secrets.shown``), each hidden piece marked
by its keyed hash (``secrets.namemarks``): ``[REDACTED:3f9a2c1b5e6d7a80]``. Two runs named with two tokens are
shown apart (a frame's groupby or join keeps them apart), alike in every process of the user. The shown form stays
an address: a path or id holding a hidden part that names nothing is the one folder of its parent whose shown form
it is, so ``show(row.run_dir)`` and ``runs_df(row.run_dir)`` open the run a row names.
"""

from __future__ import annotations

import os
from bisect import bisect_right
from itertools import accumulate
from pathlib import Path

from ..errors import RunNotFoundError
from ..ids import holds_credential, is_minted
from ..secrets.disguise import maybe_disguised
from ..secrets.display import public_run_ids, public_runs_version, shown, shown_known
from ..secrets.guard import known_everywhere, known_shown, scrub_text
from ..secrets.hiddenparts import HIDDEN, holds_hidden, unmarked
from ..secrets.known import FRAGMENT, Known
from ..secrets.namemarks import marked

__all__ = ["shown_id", "shown_ids", "shown_parts", "found_shown"]

_MEMO_MAX = 1 << 18  # texts shown kept (a root of 100,000 runs: its ids and paths)


class _Memo:
    """Each text shown, under what ``shown`` depends on besides the text: the values learned and the environment's
    secrets (``known_shown``) and this process's public run ids (``public_run_ids``, changed when ``public_runs_version`` is)."""

    def __init__(self) -> None:
        self.known: tuple[str, ...] = ()
        self.runs = -1
        self.ids: frozenset[str] = frozenset()
        self.texts: dict[str, str] = {}
        self.disguised: set[str] = set()  # the texts that may hold a disguise (``maybe_disguised``)

    def clear(self) -> None:
        self.texts.clear()
        self.disguised.clear()


_MEMO = _Memo()


def _shown(text: str) -> str:
    """``shown(text)``, once per text while what it depends on is the same: a frame of a root of runs not named by
    minted ids reads each id and path once, and its warm reloads read none again (through the detectors' own memo of
    8,192 short texts, visited in the same order each time, a root of more runs missed it on every text). A value
    learned or a run registered since drops only the texts it may show differently (``_changed``)."""
    memo = _synced()
    texts = memo.texts
    out = texts.get(text)
    if out is None:
        if len(texts) >= _MEMO_MAX:
            memo.clear()
        out = texts[text] = _screened(text)
        if maybe_disguised(text):
            memo.disguised.add(text)
    return out


def _synced() -> _Memo:
    """The memo, brought to what ``shown`` depends on now."""
    memo = _MEMO
    now_known, now_runs = known_shown(), public_runs_version()
    if now_known is not memo.known or now_runs != memo.runs:
        _changed(memo, now_known, now_runs)
    return memo


def _changed(memo: _Memo, known: tuple[str, ...], runs: int) -> None:
    """Bring ``memo`` to the values ``known`` and the run ids of ``runs``, dropping each text ``shown`` may now show
    differently; every other is shown as it was, for these reasons:

    - a value added or taken away changes ``scrub_text`` of a text (plain: no escape, no invisible character) only
      where the value, or a cut-off start of it, stands: the text holds its first ``FRAGMENT`` characters, or all of
      a shorter one (a whole value, a cut-off one and the count of values a cut-off piece starts all need them); a
      text that may hold a disguise (``maybe_disguised``) is read against every value's pairs: dropped;
    - a run id added or forgotten changes what ``shown`` keeps whole only in a text holding it (found in the text
      as scrubbed: its pieces and ``[REDACTED]``, so in the text itself for an id without a bracket; an id with one
      drops every text)."""
    texts = memo.texts
    needles: set[str] = set()
    if known is not memo.known:
        changed = set(known).symmetric_difference(memo.known)
        needles |= {value[:FRAGMENT] for value in changed if value}
        if changed:
            for text in memo.disguised:
                texts.pop(text, None)
            memo.disguised.clear()
    if runs != memo.runs:
        ids = frozenset(public_run_ids())
        moved = ids.symmetric_difference(memo.ids)
        if any("[" in i or "]" in i for i in moved):
            memo.clear()
        needles |= {i for i in moved if i}
        memo.ids = ids
    if needles and texts:
        for text in _holding(list(texts), needles):
            del texts[text]
    memo.known, memo.runs = known, runs


def _holding(texts: list[str], needles: set[str]) -> list[str]:
    """The ``texts`` that hold one of ``needles`` (a few more where one spans two texts), read in one pass."""
    sep = "\0"
    blob = sep.join(texts)
    starts = list(accumulate((len(t) + 1 for t in texts[:-1]), initial=0))
    hit: set[int] = set()
    for start, end in Known(needles).starts(blob):
        hit.update(range(bisect_right(starts, start) - 1, bisect_right(starts, max(end - 1, start))))
    return [texts[i] for i in sorted(hit)]


def remembered(names: dict[str, str]) -> bool:
    """Take ``names`` (texts and their shown forms, ``shown_names`` of another process) as shown here: the caller
    vouches that they were shown under the same environment's secrets and these rules (``frames.keptframe``: the
    file's tag holds both). Taken only while this process has learned no value, as that one had not, and but for a
    name holding a run id of this process (``shown`` keeps it whole). True when every one was taken."""
    memo = _synced()
    if known_everywhere() or len(memo.texts) + len(names) >= _MEMO_MAX:
        return False
    ids = [i for i in memo.ids if i]
    taken = names if not ids else {n: s for n, s in names.items() if not any(i in n for i in ids)}
    memo.texts.update(taken)
    memo.disguised.update(n for n in taken if maybe_disguised(n))
    return len(taken) == len(names)


def shown_names(names: list[str]) -> dict[str, str] | None:
    """Each of ``names`` (the last parts of ids and paths) as ``shown_id`` shows it, for another process to take
    (``remembered``); None while this process has learned a value (``known_everywhere``). A name holding a run id of
    this process is left out (another process does not keep it whole)."""
    if known_everywhere():
        return None
    ids = public_run_ids()
    return {n: _shown(n) for n in names if not any(i in n for i in ids)}


def _screened(text: str) -> str:
    """``shown(text)``, each hidden piece marked (``namemarks.marked``), where ``text`` holds a credential of a
    known format or a secret-named value (as ids are refused for, ``ids.holds_credential``) or a value this process
    learned; a name that only looks random (a hash-named folder, an id with a suffix: ``ep_<ULID>0.zip``) is a
    name, kept as it is on disk."""
    out = shown(text)
    if out == text:
        return out
    if holds_credential(text):
        return marked(text, out)
    known = shown_known()
    return marked(text, out) if known.levels and scrub_text(text, known) != text else text


def shown_id(text: str) -> str:
    """An episode id, or a run's path or URL, as it may be shown: the run's own name (the last part) redacted by
    ``shown`` when it holds a secret, the folders above it kept as given. They are the root the caller named: screened,
    a hash-named or bucket folder (``mlruns/1/<hex>/artifacts``) read as a key and one ``[REDACTED]`` could span
    several of them, so ``row.run_dir`` named nothing. A minted id (``ep_<ULID>``, a UUID, a hex digest;
    ``ids.is_minted``) is an id, as ``validate_id`` takes it: kept without a scan (one scan of a random-looking id
    costs a millisecond; a root holds 100,000 runs)."""
    head, sep, name = text.rpartition("/")
    return text if is_minted(name) else head + sep + _shown(name)


def shown_ids(texts: list[str]) -> list[str]:
    """``shown_id`` of each of ``texts``, what it is shown under read once for all of them (per text, reading the
    values known and the environment cost ~5 us: a frame of 100,000 runs not named by minted ids shows 200,000)."""
    memo = _synced()
    get, out = memo.texts.get, []
    for text in texts:
        head, sep, name = text.rpartition("/")
        if is_minted(name):
            out.append(text)
            continue
        new = get(name)
        out.append(head + sep + (new if new is not None else _shown(name)))
    return out


def shown_parts(text: str) -> str:
    """A file's path in a problem as it may be shown: each part screened alone (the run folder among them is not known
    here), so a redaction never spans a ``/`` and the path's shape stays readable."""
    return "/".join(part if not part or is_minted(part) else _shown(part) for part in text.split("/"))


def _could_show_as(name: str, part: str) -> bool:
    """A cheap test before ``shown``: ``name`` starts and ends as ``part`` does around its first and last hidden part."""
    spans = [m.span() for m in HIDDEN.finditer(part)]
    head, tail = part[: spans[0][0]], part[spans[-1][1] :]
    return name != part and len(name) >= len(head) + len(tail) and name.startswith(head) and name.endswith(tail)


def _shows_as(name: str, part: str) -> bool:
    """Whether ``name`` is shown as ``part``: marked as ``shown_id`` shows it, or bare (``[REDACTED]``, as names were
    shown before marks: a path copied from an older output still opens the one run it can name)."""
    out = _shown(name)
    return out == part or unmarked(out) == part


def found_shown(path: Path) -> Path:
    """``path`` itself, or, when it names nothing and holds a hidden part (``[REDACTED:<mark>]``), the path whose
    shown form it is.

    Each missing part holding one is looked for among its parent's entries. A mark names one of them (two tokens
    are marked apart); a bare ``[REDACTED]`` that several show as is no address: ``RunNotFoundError`` names how
    many and how to tell them apart."""
    text = str(path)
    if not holds_hidden(text) or os.path.lexists(path):
        return path
    parts = path.parts
    at = Path(parts[0])
    for part in parts[1:]:
        step = at / part
        if holds_hidden(part) and not os.path.lexists(step):
            try:
                names = os.listdir(at)
            except OSError:
                return path
            hits = [n for n in sorted(names) if _could_show_as(n, part) and _shows_as(n, part)]  # as shown_id shows it
            if len(hits) > 1:
                raise RunNotFoundError(
                    f"{shown_parts(str(step))!r} is how {len(hits)} folders of {shown_parts(str(at))!r} are shown (each "
                    "name holds a credential): no one of them is meant. Open each by the path a frame or list_runs() "
                    "shows now (its [REDACTED:<mark>] names one), or rename them to plain ids"
                )
            if not hits:
                return path
            step = at / hits[0]
        at = step
    return at
