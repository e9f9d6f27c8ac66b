"""``usage_df``: one row per model call (``model.call`` events), priced now from its tokens."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import orjson
import pandas as pd

from .._jsonkeys import colons, may_repeat, repeated_reason, without_repeats
from .._keywords import keywords_named
from ..cost import LOG_CHANGED, Pricer, price_frame
from ..secrets.quoted import quoted
from ..store.eventlog import bad_line_reason
from ..store.vocab import MODEL_CALL, PRICED_COUNTS
from . import _arrays
from .cache import MEMO
from .columns import USAGE_COLUMNS, Column, check_columns
from .eventblocks import load_events
from .eventcheck import check_calls, misplaced_call_reason, slip_reason, slipped_call
from .eventids import any_repeated, repeated_ids
from .extravalues import extra_series
from .gcpause import without_gc
from .learnedtext import learned_hidden
from .loadwarning import warn_of_problems
from .problems import CUT_IN_SEALED_RUN, LoadProblem, Problems
from .sealsizes import is_seal_change
from .shownids import ids_shown
from .source import (
    Source,
    distinct_runs,
    episode_filter,
    named_runs,
    resolve_source,
    source_label,
    stray_runs,
    unmatched_episodes,
)
from .values import RULES

__all__ = ["usage_df", "scan_model_calls", "calls_frame", "call_counts", "MODEL_CALL"]

MODEL_CALL = MODEL_CALL
# the lines looked at: model.call's (with or without its quotes: a slip such as "model.call " is reported) and
# model_call's; a slip of case (Model.Call) is said by the event frames only
_NEEDLES = (b"model.call", b"model_call")


def scan_model_calls(
    data: bytes, url: str, problems: list[LoadProblem], *, sealed: bool = False
) -> list[tuple[str | None, dict[str, Any]]]:
    """(timestamp, payload) of each model.call line, parsing only lines that mention ``model.call``/``model_call`` or
    hold an escape; a name that is model.call but for a slip (``"model.call "``, ``model_call``) is reported.

    A cut last line is one still being written, unless the run is ``sealed``: then it is reported as events_df does.
    The calls' fields are checked as the event frames check them (``check_calls``), and a call whose id an
    earlier call has is reported (``eventids``): a line written twice would count twice.
    """
    out: list[tuple[Any, dict[str, Any]]] = []
    starts: list[int] = []  # where each call's line starts, for the line numbers of a problem
    ids: list[Any] = []
    read: list[tuple[int, int, Any]] = []
    for start, end in _candidate_lines(data):
        try:
            read.append((start, end, orjson.loads(data[start:end])))
        except orjson.JSONDecodeError as exc:
            if end < len(data):  # a cut last line is a line still being written (see below for a sealed run)
                number = data.count(b"\n", 0, start) + 1  # the reason parse_lines gives the line: one problem
                problems.append(LoadProblem(url, number, bad_line_reason(data[start:end], exc)))
    _without_repeated_keys(data, read, url, problems)
    for start, _end, event in read:
        if type(event) is dict:
            payload = event.get("payload")
            name = payload.get("event_name") if type(payload) is dict else None
            if name == MODEL_CALL and type(payload) is dict and event.get("phase") == "model":
                out.append((event.get("timestamp"), payload))
                starts.append(start)
                ids.append(event_id if type(event_id := event.get("id")) is str else None)  # events_df reads no other
            elif name == MODEL_CALL:  # under another phase: as the event frames say it (``eventcheck``)
                reason = misplaced_call_reason(event.get("phase"))
                problems.append(LoadProblem(url, data.count(b"\n", 0, start) + 1, reason))
            elif type(name) is str and slipped_call(name):
                reason = slip_reason("payload.event_name", name, MODEL_CALL)
                problems.append(LoadProblem(url, data.count(b"\n", 0, start) + 1, reason))
    if out:
        _check_calls(data, url, problems, out, starts, ids)
    if sealed and not data.endswith(b"\n") and data.strip():  # cut, whether or not what is left names a model call
        start = data.rfind(b"\n") + 1
        try:
            orjson.loads(data[start:])
        except orjson.JSONDecodeError:
            problems.append(LoadProblem(url, data.count(b"\n") + 1, CUT_IN_SEALED_RUN))
    return out


def _without_repeated_keys(data: bytes, read: list[tuple[int, int, Any]], url: str, problems: list[LoadProblem]) -> None:
    """Each line of ``read`` (start, end, value) that writes a key twice read again with that key unknown, and
    reported at its line, as ``events_df`` does (``_jsonkeys``); one re-serialisation of all when none does."""
    values = [value for _, _, value in read]
    if not may_repeat(sum(colons(data, start, end) for start, end, _ in read), values):
        return
    for index, (start, end, value) in enumerate(read):
        if may_repeat(colons(data, start, end), value):
            fixed, keys = without_repeats(data[start:end])
            if keys:
                read[index] = (start, end, fixed)
                problems.append(LoadProblem(url, data.count(b"\n", 0, start) + 1, repeated_reason(keys)))


def _candidate_lines(data: bytes) -> list[tuple[int, int]]:
    """(start, end) of each line that may hold a model call, in file order: those naming ``model.call`` or its slips, and
    those holding a ``\\u`` escape (``model\\u002ecall`` is model.call to every JSON reader; rare but for old logs)."""
    found: dict[int, int] = {}
    find = data.find
    escaped = b"\\" in data and find(_ESCAPE) != -1  # one byte by memchr first: most logs without one are done
    for needle in (*_NEEDLES, _ESCAPE) if escaped else _NEEDLES:
        i = find(needle)
        while i != -1:
            start = data.rfind(b"\n", 0, i) + 1
            end = find(b"\n", i)
            if end == -1:
                end = len(data)
            found[start] = end
            i = find(needle, end)
    return sorted(found.items())


_ESCAPE = b"\\u"


def _check_calls(
    data: bytes, url: str, problems: list[LoadProblem], calls: list[tuple[Any, dict[str, Any]]], starts: list[int], ids: list[Any]
) -> None:
    """Report the scanned calls' bad fields and repeated ids, each at its line (counted only for a call reported)."""

    def line(j: int) -> int:
        return data.count(b"\n", 0, starts[j]) + 1

    bad = check_calls([payload for _, payload in calls])
    if any_repeated(ids):
        bad = sorted(bad + repeated_ids(ids, line), key=lambda item: item[0])
    problems.extend(LoadProblem(url, line(j), reason) for j, reason in bad)


