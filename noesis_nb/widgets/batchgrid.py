"""What the batch grid shows, computed without widgets: figures of the whole batch and one line per episode.

``BatchFigures`` keeps each entry's tokens and cost (priced like the episode view's header, from
its model calls) and updates only the entries that changed, so a redraw of a 5,000-episode batch
looks at the changed entries plus one pass over the statuses. ``pick`` chooses which rows to show
when there are more than fit: the ones that need a person or went wrong first, then the running,
then the latest finished, then the next queued.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..store.artifacts import read_summary
from ..store.vocab import TERMINAL_STATUSES, failed
from .meter import CostMeter, cost_words
from .render import UNKNOWN_SIGN, badge_html, esc, says_rejected, short, shown_status
from .state import Tally, format_elapsed, format_seconds, no_calls, run_times, running_words
from .theme import STATUS_HUES

__all__ = ["BatchFigures", "key_of", "pick", "rank", "entry_line", "grid_table", "header_line", "GRID_HEAD"]


def rank(status: str) -> int:
    """Which rows a grid shows first: waiting for a person, failed, running, finished, then not started."""
    status = "vetoed" if status == "rejected" else status  # the word shown for a run vetoed by a rejection
    if status == "paused":
        return 0
    if failed(status) and status != "cancelled":
        return 1
    if status == "running":
        return 2
    return 3 if status in TERMINAL_STATUSES else 4


_COLUMNS = ("#", "task", "adapter", "status", "score", "cost", "time")
_WORD_COLUMNS = frozenset({"task", "adapter", "status", "score"})
GRID_HEAD = '<div class="nnb-grid-line nnb-grid-head nnb-muted">' + "".join(f"<b>{h}</b>" for h in _COLUMNS) + "</div>"


def key_of(entry: Any) -> tuple[int, str]:
    """An entry's key: its task index and adapter (a task runs once with each adapter)."""
    return entry.index, str(entry.adapter)


def _source_of(entry: Any) -> Any:
    return entry.handle if entry.handle is not None else getattr(entry, "disk", None)


def _calls_of(entry: Any) -> Sequence[Mapping[str, Any]]:
    source = _source_of(entry)
    calls = getattr(source, "usage_calls", None) if source is not None else None
    return calls or ()


