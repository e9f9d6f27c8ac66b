"""Ids a caller or a crafted file hands us: refused before anything is made, one line naming the value.

An id becomes a folder or file name. ``"ep_x\\n"`` (a regex ``$`` accepts the final newline),
``".hidden"`` (a folder no listing shows, and the form of a run's staging folder) and ``"-rf"``
(read as an option on a command line) must never get that far.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.errors import InvalidIdError, NoesisNbError
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


@pytest.mark.parametrize("name", ["batches", "Batches", "BATCHES"])
def test_an_episode_id_naming_the_roots_batch_folder_is_refused(name: str, runs_dir: Path) -> None:
    """A run named ``batches`` took the folder batch records go to: the next ``batch()`` wrote its record into that
    sealed run, which its manifest then did not list. (A case-insensitive file system makes ``Batches`` the same.)"""
    before = _tree(runs_dir)
    with pytest.raises(InvalidIdError, match="keeps for batch records"):
        noesis_nb.solve("t", using=echo, runs_dir=runs_dir, episode_id=name)
    assert _tree(runs_dir) == before


def test_a_batch_refuses_a_batches_folder_that_is_a_run(runs_dir: Path) -> None:
    """A run already named ``batches`` (written before the name was kept, or by another writer) is left as it is."""
    episode = noesis_nb.solve("t", using=echo, runs_dir=runs_dir)
    (runs_dir / episode).rename(runs_dir / "batches")
    sealed = _tree(runs_dir / "batches")

    async def run_batch() -> None:
        await noesis_nb.batch(["a"], using=echo, runs_dir=runs_dir, batch_id="nightly")

    with pytest.raises(NoesisNbError, match="is a run, where batch records go"):
        asyncio.run(run_batch())
    assert _tree(runs_dir / "batches") == sealed


def test_a_new_episode_id_too_long_for_its_drafts_is_refused_and_the_longest_taken_is_decided(runs_dir: Path) -> None:
    """An id of 158 to 200 characters passed, then its run could not be decided: the decision file's temp names
    went past 255 bytes (``File name too long``) and the run stayed paused for good; from 164 its drafts' ids went
    past 200 characters and every tool call failed. The longest id taken now makes a run that is decided and sealed."""
    with pytest.raises(InvalidIdError, match="at most 160"):
        noesis_nb.solve("t", using=echo, runs_dir=runs_dir, episode_id="e" * 161)
    assert not any(runs_dir.iterdir())

    async def agent(task: str, ctx: Any) -> Any:
        argv = [sys.executable, "-c", "print('hi')"]
        return (await ctx.tool_async("fs.write_file", {"argv": argv}, effect="write", risk="high"))["returncode"]

    longest = "e" * 160
    assert noesis_nb.solve("t", using=agent, runs_dir=runs_dir, episode_id=longest) == longest
    noesis_nb.approve_draft(longest, approver_id="ana", runs_dir=runs_dir)
    noesis_nb.resume_run(longest, runs_dir=runs_dir)
    summary = json.loads((runs_dir / longest / "summary.json").read_text())
    assert summary["status"] == "ok", summary


def test_a_draft_reference_naming_another_run_decides_nothing_here(runs_dir: Path) -> None:
    """``draft:<run B>:<start of a request id of run A>`` given for run A decided A's draft: the run the reference
    names was ignored. A reference that names a run names that run's drafts only."""

    async def agent(task: str, ctx: Any) -> Any:
        argv = [sys.executable, "-c", "print('hi')"]
        return (await ctx.tool_async("fs.write_file", {"argv": argv}, effect="write", risk="high"))["returncode"]

    a = noesis_nb.solve("a", using=agent, runs_dir=runs_dir)
    b = noesis_nb.solve("b", using=agent, runs_dir=runs_dir)
    draft_a = noesis_nb.DiskRun(runs_dir / a).pending[0].draft_id
    request_a = draft_a.split(":", 2)[2]
    with pytest.raises(NoesisNbError):
        noesis_nb.approve_draft(a, draft_id=f"draft:{b}:{request_a[:12]}", approver_id="ana", runs_dir=runs_dir)
    assert [p.draft_id for p in noesis_nb.DiskRun(runs_dir / a).pending] == [draft_a]  # still waiting
    noesis_nb.approve_draft(a, draft_id=f"draft:{a}:{request_a[:12]}", approver_id="ana", runs_dir=runs_dir)
    assert noesis_nb.DiskRun(runs_dir / a).pending == []
