"""Secrets a caller hands over — in a task, its tags, a batch task's inputs — are on disk nowhere.

The adapter still gets them (``ctx.task``, ``ctx.inputs``: it needs them to work), but the run's
``state.json``, its events and documents, and the batch's record under ``<root>/batches/`` hold only
the redacted form, from the moment each file is first written; running the same batch again still
matches its record.
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import noesis_nb

from .report import figures
from .secret_corpus import corpus, leaks, run_files

SHAPES = corpus(random.SystemRandom().randrange(2**32))


def test_a_batch_given_secrets_writes_none_of_them(tmp_path: Path) -> None:
    root = tmp_path / "runs"
    seen: list[tuple[str, dict[str, Any]]] = []
    states: list[bytes] = []

    async def agent(task: str, ctx: Any) -> str:
        seen.append((task, dict(ctx.inputs)))
        states.append((Path(ctx.run_dir) / "state.json").read_bytes())  # as the run was first written
        return "ok"

    tasks = [
        {
            "task": f"deploy: {shape.text}",
            "tags": {"credential": shape.value},
            "inputs": {"config": shape.kwargs, "argv": shape.argv},
        }
        for shape in SHAPES
    ]

    async def main() -> None:
        await noesis_nb.batch(tasks, using=agent, root=root, batch_id="given-secrets", concurrency=8)
        again = noesis_nb.batch(tasks, using=agent, root=root, batch_id="given-secrets")  # the record still matches
        await again
        assert again.counts() == {"ok": len(SHAPES)}

    asyncio.run(main())
    assert len(seen) == len(SHAPES)  # ran once each: the second call found them sealed
    assert sorted(t for t, _ in seen) == sorted(t["task"] for t in tasks)  # the adapter got what it was given
    blobs = [(f"{p.parent.name}/{name}", blob) for p in sorted(root.iterdir()) for name, blob in run_files(p)]
    blobs += [(f"state.json of {i} when first written", s) for i, s in enumerate(states)]
    found = leaks(SHAPES, blobs)
    figures("secrets given by the caller", {"shapes": len(SHAPES), "files searched": len(blobs), "found": len(found)})
    assert found == [], found[:5]
