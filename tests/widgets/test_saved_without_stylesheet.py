"""Saved views read in a page that drops their stylesheet (JupyterLab strips the view's <style> from an untrusted
notebook, keeping inline style attributes): a step's ▸ stays on its line (nothing but inline elements inside a
<summary>), and the batch table's words read from the left, its figures from the right (said in each cell)."""

from __future__ import annotations

import asyncio
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import noesis_nb
from noesis_nb.scripted import ScriptedModel
from noesis_nb.widgets import batch_view

INLINE = {"span", "b", "i", "em", "strong", "code", "a", "br", "small", "abbr", "kbd", "mark", "s", "sub", "sup", "u"}


class _Summaries(HTMLParser):
    """The tags opened inside each <summary>, and the style of each table cell."""

    def __init__(self) -> None:
        super().__init__()
        self.depth = 0
        self.inside: list[set[str]] = []
        self.cells: list[tuple[str, str]] = []  # (tag, its style attribute)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "summary":
            self.depth += 1
            self.inside.append(set())
        elif self.depth:
            self.inside[-1].add(tag)
        if tag in ("td", "th"):
            self.cells.append((tag, dict(attrs).get("style") or ""))

    def handle_endtag(self, tag: str) -> None:
        if tag == "summary":
            self.depth -= 1


def _parsed(html: str) -> _Summaries:
    parser = _Summaries()
    parser.feed(html)
    return parser


def _agent(task: str, ctx: Any) -> str:
    ScriptedModel(["Plan.", "Done."], latency_ms=0).complete(task, ctx)
    ctx.emit("reason", {"text": "thinking"})
    return "ok"


def test_a_saved_episode_view_has_only_inline_elements_in_its_summaries(runs_dir: Path, comm_log: list) -> None:
    ep = noesis_nb.solve("a task", using=_agent, runs_dir=runs_dir)
    saved = _parsed(noesis_nb.show(runs_dir / ep).snapshot_html())
    assert len(saved.inside) >= 3, "the saved view has its steps"
    assert all(tags <= INLINE for tags in saved.inside), [sorted(t - INLINE) for t in saved.inside if t - INLINE]


def test_a_saved_batch_table_says_each_cells_alignment(runs_dir: Path, comm_log: list) -> None:
    async def main() -> str:
        b = noesis_nb.batch(["one", "two"], using=_agent, root=runs_dir)
        view = batch_view(b)
        await b
        view.flush()
        return view.snapshot_html()

    cells = _parsed(asyncio.run(main())).cells
    assert len(cells) >= 3 * 7, "a head and two rows of seven columns"
    aligned = [style.replace(" ", "") for _, style in cells[:7]]
    # #, task, adapter, status, score, cost, time
    assert aligned == [f"text-align:{a}" for a in ("right", "left", "left", "left", "left", "right", "right")]
    assert all(style for _, style in cells), "every cell says its alignment"
