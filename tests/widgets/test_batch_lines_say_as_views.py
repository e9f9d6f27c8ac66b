"""Each line of the batch grid says its episode's cost and time as that episode's view header does: a cost some of
whose calls could not be priced carries ``+ unpriced calls`` (a line read ``$0.000021`` as if whole where the view
said ``$0.000021 + unpriced calls`` and runs_df NaN), and the time leaves the wait for people out, said apart (a line
read the wall time ``1.9 s`` where the view said ``0.3 s (+ 1.6 s waiting for people)``)."""

from __future__ import annotations

import asyncio
import html
import re
from pathlib import Path
from typing import Any

import noesis_nb
from noesis_nb.scripted import note_writer
from noesis_nb.widgets.batchgrid import BatchFigures, grid_table
from noesis_nb.widgets.meter import CostMeter


def _text(page: str) -> str:
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page))).strip()


def _lines(b: Any) -> dict[str, dict[str, str]]:
    """The grid's saved table: task -> its cost and time cells."""
    figures = BatchFigures()
    figures.update(b.entries)
    rows = re.findall(r"<tr>(.*?)</tr>", grid_table(b.entries, figures), flags=re.S)[1:]
    cells = [[_text(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", row, flags=re.S)] for row in rows]
    return {c[1]: {"cost": c[5], "time": c[6]} for c in cells}


def _header(run_dir: Path) -> dict[str, str]:
    head = re.search(r'class="nnb-h">(.*?)</div>', noesis_nb.show(run_dir).snapshot_html(), flags=re.S)
    text = _text(head.group(1) if head else "")
    found = re.search(r"running time (.+?) · tokens .+? · cost (.+?)(?: ·|$)", text)
    assert found, text
    return {"time": found.group(1), "cost": found.group(2)}


def partly_priced(task: str, ctx: Any) -> str:
    if "unknown" in task:
        ctx.model_call("no-such-model-xyz", provider="openai", input_tokens=10, output_tokens=10)
    ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=100, output_tokens=10)
    return "ok"


def test_a_line_marks_a_partial_cost_as_its_view_does(runs_dir: Path, comm_log: list) -> None:
    CostMeter.wait()

    async def main() -> Any:
        b = noesis_nb.batch(["plain", "unknown model"], using=partly_priced, runs_dir=runs_dir)
        await b.wait()
        return b

    b = asyncio.run(main())
    lines = _lines(b)
    runs = noesis_nb.runs_df(runs_dir).set_index("task")
    assert runs.cost_usd.isna().tolist() == [False, True] and runs.index.tolist() == ["plain", "unknown model"]
    for entry in b.entries:
        said = _header(entry.run_dir)["cost"]
        assert lines[entry.task]["cost"] == said, (entry.task, lines, said)
    assert lines["unknown model"]["cost"].endswith("+ unpriced calls") and "unpriced" not in lines["plain"]["cost"]


def test_a_line_leaves_the_wait_for_people_out_as_its_view_does(runs_dir: Path, tmp_path: Path, comm_log: list) -> None:
    async def main() -> Any:
        b = noesis_nb.batch(["n1"], using=note_writer(tmp_path / "notes"), runs_dir=runs_dir)
        await b  # paused on its draft
        await asyncio.sleep(0.4)  # the wait for a person being measured, not a synchronisation
        for entry, _pending in list(b.pending()):
            noesis_nb.approve_draft(entry.run_dir, approver_id="ana")
        await b.wait()
        return b

    b = asyncio.run(main())
    (entry,) = b.entries
    said = _header(entry.run_dir)["time"]
    assert "waiting for people" in said, said
    assert _lines(b)["n1"]["time"] == said
    run = noesis_nb.runs_df(runs_dir).iloc[0]
    assert run.waiting_s >= 0.4 and f"(+ {run.waiting_s:.1f} s waiting for people)" in said
