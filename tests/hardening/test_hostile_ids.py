"""Ids a caller or a crafted file hands us: refused before anything is made, one line naming the value.

An id becomes a folder or file name. ``"ep_x\\n"`` (a regex ``$`` accepts the final newline),
``".hidden"`` (a folder no listing shows, and the form of a run's staging folder) and ``"-rf"``
(read as an option on a command line) must never get that far.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.errors import InvalidIdError
from noesis_nb.store import find_run_dir

HOSTILE = ["ep_x\n", "ep_x\n\n", ".ep_hidden", ".ep_x.1234abcd.creating", "-rf", "--help", "ep x", "ep_\t", "ep_é"]


def echo(task: str) -> str:
    return task


def _tree(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


@pytest.mark.parametrize("bad", HOSTILE)
def test_an_episode_id_given_to_solve_or_start_is_refused_before_any_run_exists(bad: str, runs_dir: Path) -> None:
    before = _tree(runs_dir)
    with pytest.raises(InvalidIdError, match=re.escape(repr(bad))):
        noesis_nb.solve("t", using=echo, runs_dir=runs_dir, episode_id=bad)

    async def started() -> None:
        with pytest.raises(InvalidIdError, match=re.escape(repr(bad))):
            noesis_nb.start("t", using=echo, runs_dir=runs_dir, episode_id=bad)

    asyncio.run(started())
    assert _tree(runs_dir) == before


@pytest.mark.parametrize("bad", HOSTILE)
def test_a_batch_id_is_refused_before_any_batch_record_exists(bad: str, runs_dir: Path) -> None:
    async def main() -> None:
        with pytest.raises(InvalidIdError, match=re.escape(repr(bad))):
            noesis_nb.batch(["a"], using=echo, runs_dir=runs_dir, batch_id=bad)

    asyncio.run(main())
    assert _tree(runs_dir) == []


@pytest.mark.parametrize("bad", HOSTILE)
def test_an_id_looked_up_is_refused_and_a_crafted_folder_of_that_name_is_not_opened(bad: str, runs_dir: Path) -> None:
    crafted = runs_dir / bad
    crafted.mkdir()
    (crafted / "events.jsonl").write_text("")
    with pytest.raises(InvalidIdError, match=re.escape(repr(bad))):
        find_run_dir(bad, runs_dir=runs_dir)
    with pytest.raises(InvalidIdError, match=re.escape(repr(bad))):
        noesis_nb.resume_run(bad, runs_dir=runs_dir)


def test_a_batch_record_naming_a_hostile_episode_id_is_refused_by_name(runs_dir: Path) -> None:
    """A shared root's batch record is a file anyone could have written: its ids are checked before they are paths."""
    asyncio.run(_batch(runs_dir))
    record = runs_dir / "batches" / "b1.json"
    data: Any = json.loads(record.read_text())
    data["entries"][0]["episode_id"] = "ep_x\n"
    record.write_text(json.dumps(data))
    with pytest.raises(InvalidIdError, match=re.escape(repr("ep_x\n"))):
        asyncio.run(_batch(runs_dir))


async def _batch(runs_dir: Path) -> Any:
    return await noesis_nb.batch(["a"], using=echo, runs_dir=runs_dir, batch_id="b1")


@pytest.mark.parametrize("key", ["k\n", "k\x1b[2J", "k\x7f", "k\u0085", "k\ud800", "team/k\n"])
def test_an_idempotency_key_that_would_put_a_control_character_in_a_file_name_is_refused_before_anything_is_prepared(
    key: str, runs_dir: Path
) -> None:
    seen: list[BaseException] = []

    async def agent(task: str, ctx: Any) -> str:
        try:
            await ctx.tool_async("fs.echo", {"argv": ["true"]}, idempotency_key=key)
        except InvalidIdError as exc:
            seen.append(exc)
        return "done"

    episode_id = noesis_nb.solve("t", using=agent, runs_dir=runs_dir)
    assert len(seen) == 1 and repr(key) in str(seen[0]) and "idempotency_key" in str(seen[0]), seen
    names = [p.name for p in (runs_dir / episode_id).rglob("*")]
    assert all(not any(ord(c) < 32 or 0x7F <= ord(c) <= 0x9F for c in n) for n in names), names
    assert not (runs_dir / episode_id / "tool_invocations").exists() or not any(
        (runs_dir / episode_id / "tool_invocations").rglob("*.json")
    ), "nothing is prepared for a call refused at its arguments"
