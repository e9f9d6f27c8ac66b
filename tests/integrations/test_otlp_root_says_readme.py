"""What the README says of the root span holds on Noēsis' own runs: the root ends at the episode's terminate, and
``runs_df``'s ``duration_s`` stays the duration the run recorded (``summary.duration_sec``), which ends before it; the
README claimed the root lasted ``duration_s``, which no Noēsis run's trace does."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest

import noesis_nb
from noesis_nb.frames.waits import instant
from tests.documented import documented

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
NOESIS_RUNS = ["noesis-smoke-run/ep_01K9RBBMXXRSFWR49SXFGF4SPR", "noesis-adr008-allow-run/ep_adr008_allow"]


def _otel_paragraph() -> str:
    text = documented()  # the README or the docs page it links to
    start = text.index("**OpenTelemetry out.**")
    return " ".join(text[start : text.index("\n\n", start)].split())


@pytest.mark.parametrize("fixture", NOESIS_RUNS)
def test_the_root_span_and_duration_s_are_what_the_readme_says(fixture: str, tmp_path: Path) -> None:
    run = tmp_path / "runs" / Path(fixture).name
    shutil.copytree(FIXTURES / fixture, run)
    row = noesis_nb.runs_df(tmp_path / "runs").iloc[0]
    summary = json.loads((run / "summary.json").read_text())
    terminate = next(json.loads(x) for x in (run / "events.jsonl").read_text().splitlines() if '"terminate"' in x)
    noesis_nb.export_otel(run, path=tmp_path / "t.json")
    spans = json.loads((tmp_path / "t.json").read_text())["resourceSpans"][0]["scopeSpans"][0]["spans"]
    [root] = [s for s in spans if not s.get("parentSpanId")]
    root_s = (int(root["endTimeUnixNano"]) - int(root["startTimeUnixNano"])) / 1e9

    assert row["duration_s"] == summary["duration_sec"]  # the run's recorded figure, kept
    assert row["ended_at"] == row["started_at"] + pd.Timedelta(seconds=row["duration_s"])
    assert int(root["endTimeUnixNano"]) / 1e9 == pytest.approx(instant(terminate["timestamp"]), abs=1e-6)
    assert root_s > row["duration_s"]  # the recorded duration ends before the terminate the root holds

    said = _otel_paragraph()
    assert not re.search(r"root span lasts what the episode lasted", said), "the README says the root lasts duration_s"
    assert "holds the episode's own events" in said and "longer than `duration_s`" in said
