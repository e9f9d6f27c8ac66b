"""``%noesis batch <tasks> <using…>`` through IPython's test shell: it parses its arguments and calls batch()."""

from __future__ import annotations

import asyncio
import threading
import time
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


def test_batch_magic_score_timeout_gives_up_on_a_hung_scorer_and_refuses_a_non_number(ip: Any, runs_dir: Path) -> None:
    release = threading.Event()

    def hangs(task: str, result: Any) -> float:
        release.wait(30)
        return 1.0

    ip.user_ns.update(two=["a", "b"], fast=echo, hangs=hangs)

    async def main() -> Any:
        with pytest.raises(UsageError, match="'soon' is not a number of seconds"):
            ip.run_line_magic("noesis", f"batch two fast --score hangs --score-timeout soon --runs-dir {runs_dir}")
        with pytest.raises(UsageError, match="score_timeout_s=-1"):
            ip.run_line_magic("noesis", f"batch two fast --score hangs --score-timeout -1 --runs-dir {runs_dir}")
        return await ip.run_line_magic("noesis", f"batch two fast --score hangs --score-timeout 0.3 --runs-dir {runs_dir}")

    started = time.monotonic()
    try:
        handle = asyncio.run(main())
    finally:
        release.set()
    assert time.monotonic() - started < 20, "the timeout given on the line is the one used"
    assert [(e.status, e.score) for e in handle.entries] == [("ok", None), ("ok", None)]
    assert all("0.3" in str(e.error) for e in handle.entries), [e.error for e in handle.entries]


def test_an_adapter_given_twice_is_refused_not_run_once(ip: Any, runs_dir: Path, tmp_path: Path) -> None:
    """``%noesis batch two fast fast`` asks each task twice; one adapter of that name would run it once, silently."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    for folder in ("a", "b"):
        (tmp_path / folder / "agent.py").write_text("async def run(task, ctx):\n    return task\n\ndef make():\n    return run\n")
    ip.user_ns.update(two=["a", "b"], fast=echo)

    async def main() -> None:
        with pytest.raises(UsageError, match="'fast' is given twice; give each adapter once"):
            ip.run_line_magic("noesis", f"batch two fast fast --runs-dir {runs_dir}")
        a, b = tmp_path / "a" / "agent.py", tmp_path / "b" / "agent.py"
        with pytest.raises(UsageError, match=f"{str(a)!r} and {str(b)!r} are both named 'agent.py'"):
            ip.run_line_magic("noesis", f"batch two {a} {b} --runs-dir {runs_dir}")

    asyncio.run(main())
    assert not (runs_dir / "batches").exists()


def test_adapters_given_as_paths_run_next_to_a_notebook_name(ip: Any, runs_dir: Path, tmp_path: Path) -> None:
    """The help says an adapter may be a path: two or more of them are named by their file (a name holds no '/')."""
    agent = tmp_path / "agent.py"
    agent.write_text("async def run(task, ctx):\n    return {'answer': task + '!'}\n\ndef make():\n    return run\n")
    ip.user_ns.update(two=["a", "b"], fast=echo)

    async def main() -> Any:
        return await ip.run_line_magic("noesis", f"batch two fast {agent} --runs-dir {runs_dir}")

    handle = asyncio.run(main())
    assert [(e.index, e.adapter, e.status) for e in handle.entries] == [
        (0, "fast", "ok"),
        (0, "agent.py", "ok"),
        (1, "fast", "ok"),
        (1, "agent.py", "ok"),
    ]


@pytest.mark.parametrize("tail", ["/", "//", "/./"])
def test_a_package_folder_given_with_a_trailing_slash_is_named_by_the_folder(
    ip: Any, runs_dir: Path, tmp_path: Path, tail: str
) -> None:
    """``agents/echo/`` (a shell's completion adds the slash) was named '' and refused: "adapter name must be a
    non-empty string, got ''"."""
    package = tmp_path / "agents" / "loud"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("async def run(task, ctx):\n    return task.upper()\n\ndef make():\n    return run\n")
    ip.user_ns.update(two=["a", "b"], fast=echo)

    async def main() -> Any:
        return await ip.run_line_magic("noesis", f"batch two fast {package}{tail} --runs-dir {runs_dir}")

    handle = asyncio.run(main())
    assert [(e.index, e.adapter, e.status) for e in handle.entries] == [
        (0, "fast", "ok"),
        (0, "loud", "ok"),
        (1, "fast", "ok"),
        (1, "loud", "ok"),
    ]
    assert [e.handle.result() for e in handle.entries if e.adapter == "loud"] == ["A", "B"]
