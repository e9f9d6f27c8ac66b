"""An imported run tells one clock everywhere: every time in its files (events, state, summary, final.json, the
manifest), the frames, the view's header and its live handle is the recorded one when the trace has times, and the
time of the import when it has none (a Taisce transcript), never a mix. Before, final.json's ``finalized_at``, the
manifest's ``created_at`` and ``handle.ended_at`` were the import's wall-clock time in a run recorded a year earlier
(a 12 s run read as a year long from its handle), and a ``RecordedReplay`` given to ``start`` or ``solve`` instead of
``import_rows`` got no clock at all: its rows' times were clamped to the import's."""

from __future__ import annotations

import asyncio
import re
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

import noesis_nb as nb
from noesis_nb.integrations.agui import agui_rows
from noesis_nb.integrations.noeta import import_noeta
from noesis_nb.integrations.noeta._envelopes import noeta_rows
from noesis_nb.integrations.replay import RecordedReplay
from noesis_nb.integrations.taisce import import_taisce, taisce_replay
from tests.integrations.test_recorded_times import T0, at, noeta_task

_ISO = re.compile(r'"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d))"')
TIMES = [0.0, 0.5, 1.0, 4.0, 4.0, 12.0]


def file_times(run: Path) -> dict[str, list[float]]:
    """Every ISO time written in the run's files, as epoch seconds, by file name."""
    found: dict[str, list[float]] = {}
    for path in sorted(run.rglob("*")):
        if path.is_file() and path.suffix in (".json", ".jsonl"):
            stamps = [datetime.fromisoformat(m.replace("Z", "+00:00")).timestamp() for m in _ISO.findall(path.read_text())]
            found[str(path.relative_to(run))] = stamps
    return found


def assert_in(run: Path, low: float, high: float) -> None:
    for name, stamps in file_times(run).items():
        outside = [s for s in stamps if not low - 1e-6 <= s <= high + 1e-6]
        assert not outside, (name, outside, low, high)
    assert file_times(run)["final.json"] and file_times(run)["manifest.json"]


def noeta_replay() -> RecordedReplay:
    return RecordedReplay(noeta_rows(noeta_task(TIMES)), source="noeta", end_names="TaskCompleted", end_required=True)


def agui_replay() -> RecordedReplay:
    ms = int(T0 * 1000)
    stream = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r", "timestamp": ms},
        {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant", "timestamp": ms + 2000},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "hello", "timestamp": ms + 3000},
        {"type": "TEXT_MESSAGE_END", "messageId": "m", "timestamp": ms + 4000},
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r", "timestamp": ms + 12000},
    ]
    return RecordedReplay(agui_rows(stream), source="agui")


def test_an_imported_run_is_sealed_at_its_recorded_end(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    run = runs / import_noeta(noeta_task(TIMES), runs_dir=runs)
    assert_in(run, T0, T0 + 12)  # final.json, manifest.json: the recorded end, as the last event
    row = nb.runs_df(runs).iloc[0]
    assert row.started_at == at(0) and row.ended_at == at(12) and row.duration_s == pytest.approx(12.0)
    assert nb.events_df(runs).timestamp.max() == at(12)
    assert re.findall(r"running time ([^<·]*?) ·", nb.show(run).snapshot_html()) == ["12.0 s"]  # the view's header


def _started(replay: RecordedReplay, runs: Path) -> Any:
    async def main() -> Any:
        handle = nb.start("recorded", using=replay, runs_dir=runs)
        await handle
        return handle

    return asyncio.run(main())


@pytest.mark.parametrize("replay", [noeta_replay, agui_replay], ids=["noeta", "agui"])
@pytest.mark.parametrize("entry", ["start", "solve"])
def test_a_replay_given_to_start_or_solve_keeps_its_recorded_times(tmp_path: Path, replay: Any, entry: str) -> None:
    runs = tmp_path / "runs"
    if entry == "start":
        handle = _started(replay(), runs)
        assert handle.status == "ok"
        assert handle.started_at == pytest.approx(T0) and handle.ended_at == pytest.approx(T0 + 12)
        episode = handle.episode_id
    else:
        episode = nb.solve("recorded", using=replay(), runs_dir=runs)
    assert_in(runs / episode, T0, T0 + 12)
    row = nb.runs_df(runs).iloc[0]
    assert row.status == "ok" and row.started_at == at(0) and row.duration_s == pytest.approx(12.0)


TRANSCRIPT = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]


def test_a_transcript_without_times_is_the_import_s_time_throughout(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    before = time.time()
    imported = runs / import_taisce(TRANSCRIPT, runs_dir=runs)
    handle = _started(taisce_replay(TRANSCRIPT), runs)
    after = time.time()
    for run in (imported, runs / handle.episode_id):
        assert_in(run, before, after)
    assert before <= handle.started_at <= handle.ended_at <= after
