"""Every new id that names a folder or file follows one rule (``ids.validate_new_id``), a run's and a batch's alike.

An episode id holding a secret the environment holds (``ep-$ACME_API_KEY``) was taken, and the value was written in
clear in every file of the run (its folder's name, quoted in state, events, final, manifest), while a batch id holding
it was refused. Batch ids skipped the episode id's other rules: ``CON``/``nul`` (a device name on Windows) were made,
and ``nightly`` beside ``Nightly`` made a second record that a copy of the root on macOS or Windows holds as one file.
"""

from __future__ import annotations

import asyncio
import random
import string
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.errors import InvalidIdError, InvalidOptionError


@pytest.fixture
def secret(monkeypatch: pytest.MonkeyPatch) -> str:
    value = "Zq" + "".join(random.choices(string.ascii_letters + string.digits, k=18))
    monkeypatch.setenv("ACME_API_KEY", value)
    return value


def _agent(task: str, ctx: Any) -> int:
    return 1


def _batch(root: Path, batch_id: str, tasks: list[str]) -> None:
    async def cell() -> None:
        handle = noesis_nb.batch(tasks, using=_agent, runs_dir=root, batch_id=batch_id)
        await handle.wait()

    asyncio.run(cell())


def _holding(root: Path, secret: str) -> list[str]:
    return [str(p) for p in root.rglob("*") if secret in p.name or (p.is_file() and secret.encode() in p.read_bytes())]


def test_an_episode_id_holding_an_environment_secret_is_refused_and_nothing_is_written(runs_dir: Path, secret: str) -> None:
    with pytest.raises(InvalidIdError) as refused:
        noesis_nb.solve("t", using=_agent, runs_dir=runs_dir, episode_id=f"ep-{secret}")
    assert secret not in str(refused.value) and "secret" in str(refused.value), str(refused.value)
    assert _holding(runs_dir, secret) == []
    assert noesis_nb.solve("t", using=_agent, runs_dir=runs_dir, episode_id="ep-plain") == "ep-plain"


def test_a_batch_id_holding_an_environment_secret_is_refused(runs_dir: Path, secret: str) -> None:
    with pytest.raises((InvalidIdError, InvalidOptionError)) as refused:
        _batch(runs_dir, f"nightly-{secret}", ["a"])
    assert secret not in str(refused.value)
    assert _holding(runs_dir, secret) == []


@pytest.mark.parametrize("batch_id", ["CON", "nul", "Aux.daily", "nightly."])
def test_a_batch_id_windows_cannot_name_a_file_is_refused_as_an_episode_id_is(runs_dir: Path, batch_id: str) -> None:
    with pytest.raises(InvalidIdError) as batch_refused:
        _batch(runs_dir, batch_id, ["a"])
    with pytest.raises(InvalidIdError) as run_refused:
        noesis_nb.solve("t", using=_agent, runs_dir=runs_dir, episode_id=batch_id)
    assert "Windows" in str(batch_refused.value) and "Windows" in str(run_refused.value)
    assert not (runs_dir / "batches").exists() or list((runs_dir / "batches").glob("*.json")) == []


def test_a_batch_id_differing_by_case_only_from_a_recorded_batch_is_refused(runs_dir: Path) -> None:
    _batch(runs_dir, "Nightly", ["a", "b"])
    with pytest.raises(InvalidOptionError) as refused:
        _batch(runs_dir, "nightly", ["c"])
    assert "'Nightly'" in str(refused.value) and "case" in str(refused.value)
    assert sorted(p.name for p in (runs_dir / "batches").glob("*.json")) == ["Nightly.json"]
    _batch(runs_dir, "weekly", ["d"])  # another id is taken
    assert sorted(p.name for p in (runs_dir / "batches").glob("*.json")) == ["Nightly.json", "weekly.json"]
