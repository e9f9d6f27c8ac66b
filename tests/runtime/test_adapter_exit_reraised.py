"""README: a ``KeyboardInterrupt`` or ``SystemExit`` the adapter raises seals the run ``error`` first; then ``solve``
and ``solve_async`` raise it again, as it is (the caller's stop), not turned into ``EpisodeInterrupted`` (which says
the kernel's interrupt stopped the episode)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.store import read_json
from tests.compat.checker import check_run


def sync_stop(task: str) -> Any:
    raise KeyboardInterrupt("the adapter's own")


async def async_stop(task: str) -> Any:
    raise KeyboardInterrupt("the adapter's own")


def sync_exit(task: str) -> Any:
    raise SystemExit(3)


def _sealed_error(runs_dir: Path) -> None:
    (run,) = runs_dir.iterdir()
    assert read_json(run / "final.json")["outcome"] == "error"
    assert check_run(run) == []


@pytest.mark.parametrize("adapter", [sync_stop, async_stop], ids=["sync", "async"])
def test_solve_raises_the_adapters_keyboard_interrupt_itself(runs_dir: Path, adapter: Any) -> None:
    with pytest.raises(KeyboardInterrupt, match="the adapter's own") as raised:
        noesis_nb.solve("stop", using=adapter, runs_dir=runs_dir)
    assert type(raised.value) is KeyboardInterrupt
    _sealed_error(runs_dir)


def test_solve_async_raises_it_too(runs_dir: Path) -> None:
    with pytest.raises(KeyboardInterrupt, match="the adapter's own"):
        asyncio.run(noesis_nb.solve_async("stop", async_stop, runs_dir=runs_dir))
    _sealed_error(runs_dir)


def test_solve_raises_the_adapters_system_exit(runs_dir: Path) -> None:
    with pytest.raises(SystemExit) as raised:
        noesis_nb.solve("exit", using=sync_exit, runs_dir=runs_dir)
    assert raised.value.code == 3
    _sealed_error(runs_dir)
