"""A batch's entries, as a cell prints them and as its static table shows them, hold no secret of their tasks.

``batch.entries`` printed in a cell, and the HTML table a notebook keeps when no widget shows the batch,
show each task: every shape of the secret corpus is redacted there as in the batch's files.
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import noesis_nb
from tests.hardening.secret_corpus import corpus, leaks

SHAPES = corpus(random.SystemRandom().randrange(2**32))


def answer(task: str, ctx: Any) -> str:
    return "done"


def test_a_batchs_entries_and_table_show_no_secret_of_its_tasks(tmp_path: Path) -> None:
    async def cell() -> list[tuple[str, bytes]]:
        # each task starts with its secret: the table keeps a task's first 80 characters
        handle = noesis_nb.batch([s.text.replace("\n", " ") for s in SHAPES], answer, root=tmp_path, concurrency=4)
        await handle
        bundle = handle.plain_bundle()
        shown = [("table", bundle["text/html"].encode()), ("text", bundle["text/plain"].encode())]
        return shown + [(f"entry {e.index}", repr(e).encode()) for e in handle.entries]

    shown = asyncio.run(cell())
    assert leaks(SHAPES, shown) == []
    assert all(b"[REDACTED]" in blob for where, blob in shown if where.startswith("entry"))
    files = [(str(p), p.read_bytes()) for p in tmp_path.rglob("*") if p.is_file()]
    assert leaks(SHAPES, files) == []
