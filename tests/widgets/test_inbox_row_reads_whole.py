"""An inbox row shows the whole of what a draft asks, behind a disclosure a keyboard reaches.

A row cut the command a reviewer approves to one line ending in "…"; the rest (``shutil.rmtree('/home/ana/…')``) was
only in a ``title`` tooltip, which no keyboard, touch or screen-reader user can reach. Each draft's row now has the
episode card's ``<details>``: ``what fs.sync asked, in full``, the command as the card shows it (escaped, secrets
removed, every hidden character shown)."""

from __future__ import annotations

import re
import sys
from html import unescape
from pathlib import Path
from typing import Any

import noesis_nb
from noesis_nb.widgets import InboxView

SECRET = "Quibble-93Xr-k7Pq2mZt8WvL"
TARGET = "/home/ana/IMPORTANT-DELETE-TARGET"
CODE = (
    "import pathlib, shutil, sys; src = pathlib.Path(sys.argv[1]); dst = pathlib.Path(sys.argv[2]); "
    "shutil.rmtree(dst, ignore_errors=True)  # <script>alert(1)</script>"
)


def _syncer(task: str, ctx: Any) -> Any:
    argv = [sys.executable, "-c", CODE, "/srv/build", TARGET, f"--token={SECRET}"]
    return ctx.tool("fs.sync", {"argv": argv}, effect="write", risk="high")


def _disclosures(html: str) -> list[str]:
    return re.findall(r'<details class="nnb-ib-ask"><summary>(.*?)</summary>(.*?)</details>', html, flags=re.S)


def test_each_draft_row_discloses_its_whole_command_escaped_and_redacted(runs_dir: Path, comm_log: list) -> None:
    noesis_nb.solve("sync the build", using=_syncer, runs_dir=runs_dir, approver="ask")
    view = InboxView(runs_dir, approver_id="ana")
    view.refresh()
    (row,) = view.rows.values()
    html = row.body.value
    line = re.search(r'<code class="nnb-ib-payload"[^>]*>(.*?)</code>', html)
    assert line is not None and TARGET not in unescape(line.group(1))  # the row's one line is cut: the case
    found = _disclosures(html)
    assert len(found) == 1, html[:800]
    summary, whole = found[0]
    assert unescape(re.sub(r"<[^>]+>", "", summary)) == "what fs.sync asked, in full"
    text = unescape(re.sub(r"<[^>]+>", "", whole))
    assert TARGET in text and "shutil.rmtree(dst, ignore_errors=True)" in text
    assert "<script>" not in whole and "&lt;script&gt;" in whole  # run text stays text
    assert SECRET not in html and SECRET not in unescape(html)
    # the saved snapshot of the inbox (what a notebook keeps) holds it too
    snapshot = view._repr_mimebundle_()["text/html"]
    assert any(TARGET in unescape(re.sub(r"<[^>]+>", "", w)) for _s, w in _disclosures(snapshot))
    # once decided, what was approved stays one click away
    row.decide(True)
    assert any(TARGET in unescape(re.sub(r"<[^>]+>", "", w)) for _s, w in _disclosures(row.body.value))
    view.close()
