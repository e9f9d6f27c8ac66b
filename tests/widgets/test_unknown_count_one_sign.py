"""A token count nobody reported reads with one sign everywhere: the view's header (``— out``), the model call's step
(which read ``? out`` beside the header's ``— out``), the batch grid's totals, and ``%noesis show --text``'s line of
the call (which left an unknown count out, as if there were none). It is never 0, never a ``?``."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.widgets.batchview import BatchView

UNKNOWN_SIGN = "—"  # the header's sign for an unknown total, since before the step and the text line took it


def _output_unknown(task: str, ctx: Any) -> str:
    ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=120, output_tokens=None)
    return "done"


def _text(html: str) -> str:
    return re.sub(r"<[^>]*>", "", html)


def test_header_step_grid_and_text_line_say_an_unknown_output_alike(
    ip: Any, runs_dir: Path, comm_log: list, capsys: pytest.CaptureFixture[str]
) -> None:
    ep = noesis_nb.solve("count", using=_output_unknown, runs_dir=runs_dir)
    view = noesis_nb.show(runs_dir / ep)
    header = view.state()["header"]["tokens"]
    assert header == f"120 in · {UNKNOWN_SIGN} out (1 call)"
    page = _text(view.snapshot_html())
    steps = re.findall(r"gpt-4o-mini \(openai\) · ([^·]*) · ([^·]*) ·", page)
    assert steps == [("120 in", f"{UNKNOWN_SIGN} out")], steps  # the step, as the header says it
    assert "? out" not in page and "? in" not in page

    ip.run_line_magic("noesis", f"show {ep} --text --runs-dir {runs_dir}")
    [line] = [line for line in capsys.readouterr().out.splitlines() if " model.call " in line]
    said = dict(word.split("=", 1) for word in line.split() if "=" in word)
    assert said["input_tokens"] == "120" and said["output_tokens"] == UNKNOWN_SIGN, line

    async def grid() -> str:
        b = noesis_nb.batch(["a"], using=_output_unknown, root=runs_dir / "batch")
        grid = BatchView(b, rows=5)
        await b.wait()
        await asyncio.sleep(0.25)
        grid.flush()
        try:
            return grid.header.value
        finally:
            grid.close()

    assert f"tokens 120 in · {UNKNOWN_SIGN} out ·" in asyncio.run(grid())