class BatchFigures:
    """Counts, tokens, cost, throughput and ETA of a batch; ``update(entries)`` after entries changed."""

    def __init__(self) -> None:
        # entry key -> (input, output) of an entry with model calls (or known to have made none); None: a total its
        # run does not know
        self.tokens: dict[tuple[int, str], tuple[int | None, int | None]] = {}
        self.costs: dict[tuple[int, str], float | None] = {}
        self.unpriced: set[tuple[int, str]] = set()
        self.priced = False  # prices were ready at the last update (until then costs read "…")
        self._meters: dict[tuple[int, str], CostMeter] = {}  # one per entry: each prices only the calls added since its last look
        # entry key -> True for an entry whose run ended vetoed because a tool call was rejected (read once it ends)
        self.rejected: dict[tuple[int, str], bool] = {}
        # entry key -> (its run's source, the tally of the events seen of it): each line's running time and wait for
        # people by the episode view's own clock (``state.RunClock``)
        self._tallies: dict[tuple[int, str], tuple[Any, Tally]] = {}

    def update(self, entries: Iterable[Any]) -> None:
        """Take in the entries that changed (all of them the first time prices are ready)."""
        self.priced = bool(CostMeter.ready())
        for entry in entries:
            key = key_of(entry)
            if entry.status != "vetoed":
                self.rejected.pop(key, None)
            elif key not in self.rejected:  # its summary's reasons, read once (a vetoed run is sealed)
                run_dir = getattr(entry, "run_dir", None)
                self.rejected[key] = run_dir is not None and says_rejected(read_summary(Path(run_dir)))
            self._follow(key, entry)
            usage = entry.usage or {}
            none_made = no_calls(usage)  # a run that made no model call: 0 tokens, $0.00 (runs_df's figures)
            if usage.get("model_calls") or none_made:
                self.tokens[key] = (_count(usage.get("input_tokens")), _count(usage.get("output_tokens")))
            else:  # no call yet (or the entry runs again): nothing to add, known or not
                self.tokens.pop(key, None)
            if not self.priced:
                continue
            meter = self._meters.get(key)
            if meter is None:
                meter = self._meters[key] = CostMeter()
            calls = _calls_of(entry)
            cost, unpriced = meter.total(calls)
            self.costs[key] = 0.0 if none_made and not calls else cost
            if unpriced:
                self.unpriced.add(key)
            else:
                self.unpriced.discard(key)

    def _follow(self, key: tuple[int, str], entry: Any) -> None:
        """Feed the entry's new events to its tally (a new run of the entry starts a new one)."""
        source = _source_of(entry)
        events = getattr(source, "events", None) if source is not None else None
        if not isinstance(events, list):
            self._tallies.pop(key, None)
            return
        kept = self._tallies.get(key)
        if kept is None or kept[0] is not source or len(events) < kept[1].total:
            kept = self._tallies[key] = (source, Tally(keep=8))
        tally = kept[1]
        if len(events) > tally.total:
            tally.extend(events[tally.total :])

    def time_text(self, entry: Any, now: float | None = None) -> str:
        """An entry's running time with its wait for people apart, as its episode view's header says it."""
        status = str(entry.status)
        kept = self._tallies.get(key_of(entry))
        if kept is None or kept[1].clock.first is None:  # no event seen of it: its wall time
            return format_elapsed(entry.started_at, entry.ended_at, status, now) if entry.started_at else "—"
        return running_words(*run_times(kept[0], kept[1], status, now))

    def status_of(self, entry: Any) -> str:
        """The word the grid shows for an entry's status (``render.shown_status``: ``rejected`` for a run vetoed
        because a tool call was rejected)."""
        return shown_status(str(entry.status), self.rejected.get(key_of(entry), False))

    def shown_counts(self, counts: Mapping[str, int]) -> dict[str, int]:
        """``counts`` by status with the rejected runs counted apart from the vetoed ones, as their badges say."""
        shown = dict(counts)
        rejected = min(sum(self.rejected.values()), counts.get("vetoed", 0))
        if rejected:
            shown["vetoed"] -= rejected
            if not shown["vetoed"]:
                del shown["vetoed"]
            shown["rejected"] = rejected
        return shown

    def cost_text(self, key: tuple[int, str] | None = None) -> str:
        ready = CostMeter.ready()
        if not ready:
            return "…" if ready is None else "—"
        if key is not None:  # an entry's line: marked as its episode view's header marks a partial cost
            return cost_words(self.costs.get(key), int(key in self.unpriced))
        known = [c for c in self.costs.values() if c is not None]
        return cost_words(sum(known) if known else None, len(self.unpriced))

    def token_text(self) -> str:
        """``"1,234 in · 56 out"`` over the entries with model calls: ``≥ N`` when some entry's total is unknown
        (N: the known ones), ``—`` when none is known; never an unknown count read as 0."""
        if not self.tokens:
            return "—"
        return f"{_sum_text([t[0] for t in self.tokens.values()])} in · {_sum_text([t[1] for t in self.tokens.values()])} out"


def _count(value: Any) -> int | None:
    return value if type(value) is int else None


def _sum_text(values: list[int | None]) -> str:
    known = [v for v in values if v is not None]
    if not known:
        return UNKNOWN_SIGN
    return ("≥ " if len(known) < len(values) else "") + f"{sum(known):,}"


def rate_and_eta(counts: Mapping[str, int], started_at: float | None, now: float, waited: float = 0.0) -> tuple[str, str]:
    """``(episodes/min, ETA)`` from the finished count and the batch's working time: from its start to ``now`` (or
    its end), less the ``waited`` seconds it only waited for people."""
    finished = sum(n for s, n in counts.items() if s in TERMINAL_STATUSES)
    left = counts.get("queued", 0) + counts.get("running", 0)
    if not started_at or finished == 0:
        return "—", "—"
    elapsed = max(now - float(started_at) - waited, 1e-6)
    per_s = finished / elapsed
    if left == 0:
        return f"{per_s * 60:,.1f}/min", ("waiting for people" if counts.get("paused") else "done")
    return f"{per_s * 60:,.1f}/min", format_seconds(left / per_s)


