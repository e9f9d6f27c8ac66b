"""A batch recorded before the one rule of new ids (``ids.validate_new_id``) is run again under its own id.

Calling ``batch`` again with a recorded ``batch_id`` is how its failed entries are re-run, its paused ones continued
and its dead ones started over. The rule of new ids (no Windows device name, no final dot, no id differing by case
only from a recorded batch) was applied to every ``batch_id`` given, so a batch recorded under ``aux``, ``nightly.``
or ``nightly`` beside ``Nightly`` (as the rule before allowed) could never be run again or continued. A recorded
batch now keeps its id; the rule refuses new ones alone, each refusal naming one fix.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
import noesis_nb.batch.spec as spec
from noesis_nb.errors import InvalidIdError, InvalidOptionError
from noesis_nb.ids import validate_id


def _agent(task: str, ctx: Any) -> int:
    if task == "b" and not _State.fixed:
        raise RuntimeError("b fails the first time")
    return 1


class _State:
    fixed = False


def _batch(root: Path, batch_id: str, **options: Any) -> dict[str, int]:
    async def cell() -> dict[str, int]:
        handle = noesis_nb.batch(["a", "b"], using=_agent, runs_dir=root, batch_id=batch_id, **options)
        await handle.wait()
        return handle.counts()

    return asyncio.run(cell())


def _record_as_before(root: Path, batch_id: str, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """Record ``batch_id`` as the rule before made it: ``validate_id`` alone, no case twin refused."""
    with monkeypatch.context() as before:
        before.setattr(spec, "validate_new_id", validate_id)
        before.setattr(spec, "_refuse_case_twin", lambda runs_root, chosen: None)
        counts = _batch(root, batch_id)
    assert counts == {"ok": 1, "error": 1}, counts
    return json.loads((root / "batches" / f"{batch_id}.json").read_text())


@pytest.mark.parametrize("batch_id", ["aux", "Nul.daily", "nightly.", "nightly"])
def test_a_batch_recorded_under_an_id_of_the_rule_before_runs_again_and_continues(
    runs_dir: Path, batch_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_State, "fixed", False)
    if batch_id == "nightly":  # its case twin recorded first, as the rule before allowed
        _record_as_before(runs_dir, "Nightly", monkeypatch)
    recorded = _record_as_before(runs_dir, batch_id, monkeypatch)
    first = [e["episode_id"] for e in recorded["entries"]]
    assert _batch(runs_dir, batch_id) == {"ok": 1, "error": 1}  # run again: sealed entries kept, nothing refused
    monkeypatch.setattr(_State, "fixed", True)
    assert _batch(runs_dir, batch_id, rerun_failed=True) == {"ok": 2}  # its failed entry re-run under its own id
    again = json.loads((runs_dir / "batches" / f"{batch_id}.json").read_text())
    assert again["entries"][0]["episode_id"] == first[0]  # the same record, the sealed entry kept
    assert again["entries"][1]["previous"] == [first[1]]
    assert sorted(p.name for p in (runs_dir / "batches").glob("*.json")) == sorted(
        {f"{batch_id}.json", "Nightly.json"} if batch_id == "nightly" else {f"{batch_id}.json"}
    )


@pytest.mark.parametrize(
    ("batch_id", "fix"),
    [
        ("aux", "pick another id (e.g. 'batch_aux'), or leave batch_id out for a new one"),
        ("nightly.", "end it with a letter, a digit or '_', or leave batch_id out for a new one"),
    ],
)
def test_a_new_batch_id_of_those_is_still_refused_with_one_fix(runs_dir: Path, batch_id: str, fix: str) -> None:
    with pytest.raises(InvalidIdError) as refused:
        _batch(runs_dir, batch_id)
    message = str(refused.value)
    assert message.endswith(fix), message
    assert message.count("pick another id") <= 1, message
    assert not (runs_dir / "batches").exists() or list((runs_dir / "batches").glob("*.json")) == []


def test_an_episode_ids_refusal_names_its_own_fix_once(runs_dir: Path) -> None:
    with pytest.raises(InvalidIdError) as refused:
        noesis_nb.solve("t", using=_agent, runs_dir=runs_dir, episode_id="con")
    assert str(refused.value).endswith("pick another id (e.g. 'ep_con'), or leave episode_id out for a new one")


def test_a_new_case_twin_of_a_recorded_batch_is_still_refused(runs_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_State, "fixed", True)
    _batch(runs_dir, "Weekly")
    with pytest.raises(InvalidOptionError, match="differs by case only"):
        _batch(runs_dir, "weekly")
