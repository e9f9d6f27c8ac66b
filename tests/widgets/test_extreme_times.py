"""A run whose files hold times by year 1 or year 9999 (a clock reset, a hand-made fixture, a hostile file) is
shown in every time zone: such a time has no local time west (or east) of UTC, and converting it raised
``OverflowError`` from the view's redraw, its snapshot, ``%noesis show --text`` and ``%noesis list``."""

from __future__ import annotations

import asyncio
import json
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.runtime.diskrun import DiskRun
from noesis_nb.widgets.snapshot import timeline_text
from noesis_nb.widgets.view import EpisodeView
from tests.ipshell import run_magic

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "noesis-adr008-allow-run" / "ep_adr008_allow"
EDGES = {"ep_year_one": "0001-01-01T00:00:00.5+00:00", "ep_year_9999": "9999-12-31T23:59:59.5+00:00"}


@pytest.fixture(params=["America/New_York", "Asia/Tokyo"])
def zone(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    monkeypatch.setenv("TZ", request.param)
    time.tzset()
    try:
        yield request.param
    finally:
        monkeypatch.undo()
        time.tzset()


def _runs(root: Path) -> Path:
    for name, stamp in EDGES.items():
        run = root / name
        shutil.copytree(FIXTURE, run)
        events = [json.loads(line) for line in (run / "events.jsonl").read_text().splitlines()]
        lines = [json.dumps({**e, "timestamp": stamp}) for e in events]
        (run / "events.jsonl").write_text("\n".join(lines) + "\n")
        summary = json.loads((run / "summary.json").read_text())
        (run / "summary.json").write_text(json.dumps({**summary, "started_at": stamp}))
    return root


def test_runs_by_year_one_and_9999_are_shown_in_any_zone(zone: str, tmp_path: Path) -> None:
    root = _runs(tmp_path / "runs")
    for name in EDGES:
        source = DiskRun(root / name)

        async def main(source: DiskRun = source) -> tuple[str, str]:
            view = EpisodeView(source)
            view.flush()
            view.mode.value = "events"
            view.flush()
            return str(view.header.value), view.snapshot_html()

        header, snapshot = asyncio.run(main())
        assert "nnb-badge" in header and "terminate" in snapshot, zone
        text = timeline_text(source.events)
        assert len(text.splitlines()) == len(source.events)
        _value, printed = run_magic(f"show {root / name} --text")
        assert "status: ok" in printed, printed[-300:]
    table, _printed = run_magic(f"list --runs-dir {root}")
    assert len(table) == 2 and "0001-01-01" in repr(table) and "9999-12-31" in table._repr_html_()
    assert len(noesis_nb.list_runs(runs_dir=root)) == 2
