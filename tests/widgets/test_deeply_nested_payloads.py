"""A run's file may hold an event whose payload is nested about a thousand deep (the event reader takes it):
every view still draws it, bounded, and the rest of the run with it — the live view (steps, raw events, a step's
body), the saved snapshot, ``%noesis show --text`` and the timeline figure. A JSON encoder that gives up on it
must not stop the view's redraws."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import noesis_nb
from noesis_nb.plots import episode_timeline
from noesis_nb.runtime.diskrun import DiskRun
from noesis_nb.widgets.snapshot import timeline_text
from noesis_nb.widgets.stepview import body_html
from noesis_nb.widgets.view import EpisodeView
from tests.ipshell import run_magic

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "noesis-adr008-allow-run" / "ep_adr008_allow"
DEPTH = 1000


def _deep_run(root: Path) -> Path:
    run = root / "ep_adr008_allow"
    shutil.copytree(FIXTURE, run)
    lines = (run / "events.jsonl").read_text().splitlines()
    deep = "[" * DEPTH + "]" * DEPTH
    event = (
        '{"id":"deep-1","timestamp":"2025-01-01T00:00:00.041+00:00","episode_id":"ep_adr008_allow","agent_id":"a",'
        f'"phase":"reason","payload":{{"event_name":"nested.deep","text":{deep},"input_excerpt":[{deep}, "tail"],'
        f'"other":{deep}}},"evidence_ids":[]}}'
    )
    lines.insert(-2, event)
    (run / "events.jsonl").write_text("\n".join(lines) + "\n")
    return run


def test_every_view_draws_a_payload_nested_a_thousand_deep(tmp_path: Path) -> None:
    run_dir = _deep_run(tmp_path / "runs")
    source = DiskRun(run_dir)
    assert any(e.get("id") == "deep-1" for e in source.events), source.problems  # the reader took the line

    async def main() -> tuple[str, str, str]:
        view = EpisodeView(source)
        view.flush()
        steps = "".join(str(w.value) for w in view.steps.widgets() if hasattr(w, "value"))
        bodies = "".join(body_html(step) for step in view.steps.book.steps)
        view.mode.value = "events"
        view.flush()
        rows = "".join(str(w.value) for w in view.timeline.widgets() if hasattr(w, "value"))
        return steps + bodies, rows, view.snapshot_html()

    steps, rows, snapshot = asyncio.run(main())
    for shown in (steps, rows, snapshot):
        assert "nested.deep" in shown and "terminate" in shown, shown[:300]
    text = timeline_text(source.events)
    assert "nested.deep" in text and len(text.splitlines()) == len(source.events)
    _value, printed = run_magic(f"show {run_dir}  --text")
    assert "nested.deep" in printed and "status: ok" in printed
    figure = episode_timeline(noesis_nb.events_df(run_dir.parent), "ep_adr008_allow")
    assert "nested.deep" in json.dumps(figure.to_plotly_json(), default=str)


def test_a_figures_hover_text_of_a_payload_nested_a_thousand_deep() -> None:
    from noesis_nb.plots.timeline import describe_payload

    deep = json.loads("[" * 900 + "]" * 900)  # as deep as json itself reads
    for depth in range(DEPTH - 1, DEPTH + 1):
        nested: list[object] = []
        for _ in range(depth):
            nested = [nested]
        text = describe_payload({"event_name": "nested.deep", "deep": nested, "also": deep}, limit=160)
        assert text.startswith("{") and "nested.deep" in text and len(text) <= 160
