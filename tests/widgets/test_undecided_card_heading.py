"""A card whose run ended before anyone decided says so in its heading.

Stopped while paused on a draft, the view's card kept its orange ``‖ fs.write_file wants approval`` heading under a
``cancelled`` badge (its status line and step already said "no decision", "undecided … never ran"); so did the
inbox's row. The heading now says ``fs.write_file — not decided (run cancelled)``, without the waiting colour."""

from __future__ import annotations

import asyncio
import contextlib
import html
import re
from pathlib import Path
from typing import Any

import noesis_nb
from noesis_nb.scripted import note_writer
from noesis_nb.widgets import EpisodeView
from noesis_nb.widgets.inboxview import InboxView


def _text(page: str) -> str:
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page)))


def _says_not_decided(card: Any) -> None:
    heading = _text(card.body.value)
    assert "wants approval" not in heading and "‖" not in heading, heading
    assert "— not decided (run cancelled)" in heading, heading
    assert "nnb-c-orange" not in card.body.value, card.body.value
    assert "no decision: the run ended cancelled" in card.status.value


def test_a_stopped_runs_card_and_inbox_row_say_it_was_never_decided(runs_dir: Path, tmp_path: Path, comm_log: list) -> None:
    async def main() -> tuple[Any, Any, str]:
        handle = noesis_nb.start("note, then stopped", using=note_writer(tmp_path / "notes"), runs_dir=runs_dir)
        view = EpisodeView(handle)
        await handle  # paused on its draft
        box = InboxView(runs_dir)
        box.refresh()
        view.flush()
        card, (row,) = view.approvals.card(), list(box.rows.values())
        assert "‖ fs.write_file wants approval" in _text(card.body.value)  # while it waits, each says so
        assert "‖ fs.write_file" in _text(row.body.value)
        view.stop_button.click()
        with contextlib.suppress(BaseException):
            await handle.wait()
        view.flush()
        box.refresh()
        page = view.snapshot_html()
        view.close()
        box.close()
        return card, row, page

    card, row, page = asyncio.run(main())
    _says_not_decided(card)
    assert "nnb-undecided" in card.box._dom_classes
    line = _text(row.body.value)
    assert "‖" not in line and "fs.write_file — not decided (run cancelled)" in line, line
    assert "wants approval" not in _text(page)
