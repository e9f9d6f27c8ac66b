"""The view's counts line and its end step read as words (a replay's as the live view's).

``7 steps from 31 events (tool 11 · runtime 4 …)`` read as eleven tools; the line now says what it counts, each count
before its phase: ``(by phase: 11 tool · 4 runtime …)``. The end step printed the answer's Python repr
(``{'path': 'release-notes.md', …}``, the ``message`` Noēsis stores); an answer that is a mapping now reads
``path: release-notes.md; lines: 12``, escaped and secrets removed."""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path
from typing import Any

import noesis_nb

SECRET = "Quibble-93Xr-k7Pq2mZt8WvL"


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", html))).strip()


def _writer(task: str, ctx: Any) -> Any:
    ctx.emit("reason", {"text": "writing the notes"})
    ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=1200, output_tokens=30)
    return {"path": "release-notes.md", "lines": 12, "tags": ["notes", "v1.2"], "note": "<b>done</b>", "token": SECRET}


def _replayed(runs_dir: Path) -> Any:
    episode = noesis_nb.solve("write the release notes", using=_writer, runs_dir=runs_dir)
    replay = noesis_nb.replay(episode, runs_dir=runs_dir)
    replay.seek(replay.total)
    replay.view.flush()
    return replay.view


def test_the_counts_line_says_it_counts_events_by_phase(runs_dir: Path) -> None:
    view = _replayed(runs_dir)
    counts = _text(view.counts.value)
    said = re.match(r"(\d+) steps from (\d+) events \(by phase: (.*?)\)", counts)
    assert said is not None, counts
    parts = said.group(3).split(" · ")
    assert all(re.fullmatch(r"\d[\d,]* \S.*", part) for part in parts), parts  # each count before its phase
    assert sum(int(part.split()[0].replace(",", "")) for part in parts) == int(said.group(2))


def test_the_end_step_reads_a_mapping_answer_as_keys_and_values(runs_dir: Path) -> None:
    snapshot = _replayed(runs_dir).snapshot_html()
    end = [_text(m) for m in re.findall(r'<span class="nnb-k[^"]*">end</span>(.*?)</span></span>', snapshot, flags=re.S)]
    assert len(end) == 1, end
    assert "path: release-notes.md" in end[0] and "lines: 12" in end[0] and "tags: notes, v1.2" in end[0], end[0]
    assert "{'" not in end[0] and "'path'" not in end[0]  # no Python repr
    assert "note: <b>done</b>" in end[0] and "<b>done</b>" not in snapshot  # escaped on the page, read as text
    assert SECRET not in snapshot and "token: [REDACTED" in end[0]  # a secret the answer names is never shown
