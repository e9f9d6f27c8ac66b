"""Importing the same recorded file again is idempotent for every importer (Noetic, Taisce, Noeta, a recorded AG-UI
stream): one run in runs_df, the first import's id returned with a ``TraceAlreadyImported`` warning, and its times
still the recorded ones. ``reimport=True`` asks for a second run of it, which before was refused as an option
``solve`` does not know (a new task= or runs_dir= was the only way)."""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable
from pathlib import Path

import pytest

import noesis_nb as nb
from noesis_nb.integrations.agui import agui_rows, parse_sse
from noesis_nb.integrations.noeta import import_noeta
from noesis_nb.integrations.noetic import import_noetic
from noesis_nb.integrations.replay import TraceAlreadyImported, import_rows
from noesis_nb.integrations.taisce import import_taisce
from tests.integrations.test_recorded_times import T0, at, noeta_task

NOETIC = [
    {"source": "framework", "type": "helper:turn_started", "data": {"turnId": "t1", "messageIds": ["u1"]}},
    {"source": "sdk", "type": "response.output_text.delta", "data": {"delta": "Look"}, "outputIndex": 0},
    {"source": "framework", "type": "helper:turn_completed", "data": {"turnId": "t1", "durationMs": 9}},
]
TAISCE = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
MS = int(T0 * 1000)
AGUI = [
    {"type": "RUN_STARTED", "threadId": "t", "runId": "r", "timestamp": MS},
    {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant", "timestamp": MS + 1000},
    {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "hello", "timestamp": MS + 2000},
    {"type": "TEXT_MESSAGE_END", "messageId": "m", "timestamp": MS + 3000},
    {"type": "RUN_FINISHED", "threadId": "t", "runId": "r", "timestamp": MS + 5000},
]


def _importer(kind: str, folder: Path) -> Callable[..., str]:
    """An importer of one recorded file of ``kind``, each call reading the file again."""
    if kind == "noetic":
        path = folder / "stream.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in NOETIC))
        return lambda **opts: import_noetic(path, **opts)
    if kind == "taisce":
        path = folder / "transcript.json"
        path.write_text(json.dumps(TAISCE))
        return lambda **opts: import_taisce(json.loads(path.read_text()), **opts)
    if kind == "noeta":
        path = folder / "task.json"
        path.write_text(json.dumps(noeta_task([0.0, 0.5, 1.0, 4.0, 4.0, 12.0])))
        return lambda **opts: import_noeta(json.loads(path.read_text()), **opts)
    path = folder / "run.sse"
    path.write_text("".join(f"data: {json.dumps(e)}\n\n" for e in AGUI))

    def agui(**opts: object) -> str:
        with path.open() as lines:
            return import_rows(agui_rows(parse_sse(lines)), task="recorded AG-UI run", source="agui", **opts)

    return agui


@pytest.mark.parametrize("kind", ["noetic", "taisce", "noeta", "agui"])
def test_the_same_recorded_file_imported_again_is_the_same_run(tmp_path: Path, kind: str) -> None:
    runs = tmp_path / "runs"
    importer = _importer(kind, tmp_path)
    first = importer(runs_dir=runs)
    with pytest.warns(TraceAlreadyImported, match=f"as run {first}"):
        assert importer(runs_dir=runs) == first
    frame = nb.runs_df(runs)
    assert frame.episode_id.tolist() == [first]
    if kind in ("noeta", "agui"):  # its recorded times, not the second import's
        assert frame.iloc[0].started_at == at(0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", TraceAlreadyImported)
        second = importer(runs_dir=runs, reimport=True)
    assert second != first and sorted(nb.runs_df(runs).episode_id) == sorted([first, second])
    with pytest.warns(TraceAlreadyImported):  # and a plain import after it still makes none
        assert importer(runs_dir=runs) in (first, second)
    assert len(nb.runs_df(runs)) == 2
