"""``%noesis batch <tasks> <using…>`` through IPython's test shell: it parses its arguments and calls batch()."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from IPython.core.error import UsageError

import noesis_nb

from .agents import echo, exact, shout


def test_batch_magic_runs_the_notebooks_tasks_with_each_adapter(ip: Any, runs_dir: Path) -> None:
    ip.user_ns.update(my_tasks=["a", "b"], fast=echo, loud=shout, exact=exact)

    async def main() -> Any:
        handle = ip.run_line_magic("noesis", f"batch my_tasks fast loud --score exact --concurrency 2 --runs-dir {runs_dir}")
        assert isinstance(handle, noesis_nb.BatchHandle)
        return await handle

    handle = asyncio.run(main())
    assert [(e.index, e.adapter, e.status, e.score) for e in handle.entries] == [
        (0, "fast", "ok", 1.0),
        (0, "loud", "ok", 0.0),
        (1, "fast", "ok", 1.0),
        (1, "loud", "ok", 0.0),
    ]


def test_batch_magic_errors_are_one_line(ip: Any, runs_dir: Path) -> None:
    ip.user_ns.update(fast=echo, nothing=[])

    async def main() -> None:
        with pytest.raises(UsageError, match="'nope' is not a list in the notebook"):
            ip.run_line_magic("noesis", "batch nope fast")
        with pytest.raises(UsageError, match="tasks is empty"):
            ip.run_line_magic("noesis", f"batch nothing fast --runs-dir {runs_dir}")
        with pytest.raises(UsageError, match="concurrency=0"):
            ip.run_line_magic("noesis", f"batch nothing fast --concurrency 0 --runs-dir {runs_dir}")

    asyncio.run(main())
