"""``runs_dir`` with a NUL and ``tags`` that would not come back from JSON as they went in: one clear error, before
anything is written. A NUL escaped from pathlib as a bare "embedded null byte"; an object tag was written as its repr,
NaN as null, a set as a list and the key 1 as "1"."""

from __future__ import annotations

import asyncio
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import noesis_nb
from noesis_nb.errors import InvalidOptionError
from noesis_nb.store import read_events
from tests.compat.checker import check_run


def _agent(task: str, ctx: Any) -> str:
    return task


@pytest.mark.parametrize("how", ["solve", "start", "batch", "ns.set"])
def test_a_runs_dir_holding_a_nul_is_refused_naming_it(tmp_path: Path, how: str) -> None:
    given = str(tmp_path / "runs" / "a\x00b")

    async def in_a_cell() -> Any:
        if how == "start":
            return noesis_nb.start("t", using=_agent, runs_dir=given)
        return noesis_nb.batch(["t"], using=_agent, root=given)

    with pytest.raises(InvalidOptionError, match=r"holds a NUL character") as caught:
        if how == "solve":
            noesis_nb.solve("t", using=_agent, runs_dir=given)
        elif how == "ns.set":
            noesis_nb.ns.set(runs_dir=given)
        else:
            asyncio.run(in_a_cell())
    said = str(caught.value)
    assert "\\x00" in said and "\n" not in said and said.split("=")[0] in ("runs_dir", "root"), said
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize(
    ("tags", "named"),
    [
        ({"a": object()}, r"^tags\['a'\]=<object object at .*> is of type object; a tag is a str"),
        ({"n": math.nan}, r"^tags\['n'\]=nan: NaN and infinity"),
        ({"n": -math.inf}, r"^tags\['n'\]=-inf: NaN and infinity"),
        ({1: "x"}, r"^tags: the key 1 is of type int, not a str"),
        ({"big": 2**64}, r"^tags\['big'\]=18446744073709551616 does not fit in 64 bits"),
        ({"s": {2, 3}}, r"^tags\['s'\]=\{2, 3\} is of type set"),
        ({"l": [1, 2]}, r"^tags\['l'\]=\[1, 2\] is of type list"),
        ({"d": {"k": "v"}}, r"^tags\['d'\]=\{'k': 'v'\} is of type dict"),
        ({"f": np.float32(0.5)}, r"^tags\['f'\]=.* is of type float32"),
        ("team", r"^tags='team': pass a dict"),
    ],
    ids=["object", "nan", "-inf", "int key", "2**64", "set", "list", "dict", "float32", "str"],
)
def test_tags_that_would_not_round_trip_are_refused_naming_the_key(runs_dir: Path, tags: Any, named: str) -> None:
    with pytest.raises(InvalidOptionError, match=named) as caught:
        noesis_nb.solve("t", using=_agent, runs_dir=runs_dir, tags=tags)
    assert "\n" not in str(caught.value)
    assert list(runs_dir.iterdir()) == []


def test_a_batch_task_with_such_tags_is_refused_before_the_batch_starts(runs_dir: Path) -> None:
    async def main() -> Any:
        return noesis_nb.batch([{"task": "a", "tags": {"n": math.nan}}], using=_agent, root=runs_dir)

    with pytest.raises(InvalidOptionError, match=r"^tasks\[0\]: tags\['n'\]=nan: NaN"):
        asyncio.run(main())
    with pytest.raises(InvalidOptionError, match=r"^tags\['a'\]=<object"):
        asyncio.run(_batch(runs_dir, tags={"a": object()}))
    assert not list(runs_dir.rglob("ep_*"))


async def _batch(root: Path, **opts: Any) -> Any:
    return noesis_nb.batch(["a"], using=_agent, root=root, **opts)


def test_tags_of_text_numbers_bools_and_none_are_written_as_given(runs_dir: Path) -> None:
    tags = {
        "team": "search",
        "n": 3,
        "big": 2**63 - 1,
        "x": 0.25,
        "on": True,
        "none": None,
        "np": np.int64(4),
        "f": np.float64(1.5),
    }
    episode_id = noesis_nb.solve("t", using=_agent, runs_dir=runs_dir, tags=tags)
    run = runs_dir / episode_id
    expected = {**tags, "np": 4, "f": 1.5}
    observe = next(e for e in read_events(run / "events.jsonl") if e["phase"] == "observe")
    assert observe["payload"]["tags"] == expected
    assert json.loads((run / "summary.json").read_text())["tags"] == expected
    assert json.loads((run / "state.json").read_text())["episode"]["tags"] == expected
    assert check_run(run) == []
