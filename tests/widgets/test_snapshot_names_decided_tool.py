"""The saved snapshot names a decided draft by its tool, as the live card does (``fs.write_file ✔ approved by …``),
not by its id (``draft:ep_…:req_… ✔ approved``): what GitHub, nbviewer or an untrusted notebook show reads as the
view did. Executed in a real kernel, as a notebook is saved."""

from __future__ import annotations

import html
import re
from pathlib import Path

import nbformat

CELL = """\
%load_ext noesis_nb
import noesis_nb
noesis_nb.ns.set(runs_dir={runs!r})
async def writer(task, ctx):
    await ctx.tool_async('fs.write_file', {{'argv': ['true']}}, effect='write', risk='high')
    return 'ok'
h = noesis_nb.start('write the notes', using=writer, approver='auto')
await h.wait()
h
"""


def _text(snapshot: str) -> str:
    """What a reader sees of the snapshot: tags and the stylesheet away, entities read, spaces folded."""
    no_style = re.sub(r"<style.*?</style>", "", snapshot, flags=re.S)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", no_style)))


def test_a_decided_draft_is_named_by_its_tool_in_the_saved_snapshot(tmp_path: Path) -> None:
    from nbclient import NotebookClient

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(CELL.format(runs=str(tmp_path / "runs")))])
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    saved = [o["data"]["text/html"] for o in nb.cells[0].outputs if "text/html" in o.get("data", {})]
    assert saved, "the view saved no text/html snapshot"
    text = _text(saved[-1])
    decided = re.search(r"(\S+) ✔ approved", text)
    assert decided is not None, text[:600]
    assert decided.group(1) == "fs.write_file", f"the snapshot names the decided draft as {decided.group(0)!r}"
    assert "draft:ep_" in text  # the draft stays named under it: two drafts of one tool are told apart
