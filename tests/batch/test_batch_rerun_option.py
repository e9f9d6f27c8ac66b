"""``rerun_failed`` takes True or False only: ``bool("no")`` is True, so a string re-ran every failed entry."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.errors import InvalidOptionError


async def _fails(task: str, ctx: Any) -> str:
    raise RuntimeError("it failed")


def _run_batch(**kw: Any) -> Any:
    async def main() -> Any:
        return await noesis_nb.batch(["t"], using=_fails, batch_id="rf", **kw)

    return asyncio.run(main())


@pytest.mark.parametrize("value", ["no", "False", 0, 1, None, [], 1.0], ids=repr)
def test_a_rerun_failed_that_is_not_a_bool_is_refused_and_the_failed_entry_kept(runs_dir: Path, value: Any) -> None:
    first = _run_batch(root=runs_dir)
    with pytest.raises(InvalidOptionError, match=r"^rerun_failed=.*: pass True or False") as caught:
        _run_batch(root=runs_dir, rerun_failed=value)
    assert repr(value) in str(caught.value) and "\n" not in str(caught.value)
    again = _run_batch(root=runs_dir)
    assert [e.episode_id for e in again.entries] == [e.episode_id for e in first.entries]
    assert [e.status for e in again.entries] == ["error"]


def test_rerun_failed_true_still_starts_the_failed_entry_over(runs_dir: Path) -> None:
    first = _run_batch(root=runs_dir)
    again = _run_batch(root=runs_dir, rerun_failed=True)
    assert again.entries[0].episode_id != first.entries[0].episode_id
