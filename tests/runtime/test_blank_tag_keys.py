"""A tag's key names it: a blank one (which ``%noesis run --tag =x`` refuses) was written and came back from
``runs_df`` as a column named only ``tags_``."""

from __future__ import annotations

import asyncio
import os
import re
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.errors import InvalidOptionError


@pytest.mark.parametrize("key", ["", "  ", "\t"])
def test_a_blank_tag_key_is_refused_before_anything_is_written(runs_dir: Path, key: str) -> None:
    with pytest.raises(InvalidOptionError, match="^" + re.escape(f"tags: the key {key!r} is blank; name each tag")):
        noesis_nb.solve("t", using=lambda task: 1, runs_dir=runs_dir, tags={key: "v", "team": "a"})

    async def cell() -> None:
        noesis_nb.start("t", using=lambda task: 1, runs_dir=runs_dir, tags={key: "v"})

    with pytest.raises(InvalidOptionError, match="is blank"):
        asyncio.run(cell())
    assert os.listdir(runs_dir) == []


def test_named_tags_still_reach_runs_df(runs_dir: Path) -> None:
    noesis_nb.solve("t", using=lambda task: 1, runs_dir=runs_dir, tags={"team": "a", "a.b": 1})
    frame = noesis_nb.runs_df(runs_dir)
    assert {"tags_team", "tags_a.b"} <= set(frame.columns)
    assert not [c for c in frame.columns if c.startswith("tags_") and not c.removeprefix("tags_").strip()]