def _numbers(values: list[Any], rule: str) -> np.ndarray:
    """Token counts (``count``) or latencies and costs (``nonneg``) as float64; what breaks the rule → NaN.

    None, strings (even ``"12"``), bools, negatives and non-finite numbers are unknown, never a
    plausible number (``values.RULES``; events_df reports them with their line).
    """
    ok = RULES[rule].ok
    return np.array([v if ok(v) else np.nan for v in values], dtype=np.float64)


def _unknown_conflicts(data: dict[str, Any]) -> None:
    """Counts whose parts exceed their total cannot all be right: the total and its parts become unknown."""
    inp, cached, written = data["input_tokens"], data["cached_input_tokens"], data["cache_write_input_tokens"]
    over = np.nan_to_num(cached) + np.nan_to_num(written) > inp  # NaN total: False
    if over.any():
        for name in ("input_tokens", "cached_input_tokens", "cache_write_input_tokens"):
            data[name] = np.where(over, np.nan, data[name])
    out, reasoning = data["output_tokens"], data["reasoning_tokens"]
    over = reasoning > out
    if over.any():
        for name in ("output_tokens", "reasoning_tokens"):
            data[name] = np.where(over, np.nan, data[name])


def call_counts(payloads: list[dict[str, Any]]) -> dict[str, np.ndarray]:
    """Each call's counts by ``PRICED_COUNTS`` as float64, unknown (NaN) when not a count or in conflict.

    The ``BILLED_COUNTS`` price the call (``cost``) and are columns of ``usage_df`` too (``reprice`` prices them
    again); an hour-long cache-write part above the call's cache writes is unknown (priced as none)."""
    data = {name: _numbers([p.get(name) for p in payloads], "count") for name in PRICED_COUNTS}
    _unknown_conflicts(data)
    hour = data["cache_write_1h_input_tokens"]
    data["cache_write_1h_input_tokens"] = np.where(hour > data["cache_write_input_tokens"], np.nan, hour)
    return data


