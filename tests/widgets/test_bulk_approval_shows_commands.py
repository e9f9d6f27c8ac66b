"""Approve selected… asked "Approve 2 drafts?" naming only each draft's tool and run: a row cuts its command to one
line (the rest only in a hover title), so the drafts were approved with their target paths and contents unread. The
question now lists each draft's whole command as its card shows it (wrapped, escaped, secrets removed)."""

from __future__ import annotations

import re
import sys
from html import unescape
from pathlib import Path
from typing import Any

import noesis_nb
from noesis_nb.widgets import InboxView

SECRET = "Quibble-93Xr-k7Pq2mZt8WvL"


def _writer(target: Path) -> Any:
    code = f"open({str(target)!r}, 'a').write('release notes for the platform team')"

    async def agent(task: str, ctx: Any) -> Any:
        argv = [sys.executable, "-c", code, f"--password={SECRET}"]
        return await ctx.tool_async("fs.write", {"argv": argv}, effect="write", risk="high")

    return agent


def _text(html: str) -> str:
    """What the page shows of ``html``: tags (and a hover title with them) dropped, entities read."""
    return unescape(re.sub(r"<[^>]+>", "", html))


def test_the_question_before_a_bulk_approval_shows_each_command_whole(runs_dir: Path, tmp_path: Path, comm_log: list) -> None:
    deep = tmp_path / ("nested-" * 30)
    targets = [deep / "first-target.txt", deep / "second-target.txt"]
    for i, target in enumerate(targets):
        noesis_nb.solve(f"write {i}", using=_writer(target), runs_dir=runs_dir)
    view = InboxView(runs_dir, approver_id="ana")
    view.refresh()
    assert len(view.rows) == 2
    lines = re.findall(r'<code class="nnb-ib-payload"[^>]*>(.*?)</code>', "".join(r.body.value for r in view.rows.values()))
    assert len(lines) == 2 and not any(str(t) in _text(x) for t in targets for x in lines)  # each row's line cuts it
    view.tick_all()
    view.approve_selected.click()
    shown = [x for x in view.confirm_box.children if hasattr(x, "value") and x.layout.display != "none"]
    assert view.confirm_box.layout.display != "none" and view.question in shown
    sent = "".join(x.value for x in shown)  # the question's box: what is read before Confirm
    asked = _text(sent)
    for target in targets:
        assert str(target) in asked, asked[:600]
    assert "release notes for the platform team" in asked
    assert SECRET not in sent and SECRET not in asked
    view.confirm_button.click()
    assert all(r.decision is not None for r in view.decided)
    view.close()
