"""An empty runs dir (``--runs-dir ''``, ``runs_dir=""``) is one error saying how to mean the default, from the
functions and the magics alike: as a path it was the working folder, so runs, batch records and the magic's
``runs-dir`` setting went wherever the kernel happened to run. As a setting (``config.set``, ``$NOESIS_RUNS_DIR``)
empty or blank means the default."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from IPython.core.error import UsageError

import noesis_nb
from noesis_nb import config
from noesis_nb.errors import InvalidOptionError


async def agent(task: str, ctx: Any) -> str:
    return task


@pytest.fixture
def cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _start(empty: str) -> Any:
    async def main() -> Any:
        return await noesis_nb.start("t", using=agent, runs_dir=empty)

    return asyncio.run(main())


def _batch(empty: str) -> Any:
    async def main() -> Any:
        return await noesis_nb.batch(["t"], using=agent, runs_dir=empty)

    return asyncio.run(main())


CALLS = {
    "start": _start,
    "batch": _batch,
    "solve": lambda empty: noesis_nb.solve("t", using=agent, runs_dir=empty),
    "list_runs": lambda empty: noesis_nb.store.list_runs(runs_dir=empty),
}


@pytest.mark.parametrize("empty", ["", "  "])
@pytest.mark.parametrize("call", sorted(CALLS))
def test_an_empty_runs_dir_is_refused_and_nothing_lands_in_the_working_folder(cwd: Path, call: str, empty: str) -> None:
    before = config.runs_dir()
    with pytest.raises(InvalidOptionError, match=f"runs_dir={empty!r} names no folder: leave it out"):
        CALLS[call](empty)
    assert list(cwd.iterdir()) == []
    assert config.runs_dir() == before


@pytest.mark.parametrize(
    "line", ["runs-dir ''", "list --runs-dir ''", "batch tasks agent --runs-dir ''", "run agent 't' --runs-dir ''"]
)
def test_the_magics_say_so_in_one_line(ip: Any, cwd: Path, line: str) -> None:
    ip.user_ns.update(tasks=["t"], agent=agent)
    before = config.runs_dir()

    async def main() -> None:
        with pytest.raises(UsageError, match="runs_dir='' names no folder"):
            ip.run_line_magic("noesis", line)

    asyncio.run(main())
    assert list(cwd.iterdir()) == []
    assert config.runs_dir() == before


@pytest.mark.parametrize("empty", ["", "  "])
def test_an_empty_setting_means_the_default_as_an_empty_variable_does(
    cwd: Path, monkeypatch: pytest.MonkeyPatch, empty: str
) -> None:
    """``config.set(runs_dir="")`` goes back to the default (as it always did), and so does a ``$NOESIS_RUNS_DIR``
    that expanded to nothing or to blanks: never a folder named by blanks in the working folder."""
    default = config.runs_dir()
    config.set(runs_dir="elsewhere")
    config.set(runs_dir=empty)
    assert config.runs_dir() == default
    monkeypatch.setenv("NOESIS_RUNS_DIR", empty)
    assert config.runs_dir() == default
    noesis_nb.solve("t", using=agent)
    assert [p.name for p in cwd.iterdir()] == [".noesis"]