def calls_frame(
    episode_ids: list[Any],
    timestamps: Sequence[Any] | pd.Series,
    payloads: Iterable[dict[str, Any]],
    sources: Any = None,
) -> pd.DataFrame:
    """The unpriced usage columns from parallel lists (timestamps: ISO-8601 text, or a Series of times).

    ``sources`` (the events' ``source`` values) adds the ``source`` column; ``runs_df`` needs none.
    """
    payloads = list(payloads)
    keys = {
        "latency_ms": "latency_ms",
        "reported_cost_usd": "cost_usd",
    }
    if isinstance(timestamps, pd.Series) and pd.api.types.is_datetime64_any_dtype(timestamps.dtype):
        ts = pd.Series(timestamps.dt.tz_convert("UTC").dt.as_unit("us").array)  # already times (the events' column)
    else:  # ISO-8601 text; anything else (missing, a number, a word, an impossible date) is unknown
        ts = _arrays.series_of("datetime", [t if type(t) is str else None for t in timestamps])
    data: dict[str, Any] = {"episode_id": _arrays.series_of("str", episode_ids)}
    if sources is not None:
        data["source"] = sources
    data["timestamp"] = ts
    for name in ("provider", "model"):
        data[name] = _arrays.series_of("category", [v if type(v := p.get(name)) is str else None for p in payloads])
    data.update(call_counts(payloads))
    for name, key in keys.items():
        data[name] = _numbers([p.get(key) for p in payloads], "nonneg")
    return pd.DataFrame(data)


