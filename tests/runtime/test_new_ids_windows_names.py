"""A new run's or batch's id names a folder or file a copy of the runs root on Windows must hold: ``:`` (NTFS reads
``ep_a:b`` as the file ``ep_a`` and a data stream ``b``) and the device names COM0 and LPT0 (Microsoft's list, as
COM1-COM9, with the superscript digits) are refused for new ids, naming the fix, and nothing is written. Runs and
records already named so are read as they are."""

from __future__ import annotations

import asyncio
import os
import shutil
import warnings
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.errors import InvalidIdError
from noesis_nb.ids import WINDOWS_RESERVED


def _done(task: str, ctx: Any) -> str:
    return "done"


@pytest.mark.parametrize("episode_id", ["ep_a:b", "nightly:1", "com0", "LPT0.daily", "Lpt0"])
def test_a_new_episode_id_windows_cannot_hold_is_refused(tmp_path: Path, episode_id: str) -> None:
    root = tmp_path / "runs"
    with pytest.raises(InvalidIdError) as caught:
        noesis_nb.solve("t", using=_done, runs_dir=root, episode_id=episode_id)
    said = str(caught.value)
    assert f"'{episode_id}'" in said and "leave episode_id out" in said and "Windows" in said
    if ":" in episode_id:
        assert repr(episode_id.replace(":", "-")) in said  # the id to use instead
    assert not root.exists() or not os.listdir(root)


@pytest.mark.parametrize("batch_id", ["nightly:1", "com0", "lpt0.x"])
def test_a_new_batch_id_windows_cannot_hold_is_refused(tmp_path: Path, batch_id: str) -> None:
    async def run() -> None:
        handle = noesis_nb.batch(["x"], using=_done, batch_id=batch_id, runs_dir=tmp_path)
        await handle

    with pytest.raises(InvalidIdError) as caught:
        asyncio.run(run())
    assert f"'{batch_id}'" in str(caught.value) and "leave batch_id out" in str(caught.value)
    assert not (tmp_path / "batches").exists() or not os.listdir(tmp_path / "batches")


def test_the_superscript_port_names_are_reserved_too() -> None:
    assert {"com0", "lpt0", "com¹", "com²", "com³", "lpt¹", "lpt²", "lpt³"} <= WINDOWS_RESERVED


def test_a_run_already_named_with_a_colon_is_still_read(tmp_path: Path) -> None:
    root = tmp_path / "runs"
    made = noesis_nb.solve("t", using=_done, runs_dir=root, episode_id="ep_a-b")
    shutil.move(str(root / made), str(root / "ep_a:b"))  # copied in from elsewhere, or made by an older version
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # its files name the id it was made under: said as a problem of the run
        assert list(noesis_nb.runs_df(root)["episode_id"]) == ["ep_a:b"]
        assert set(noesis_nb.events_df(root)["episode_id"]) == {"ep_a:b"}
