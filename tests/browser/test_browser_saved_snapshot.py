"""A saved notebook opened in JupyterLab as someone else's (not trusted: a clone, a download, nbconvert's output):
JupyterLab drops the ``<style>`` of its HTML outputs, so a view's saved snapshot must read without its stylesheet.
The batch grid's snapshot is a table: its columns stay apart (its lines of spans ran together as
``35write the release note…carefulokyes$0.0003``)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from .lab import CHROMIUM, notebook, open_notebook

pytestmark = [pytest.mark.browser, pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")]

CELLS = [
    """%load_ext noesis_nb
import noesis_nb

async def label(task, ctx):
    ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=100, output_tokens=5)
    return "billing"
""",
    "b = noesis_nb.batch(['refund request', 'invoice missing', 'login fails'], using=label, root=RUNS, batch_id='saved')\n"
    "await b\nb",
]


def test_a_saved_batch_grid_keeps_its_columns_in_an_untrusted_notebook(lab: dict[str, Any], page: Any, tmp_path: Path) -> None:
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.from_dict(notebook([f"RUNS = {str(tmp_path / 'runs')!r}", *CELLS]))
    env = {k: v for k, v in os.environ.items() if not k.startswith("NOESIS_")}
    client = NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}})
    client.execute(env=env)
    nbformat.write(nb, lab["root"] / "saved-batch.ipynb")  # executed elsewhere: this server never signed it

    open_notebook(page, lab["base"], lab["token"], "saved-batch.ipynb")
    output = page.locator(".jp-OutputArea-output", has_text="refund request").first
    output.wait_for(timeout=30_000)
    assert output.locator("style").count() == 0  # the stylesheet is dropped: the case this test is about
    table = output.locator("table").first
    table.wait_for(timeout=10_000)
    heads = [t.strip() for t in table.locator("th").all_inner_texts()]
    assert heads == ["#", "task", "adapter", "status", "score", "cost", "time"]
    rows = {r.locator("td").nth(1).inner_text().strip(): r for r in table.locator("tbody tr").all()}
    assert set(rows) == {"refund request", "invoice missing", "login fails"}
    assert [c.strip() for c in rows["login fails"].locator("td").all_inner_texts()][2:4] == ["label", "ok"]