@without_gc
@keywords_named
def usage_df(
    source: Source = None,
    *,
    prices: Any = None,
    episodes: str | Iterable[str] | None = None,
    columns: Sequence[Column] | None = None,
    strict: bool = False,
    cache: bool = True,
    progress: bool | None = None,
    storage_options: dict[str, Any] | None = None,
) -> pd.DataFrame:
    """One row per model call: ``USAGE_COLUMNS`` then any extra ``columns`` (paths like ``"payload.x"``).

    ``cost_usd`` is computed now from the tokens with ``prices`` (a ``PriceTable``, dict, YAML or
    CSV path) over genai-prices; ``df.attrs`` records ``price_source`` and ``price_version``.
    ``reported_cost_usd`` is the provider's own figure from run time, kept apart. A call not priced (``priced``
    False, ``cost_usd`` NaN) says why in ``unpriced_reason`` (``cost.UNPRICED_REASONS``): ``"no price for model"``
    (add it with ``prices=``) apart from a priced model's ``"output tokens unknown"`` (or input, or both: the run
    did not report them), and ``"log changed since its seal"``; <NA> for a priced call.
    """
    extras = check_columns(columns, USAGE_COLUMNS, "usage_df", ("payload",))
    wanted = episode_filter(episodes)
    refs = resolve_source(source, storage_options=storage_options, episodes=wanted)
    problems = Problems(strict)
    problems.extend(unmatched_episodes(wanted, refs, source))
    problems.extend(stray_runs(source, wanted, refs))
    refs = distinct_runs(named_runs(refs, problems), problems)
    loaded = load_events(refs, problems, use_cache=cache, show_progress=progress)
    cols = loaded.columns
    memo_key = ("usage", tuple((c.name, c.path, id(c.fn), c.type) for c in extras), tuple(loaded.names))
    hit = MEMO.get(memo_key, (cols,)) if cache else None  # the same cached events: the same calls
    if hit is None:
        # a model call is a ``model`` event named ``model.call`` (``store.facts.is_model_call``): the summary, runs_df
        # and show() count no other; one under another phase is reported by the event checks, counted by none
        mask = np.asarray(cols["event_name"] == MODEL_CALL, dtype=bool) & np.asarray(cols["phase"] == "model", dtype=bool)
        payloads = [p if type(p) is dict else {} for p in cols["payload"][mask]]
        episode_ids = list(np.asarray(cols["episode_id"])[mask])
        stamps = pd.Series(cols["timestamp"])[mask]
        sources = pd.Series(cols["source"])[mask].reset_index(drop=True).cat.remove_unused_categories()
        calls = calls_frame(episode_ids, stamps, payloads, sources=sources)
        odd: list[LoadProblem] = []
        events_of = {ref.name: ref.fs.url(ref.file("events.jsonl")) for ref in refs}
        places = [events_of.get(name, str(name)) for name in episode_ids]
        for column in extras:
            calls[column.name], found = extra_series(column, [column.value({"payload": p}) for p in payloads], places)
            odd.extend(found)
        hit = (calls, odd)
        if cache:
            MEMO.put(memo_key, (cols,), hit)
    calls, odd = hit
    problems.extend(odd)
    pricer = Pricer.from_spec(prices)
    dated = cache and not calls["timestamp"].isna().any()  # a call without a time is priced at today's rates
    priced_key = ("usage-priced", memo_key, pricer.version)
    df = MEMO.get(priced_key, (calls,)) if dated else None
    if df is None:
        df = price_frame(calls, pricer)
        if dated:
            MEMO.put(priced_key, (calls,), df)
    order = list(USAGE_COLUMNS) + [c.name for c in extras]
    df = df[order]  # a new frame: the memoised one is never handed out
    _unknown_where_log_changed(df, refs, problems.items)
    for name in PRICED_COUNTS:  # float64 while summed and priced; handed out as nullable integers
        df[name] = _arrays.counts(df[name].to_numpy(dtype=float, na_value=np.nan))
    unmatched: dict[str, Any] = {}
    if pricer.table is not None:
        found, unmatched["price_table_unmatched"] = _unused_prices(pricer, df, source)
        problems.extend(found)
    df.attrs = {**df.attrs, **unmatched, "errors": problems.as_records()}
    warn_of_problems("usage_df", df.attrs["errors"], refs)
    return ids_shown(learned_hidden(df, loaded.revealed), revealed=loaded.revealed_ids)


#: the figures of a call read from a sealed log changed since its seal: unknown, as ``runs_df``'s totals of that run
_LOST_FIGURES = (*PRICED_COUNTS, "cost_usd", "reported_cost_usd")


def _unknown_where_log_changed(df: pd.DataFrame, refs: Sequence[Any], problems: list[LoadProblem]) -> None:
    """The calls of each run whose sealed ``events.jsonl`` is not as its manifest lists it (``sealsizes``, reported
    once by ``load_events``) kept as the log now reads them, their tokens and costs unknown and not priced:
    ``runs_df`` says that run's model calls, tokens and cost are unknown, and a sum of this frame must not say
    otherwise (``skipna=False`` is NaN, as the sum of ``runs_df.cost_usd`` is)."""
    changed = {p.path for p in problems if is_seal_change(p)}
    if not changed:
        return
    lost = [ref.name for ref in refs if ref.fs.url(ref.file("events.jsonl")) in changed]
    if not lost:
        return
    rows = np.asarray(df["episode_id"].isin(lost), dtype=bool)
    if not rows.any():
        return
    for name in _LOST_FIGURES:
        df[name] = np.where(rows, np.nan, df[name].to_numpy(dtype=float, na_value=np.nan))
    df["priced"] = df["priced"].to_numpy(dtype=bool) & ~rows
    df["price_source"] = df["price_source"].mask(pd.Series(rows, index=df.index))
    df["unpriced_reason"] = df["unpriced_reason"].mask(pd.Series(rows, index=df.index), LOG_CHANGED)


