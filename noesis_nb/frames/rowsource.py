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

from ..store.facts import ENGINE, NOESIS, SYSTEMS, run_source
from .fs import BadFile

__all__ = ["SYSTEMS", "ENGINE", "NOESIS", "run_source", "read_run_source", "system_rows", "source_column"]


def read_run_source(ref: Any) -> str:
    """Read just enough of a run to name its source: ``summary.json``, else ``state.json``.

    Unreadable documents are skipped quietly here (``runs_df`` reports them).
    """
    for name in ("summary.json", "state.json"):
        data = _read(ref, name)
        if data is None:
            continue
        quick = _without_tag(data)
        if quick is not None:
            return quick
        try:
            doc = orjson.loads(data)
        except orjson.JSONDecodeError:
            continue
        if type(doc) is dict:
            return run_source(doc)
    return NOESIS


def _without_tag(data: bytes) -> str | None:
    """The source of a whole JSON object with no ``"source"`` key anywhere, without parsing it; None: parse it.

    Then only the ``x-noesis_nb`` key decides (a key, not a value: a colon follows it; escaped
    text inside a string cannot match). This skips most of the cost for engine summaries.
    """
    body = data.strip()
    if b'"source"' in body or not (body.startswith(b"{") and body.endswith(b"}")):
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
