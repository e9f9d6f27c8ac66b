"""A decision's reason is printed by ``%noesis approve|reject`` and shown on the card as one visible line: a reason
holding a terminal escape, a bidi override or line ends (typed, or written by another program into the decision
file) reached the notebook's output raw, where Jupyter obeys ANSI escapes, and 100,000 characters made one line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from IPython.core.error import UsageError
from IPython.utils.capture import capture_output

import noesis_nb
from noesis_nb.widgets.cards import decision_html

KEY = "sk-proj-" + "A1b2C3d4" * 6
REASON = "checked\nthe diff \x1b[8mhidden\x1b[0m \u202eevil\u202c " + "y" * 100_000 + f" {KEY}"
LONG = "checked\nthe diff " + "y" * 19_000 + f" {KEY}"


def paused_on_disk(runs_dir: Path, nnb: Any, marker: Path) -> str:
    return noesis_nb.solve("append", using=nnb.make_tool_adapter(nnb.side_effect_argv(marker)), runs_dir=runs_dir)


def assert_one_visible_line(text: str) -> None:
    assert "\x1b" not in text and "\u202e" not in text and KEY not in text
    assert text.count("\n") <= 1 and len(text) < 1_000, (text.count("\n"), len(text))
    assert "checked the diff" in text


@pytest.mark.parametrize("verb", ["approve", "reject"])
def test_the_decision_line_of_the_magic_is_one_visible_line(verb: str, ip: Any, runs_dir: Path, tmp_path: Path, nnb: Any) -> None:
    episode = paused_on_disk(runs_dir, nnb, tmp_path / "x.txt")
    # a reason no person types (a terminal escape, a bidi override, 100,000 characters) is refused in one line
    with pytest.raises(UsageError) as refused:
        ip.run_line_magic("noesis", f"{verb} {episode} --runs-dir {runs_dir} --approver-id ana --reason '{REASON}'")
    said = str(refused.value)
    assert said.startswith(f"%noesis {verb}: reason ") and "\n" not in said and len(said) < 400, said
    assert "\x1b" not in said and "\u202e" not in said and KEY not in said
    # one a person may write (line ends, a pasted key, 19,000 characters) is decided, and told in one visible line
    with capture_output() as fresh:
        ip.run_line_magic("noesis", f"{verb} {episode} --runs-dir {runs_dir} --approver-id ana --reason '{LONG}'")
    assert_one_visible_line(fresh.stdout)
    with capture_output() as standing:  # the decision on disk, told again
        ip.run_line_magic("noesis", f"{verb} {episode} --runs-dir {runs_dir}")
    assert "already" in standing.stdout
    assert_one_visible_line(standing.stdout)
    record = next((runs_dir / episode / "tool_invocations" / "approvals").glob("*.json")).read_text()
    assert "y" * 19_000 in record  # the file keeps the reason whole


def test_the_card_shows_the_reason_on_one_line() -> None:
    html = decision_html({"status": "rejected", "approver_id": "bo", "decided_at": None, "reason": REASON})
    assert "\x1b" not in html and "\u202e" not in html and "\n" not in html and KEY not in html
    assert "checked the diff" in html and len(html) < 1_000
