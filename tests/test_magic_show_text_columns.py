"""``%noesis show <id> --text`` lines its columns up as a terminal draws them: a phase or an event name in CJK,
with an emoji or with combining marks takes its drawn width, so every line's payload starts in the same column
(measured here with ``wcwidth``, the terminal's own rule, not the package's)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import wcwidth

import noesis_nb
from noesis_nb.widgets.snapshot import runs_table_text

NAMES = ["plain", "観察する", "cafe\u0301 noir", "🚀 launch", "한국어"]


def _agent(task: str, ctx: Any) -> str:
    for name in NAMES:
        ctx.emit(name, {"event_name": name, "text": "PAYLOAD"})
    return "done"


def _column(line: str, marker: str) -> int:
    """The drawn column where ``marker`` starts on ``line``."""
    return wcwidth.wcswidth(line[: line.index(marker)])


def test_the_text_timeline_pads_by_drawn_width(ip: Any, runs_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ep = noesis_nb.solve("columns", using=_agent, runs_dir=runs_dir)
    ip.run_line_magic("noesis", f"show {ep} --text --runs-dir {runs_dir}")
    lines = [line for line in capsys.readouterr().out.splitlines() if "PAYLOAD" in line]
    assert len(lines) == len(NAMES)
    assert len({_column(line, "text=PAYLOAD") for line in lines}) == 1, "\n".join(lines)
    for name in NAMES[1:]:  # the names are there as written, not replaced by something narrower
        assert any(name in line for line in lines)


def test_the_runs_table_pads_by_drawn_width() -> None:
    rows = [{"episode_id": eid, "status": "ok", "task": "TASK"} for eid in ("ep_plain", "ep_観察", "ep_e\u0301")]
    lines = runs_table_text(rows).splitlines()[1:]
    assert len({_column(line, "ok") for line in lines}) == 1, "\n".join(lines)
    assert len({_column(line, "TASK") for line in lines}) == 1


def test_without_wcwidth_the_same_widths_come_from_unicodedata() -> None:
    from noesis_nb.widgets.textwidth import _char_width

    for name in ("観察する", "cafe\u0301 noir", "한국어", "ｆｕｌｌ", "a\u200bb"):
        assert sum(_char_width(c) for c in name) == wcwidth.wcswidth(name), name
