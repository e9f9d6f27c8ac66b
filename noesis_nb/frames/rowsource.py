"""The ``source`` column: which system a row came from (an integration, noesis_nb's engine, or Noēsis).

A run's source is its ``tags.source`` when that names an integration, else ``noesis_nb`` when
its document carries the ``x-noesis_nb`` extension (the engine writes it), else ``noesis``. The
document is ``summary.json``, or ``state.json`` (``episode.tags``) while there is no summary.
``state.json`` holds the tags before the first event and the summary copies them, so a run's
source does not change unless someone edits those documents: the events frame caches it with
the run's events, stamped with the document's stat.
An event's source is its ``payload.source`` when that names an integration, else its run's:
other values (Noēsis' plan events say ``"planner.minimal"``) are not systems.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import orjson
import pandas as pd

from .._jsonkeys import screened
from ..store.facts import ENGINE, NOESIS, SYSTEMS, run_source
from .fs import BadFile

__all__ = [
    "SYSTEMS",
    "ENGINE",
    "NOESIS",
    "run_source",
    "read_run_source",
    "read_run_source_stamped",
    "system_rows",
    "source_column",
]


def read_run_source(ref: Any) -> str:
    """Read just enough of a run to name its source: ``summary.json``, else ``state.json``.

    Unreadable documents are skipped quietly here (``runs_df`` reports them).
    """
    for name in ("summary.json", "state.json"):
        data = _read(ref, name)
        if data is None:
            continue
        source = _named(data)
        if source is not None:
            return source
    return NOESIS


def read_run_source_stamped(ref: Any) -> tuple[str, tuple[str, Any]]:
    """``read_run_source`` and which document names it with that document's stat, from the reads themselves.

    The stat is ``("summary.json", its stat)`` when the run has a summary, else ``("state.json", its stat or
    None)``, as a ``stat`` of each taken before reading would say (a read's stat is taken before its bytes are
    read): a cold load then costs no ``stat`` call of its own per run. A document that is no readable file of
    the run (a folder, a link out of it) is stat-ed as before.
    """
    stamps: dict[str, Any] = {}
    source = None
    for name in ("summary.json", "state.json"):
        try:
            got = ref.read(name)
        except BadFile:
            stamps[name] = ref.fs.stat(ref.file(name))
            continue
        if got is None:
            stamps[name] = None
            continue
        data, stamps[name] = got
        source = _named(data)
        if source is not None:
            break
    summary = stamps["summary.json"]
    named_by = ("summary.json", summary) if summary is not None else ("state.json", stamps["state.json"])
    return (NOESIS if source is None else source), named_by


def _named(data: bytes) -> str | None:
    """The source a document's bytes name; None when they are no JSON object (the next document is asked)."""
    quick = _without_tag(data)
    if quick is not None:
        return quick
    try:
        doc = orjson.loads(data)
    except orjson.JSONDecodeError:
        return None
    # a key written twice (``"source"`` twice in its tags) names no source: read as unknown, reported by runs_df
    return run_source(screened(data, doc)[0]) if type(doc) is dict else None


def _without_tag(data: bytes) -> str | None:
    """The source of a whole JSON object with no ``"source"`` key anywhere, without parsing it; None: parse it.

    Then only the ``x-noesis_nb`` key decides (a key, not a value: a colon follows it; escaped
    text inside a string cannot match). This skips most of the cost for engine summaries.
    """
    body = data.strip()
    if body.find(b'"source"') != -1 or not (body.startswith(b"{") and body.endswith(b"}")):
        return None
    at = body.find(b'"x-noesis_nb"')
    while at != -1:
        if body[at + 13 : at + 45].lstrip()[:1] == b":":
            return ENGINE
        at = body.find(b'"x-noesis_nb"', at + 13)
    return NOESIS


def _read(ref: Any, name: str) -> bytes | None:
    """A small document's bytes; None when absent or not a readable file of the run (``runs_df`` reports those)."""
    try:
        got = ref.read(name)
    except BadFile:
        return None
    return None if got is None else got[0]


def system_rows(payloads: list[Any], sources: list[Any] | None = None) -> tuple[tuple[int, str], ...]:
    """``(position, system)`` of the payloads (dicts) whose ``source`` names an integration; usually none.

    ``sources``: their ``payload.source`` values when the caller has read them already.
    """
    raw = [p.get("source") for p in payloads] if sources is None else sources
    try:
        if SYSTEMS.isdisjoint(raw):
            return ()
    except TypeError:  # an unhashable payload.source (a list, a dict): not a system
        pass
    return tuple((i, s) for i, s in enumerate(raw) if type(s) is str and s in SYSTEMS)


def source_column(run_sources: list[str], systems: list[Sequence[tuple[int, str]]], lengths: list[int]) -> pd.Categorical:
    """The events' ``source``: each run's source over its rows, replaced where ``system_rows`` found a system."""
    names = sorted({*run_sources, *(s for found in systems for _, s in found)})
    code = {name: i for i, name in enumerate(names)}
    codes = np.repeat(np.array([code[s] for s in run_sources], dtype=np.int8), lengths)
    start = 0
    for found, n in zip(systems, lengths):
        if found:
            codes[[start + i for i, _ in found]] = [code[s] for _, s in found]
        start += n
    return pd.Categorical.from_codes(codes, categories=pd.Index(names, dtype="str"))
