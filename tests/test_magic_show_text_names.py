"""``%noesis show <id> --text`` shows an event's phase and name as the view's row does: every invisible character
in them shown (a bidi mark, a soft hyphen, a zero-width space), so two names that read the same in a terminal are
told apart as they are in the view. The payload is prose in both (Hebrew and Persian need their direction marks)."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

import pytest

import noesis_nb

PHASE, NAME = "no\u200ete", "step\u00ad\u200f\u200b one"


def _agent(task: str, ctx: Any) -> str:
    ctx.emit(PHASE, {"event_name": NAME, "text": "PAYLOAD"})
    return "done"


def test_the_text_timeline_shows_a_names_invisible_characters_as_the_view_does(
    ip: Any, runs_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before, the text line printed the phase and name with their direction marks and soft hyphen as written
    (only the controls and the zero-width space replaced), where the view's row shows each of them."""
    ep = noesis_nb.solve("names", using=_agent, runs_dir=runs_dir)
    ip.run_line_magic("noesis", f"show {ep} --text --runs-dir {runs_dir}")
    [line] = [line for line in capsys.readouterr().out.splitlines() if "PAYLOAD" in line]
    page = noesis_nb.show(runs_dir / ep).snapshot_html()
    shown = r'<span class="nnb-p [^"]*"[^>]*>([^<]*)</span> <b>([^<]*)</b>[^<]*<span class="nnb-a">[^<]*</span> text=PAYLOAD'
    row = re.search(shown, page)  # the event's row in the view
    assert row is not None
    phase, name = (html.unescape(part) for part in row.groups())
    assert phase != PHASE and name != NAME  # the view shows what it hides
    assert line.split()[1:4] == [phase, *name.split()], (ascii(line), ascii(phase), ascii(name))
    assert not any(ch in line for ch in "\u200e\u200f\u00ad\u200b"), ascii(line)
