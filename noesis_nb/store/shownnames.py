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
from ..ids import at_labels_hidden, hidden_spans, holds_credential, is_minted, redacted_at
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
        # (a load's revealed values, a text) -> the text shown with them hidden too (``_with_revealed``): each
        # dropped whenever what ``shown`` depends on changes
        self.revealed: dict[tuple[frozenset[str], str], str | None] = {}

    def clear(self) -> None:
        self.texts.clear()
        self.disguised.clear()
        self.revealed.clear()


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
            # a text shown with a load's revealed values hidden too (``_with_revealed``) may hold a disguise alike
            memo.revealed = {key: out for key, out in memo.revealed.items() if not maybe_disguised(key[1])}
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
    if needles and memo.revealed:  # each shown as ``shown`` shows it, with those values hidden too: dropped alike
        dropped = set(_holding(list({name for _, name in memo.revealed}), needles))
        memo.revealed = {key: out for key, out in memo.revealed.items() if key[1] not in dropped}
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
    name, kept as it is on disk. A value named after a secret name and ``@`` (``ep_db_password@…``) is hidden as one
    after ``=`` is (``ids.at_labels_hidden``), as ids holding one are refused."""
    out = at_labels_hidden(text, shown(text))
    if out == text:
        return out
    if holds_credential(text):
        return marked(text, out)
    known = shown_known()
    return marked(text, out) if known.levels and scrub_text(text, known) != text else text


def _revealed_shown(memo: _Memo, name: str, revealed: frozenset[str]) -> str | None:
    """``_with_revealed``, once per name and set of values while what ``shown`` depends on is the same."""
    key = (revealed, name)
    if key in memo.revealed:
        return memo.revealed[key]
    if len(memo.revealed) >= _MEMO_MAX:
        memo.revealed.clear()
    out = memo.revealed[key] = _with_revealed(name, revealed)
    return out


def _with_revealed(name: str, revealed: frozenset[str]) -> str | None:
    """``name`` shown with each of ``revealed`` (what the runs read reveal as secrets: ``frames.runlearned``,
    ``store.revealedrun``) that stands whole in it hidden as well, each hidden piece marked as ``_screened`` marks
    it (the mark of a value hidden here is the one it has when the environment holds it); None when ``name`` holds
    none of them.

    A run naming itself by a random-looking id (``ep_01M98…HLAB1``, no ULID) has that id found by the detectors in
    its own log (its ``episode_id`` read as a key): that value is the name, no secret it holds, and is kept as
    ``_screened`` keeps such a name (a value is hidden whole, never by a cut-off start: the ids of the load's other
    runs, found so too, share the start of this one)."""
    spans = [
        (at, at + len(value))
        for value in revealed
        if value and value in name and not (value == name and shown(name) != name)
        for at in _places(name, value)
    ]
    # a run of this process's own id (``public_run_ids``) is kept whole, as ``shown`` keeps it
    kept = [(at, at + len(i)) for i in public_run_ids() if i and i in name for at in _places(name, i)]
    spans = [(a, b) for a, b in spans if not any(k0 <= a and b <= k1 for k0, k1 in kept)]
    if not spans:
        return None
    if _shown(name) != name:  # what the one rule hides besides (a token, a secret-named value)
        hidden = hidden_spans(name, at_labels_hidden(name, shown(name))) or []
        # a value the rule hides already (a token named in the run's own log): the name as the rule shows it, its
        # mark made once (a second marking of the same pieces cost a keyed hash a name on every cold load)
        spans = [(a, b) for a, b in spans if not any(h0 <= a and b <= h1 for h0, h1 in hidden)]
        if not spans:
            return None
        spans += hidden
    return marked(name, redacted_at(name, spans))


def _places(text: str, part: str) -> list[int]:
    """Where ``part`` starts in ``text``, each place."""
    found, at = [], text.find(part)
    while at >= 0:
        found.append(at)
        at = text.find(part, at + 1)
    return found


def shown_id(text: str, revealed: frozenset[str] = frozenset()) -> str:
    """An episode id, or a run's path or URL, as it may be shown: the run's own name (the last part) redacted by
    ``shown`` when it holds a secret, the folders above it kept as given. They are the root the caller named: screened,
    a hash-named or bucket folder (``mlruns/1/<hex>/artifacts``) read as a key and one ``[REDACTED]`` could span
    several of them, so ``row.run_dir`` named nothing. A minted id (``ep_<ULID>``, a UUID, a hex digest;
    ``ids.is_minted``) is an id, as ``validate_id`` takes it: kept without a scan (one scan of a random-looking id
    costs a millisecond; a root holds 100,000 runs).

    ``revealed``: what the runs read with it reveal as secrets (a run copied in, named ``ep_<password>`` and saying
    ``password=<password>`` in its events): hidden in the name too, as a value the environment holds is. Every
    reader and view that shows a run's id passes what its load, or the run, reveals."""
    head, sep, name = text.rpartition("/")
    if is_minted(name):
        return text
    if revealed and (new := _revealed_shown(_synced(), name, revealed)) is not None:
        return head + sep + new
    return head + sep + _shown(name)


def shown_ids(texts: list[str], revealed: frozenset[str] = frozenset()) -> list[str]:
    """``shown_id`` of each of ``texts``, what it is shown under read once for all of them (per text, reading the
    values known and the environment cost ~5 us: a frame of 100,000 runs not named by minted ids shows 200,000).
    ``revealed``: as for ``shown_id``; the names holding one are found in one pass over all."""
    memo = _synced()
    holding = set(_holding([t.rpartition("/")[2] for t in texts], set(revealed))) if revealed and texts else set()
    get, out = memo.texts.get, []
    for text in texts:
        head, sep, name = text.rpartition("/")
        if is_minted(name):
            out.append(text)
            continue
        if name in holding and (shown_here := _revealed_shown(memo, name, revealed)) is not None:
            out.append(head + sep + shown_here)
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
    shown before marks: a path copied from an older output still opens the one run it can name), or with each of
    ``part``'s marks that of the piece of ``name`` it stands for (a value the run's load revealed, hidden by
    ``shown_id(..., revealed)``: the marks are keyed hashes of those pieces, so they name this folder alone)."""
    out = _shown(name)
    if out == part or unmarked(out) == part:
        return True
    bare = unmarked(part)
    return bare != part and marked(name, bare) == part


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