_MAX_COMPARISONS = 50_000  # name pairs compared at most: the check is a hint, not worth seconds of a frame


def _unused_prices(pricer: Pricer, df: pd.DataFrame, source: Source) -> tuple[list[LoadProblem], list[str]]:
    """The problems of a ``prices=`` table that priced fewer calls than meant, and its names that priced no call
    (``attrs["price_table_unmatched"]``: a table may cover more models than a folder calls, so they are listed, not
    warned of).

    A table model that priced no call while one close to it got another price (``gpt4o-mini`` for ``gpt-4o-mini``)
    is a typo whose calls were priced by the fallback instead. A table name next to a model the table did price
    (``claude-3-5-sonnet`` beside ``claude-3-7-sonnet``) is only unused, and a name with nothing close stays quiet.
    A table that priced none of the calls at all is said once, with the models it names and those the calls have.
    Only unused names against unpriced models are compared, and at most ``_MAX_COMPARISONS`` pairs, so a big table
    costs no more than a moment."""
    table = pricer.table
    assert table is not None
    used: set[str] = set()
    entries: set[tuple[str | None, str]] = set()  # the table's entries that priced a call
    missed: dict[str, str] = {}  # lower case -> as the calls spell it
    pairs = df[["provider", "model"]].astype(object).drop_duplicates()
    for provider, model in pairs.itertuples(index=False, name=None):
        if not isinstance(model, str):
            continue
        provider = provider if isinstance(provider, str) else None
        if (where := table.entry(model, provider)) is not None:
            entries.add(where)
            used.update({model.lower(), f"{provider}/{model}".lower()} if provider else {model.lower()})
            used.add(where[1])
        else:
            missed.setdefault(model.lower(), model)
    unmatched = sorted(name for where, name in table.names.items() if where not in entries)
    missed = {low: model for low, model in missed.items() if low not in used}
    if not missed:
        return [], unmatched
    fallback = "the genai-prices table" if pricer.use_genai else "no price (cost unknown)"
    out, budget = [], _MAX_COMPARISONS
    for name in sorted(table.models - used - missed.keys()):
        bare = name.rsplit("/", 1)[-1]  # a "provider/model" key
        if bare in used or bare in missed:
            continue
        if budget < len(missed):
            break
        budget -= len(missed)
        close = difflib.get_close_matches(bare, list(missed), n=1, cutoff=0.85)
        if close:
            problem = (
                f"prices= names {quoted(name)}, which no call has; did you mean {missed[close[0]]!r}? Its calls got {fallback}"
            )
            out.append(LoadProblem(source_label(source), None, problem))
    if not entries and not out:  # (a table's model is matched whole, or by its dated name: ``PriceTable.lookup``)
        named, called = sorted(table.names.values()), sorted(missed.values())
        problem = (
            f"prices= priced no call: it names {_few(named)} and the calls are of {_few(called)}; they got {fallback}. "
            "Key the table by a model the calls name (or its name without a date: 'gpt-4o-mini' prices "
            "'gpt-4o-mini-2024-07-18'), with a provider field where a call names its provider"
        )
        out.append(LoadProblem(source_label(source), None, problem))
    return out, unmatched


def _few(names: list[str], shown: int = 5) -> str:
    """Up to ``shown`` names quoted, and how many more."""
    more = len(names) - shown
    return ", ".join(quoted(n) for n in names[:shown]) + (f" and {more} more" if more > 0 else "")
