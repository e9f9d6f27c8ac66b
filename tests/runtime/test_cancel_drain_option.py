"""``handle.cancel(drain_s=…)`` with a value that is no finite number of seconds: one clear error, and the episode runs on.

An int too large for a float (``10**400``) escaped as a bare OverflowError from inside ``cancel``.
"""

from __future__ import annotations

import asyncio
import math
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.errors import InvalidOptionError
from noesis_nb.store import read_final
from tests.compat.checker import check_run


async def _waits(task: str, ctx: Any) -> str:
    await asyncio.sleep(30)
    return task


@pytest.mark.parametrize(
    ("drain", "named"),
    [
        (10**400, "drain_s=1000000000"),
        (-(10**400), "drain_s=-1000000000"),
        (10**5000, "drain_s=<an int of 16,610 bits>"),  # past Python's digit limit: repr() itself refuses
        (math.nan, "drain_s=nan"),
        (-1, "drain_s=-1"),
        ("5", "drain_s='5'"),
    ],
    ids=["10**400", "-10**400", "10**5000", "nan", "-1", "str"],
)
def test_a_drain_that_is_no_finite_number_of_seconds_is_refused_and_the_episode_runs_on(
    tmp_path: Path, drain: Any, named: str
) -> None:
    async def main() -> Any:
        handle = noesis_nb.start("t", using=_waits, runs_dir=tmp_path)
        while handle.status != "running":
            await asyncio.sleep(0.01)
        with pytest.raises(InvalidOptionError, match="a finite number ≥ 0") as caught:
            handle.cancel(drain_s=drain)
        assert str(caught.value).startswith(named) and len(str(caught.value)) < 300
        assert handle.status == "running" and not handle.draining
        assert handle.cancel()
        return await handle

    handle = asyncio.run(main())
    assert handle.status == "cancelled" and read_final(handle.run_dir)["outcome"] == "cancelled"
    assert check_run(handle.run_dir) == []