def header_line(handle: Any, counts: Mapping[str, int], figures: BatchFigures, now: float | None = None) -> str:
    """Batch id and status, counts by status, throughput, ETA, tokens and cost so far."""
    now = time.time() if now is None else now
    end = handle.ended_at or now
    waiting = getattr(handle, "waiting_s", None)  # time only waiting for people: counted apart, as an episode's view does
    waited = float(waiting(end)) if callable(waiting) else 0.0
    rate, eta = rate_and_eta(counts, handle.started_at, end, waited)
    took = running_words(max(0.0, end - float(handle.started_at) - waited) if handle.started_at else None, waited)
    shown = figures.shown_counts(counts)
    by_status = " ".join(
        f'<span class="nnb-badge nnb-c-{_hue(s)}">{esc(s)} {shown[s]:,}</span>' for s in sorted(shown, key=lambda s: (rank(s), s))
    )
    total = sum(counts.values())
    return (
        f'<div class="nnb-h"><b>{esc(handle.batch_id)}</b> {badge_html(str(handle.status))} '
        f'<span class="nnb-muted">{total:,} episodes</span><br>{by_status}<br>'
        f'<span class="nnb-muted">throughput {esc(rate)} · ETA {esc(eta)} · '
        f"tokens {esc(figures.token_text())} · cost {esc(figures.cost_text())} · "
        f"running time {esc(took)}"
        "</span></div>"
    )


def _hue(status: str) -> str:
    return STATUS_HUES.get(status, "grey")


def _cells(entry: Any, figures: BatchFigures, now: float | None) -> list[str]:
    """An entry's cells, escaped: index, task, adapter, status badge, score, cost, time."""
    if entry.score is None:
        score = "—"
    else:
        score = ("yes" if entry.score else "no") if isinstance(entry.score, bool) else f"{entry.score:g}"
    status = str(entry.status)
    if status == "paused":
        took = "waiting"  # for a person: not time the episode ran
    else:
        took = figures.time_text(entry, now)
    return [
        f"<span>{entry.index}</span>",
        f"<span>{esc(short(entry.task, 60))}</span>",
        f"<span>{esc(entry.adapter)}</span>",
        badge_html(figures.status_of(entry)),
        f"<span>{esc(score)}</span>",
        *(f'<span title="{esc(text)}">{esc(text)}</span>' for text in (figures.cost_text(key_of(entry)), took)),  # whole if cut
    ]


def entry_line(entry: Any, figures: BatchFigures, now: float | None = None) -> str:
    """``#3 task · adapter · status · score · cost · time`` as one grid line (escaped)."""
    return f'<div class="nnb-grid-line">{"".join(_cells(entry, figures, now))}</div>'


def grid_table(entries: Sequence[Any], figures: BatchFigures, now: float | None = None) -> str:
    """The grid as an HTML table, for the saved snapshot: a page that drops the view's stylesheet (JupyterLab and
    Jupyter Notebook with an untrusted notebook, GitHub) still shows its columns, where the grid's lines would run
    their cells together (``35write the note…carefulokyes$0.0003``)."""
    # each cell's alignment said in it too: a page that drops the stylesheet (an untrusted notebook) keeps the
    # words reading from the left and the figures from the right
    aligns = [f' style="text-align:{"left" if name in _WORD_COLUMNS else "right"}"' for name in _COLUMNS]
    head = "".join(f"<th{a}>{h}</th>" for a, h in zip(aligns, _COLUMNS))
    rows = "".join(f"<tr>{''.join(f'<td{a}>{c}</td>' for a, c in zip(aligns, _cells(e, figures, now)))}</tr>" for e in entries)
    return f'<table class="nnb-grid-table"><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>'


def pick(entries: Sequence[Any], limit: int) -> list[Any]:
    """At most ``limit`` entries: paused and failed first, then running, then the latest finished, then queued."""
    buckets: dict[int, list[Any]] = {}
    for entry in entries:
        buckets.setdefault(rank(entry.status), []).append(entry)
    out: list[Any] = []
    for level in sorted(buckets):
        bucket = buckets[level]
        if level in (1, 3):
            bucket = sorted(bucket, key=lambda e: -(e.ended_at or 0))  # the latest finished first
        out.extend(bucket[: limit - len(out)])
        if len(out) >= limit:
            break
    return out
