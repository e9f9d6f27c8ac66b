"""Someone removes or moves a run directory (or the runs root) while its episode is writing it.

The open log would keep taking lines wherever the folder went, and the seal's documents would be
written at the old place, making a folder again that holds a seal and no events. Instead the
episode stops at its next look at the disk with ``RunGoneError`` (one line: removed, or where the
run is now and that ``resume_run`` there seals it), makes nothing at the old place, and frees the
run, so the moved run is sealed where it is now and passes Noēsis' validators.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import time
import warnings
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.errors import RunGoneError

from ..compat.checker import check_run


def _moving(how: str, target: Path | None = None):
    """An adapter that writes a note, lets ``how`` happen to its run, and writes on (a model call, another note)."""

    def agent(task, ctx):
        ctx.emit("note", {"text": "before"})
        run = Path(ctx.run_dir)
        if how == "remove":
            shutil.rmtree(run)
        elif how == "move":
            os.rename(run, run.with_name(run.name + ".moved"))
        elif how == "move root":
            assert target is not None
            os.rename(run.parent, target)
        time.sleep(0.06)  # past the writer's next look at the disk
        ctx.emit("note", {"text": "after"})
        ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=12, output_tokens=3)
        return "done"

    return agent


def test_a_run_removed_while_it_runs_raises_and_is_not_made_again(tmp_path: Path) -> None:
    with pytest.raises(RunGoneError, match="was removed while its episode ran") as raised:
        noesis_nb.solve("write notes", using=_moving("remove"), runs_dir=tmp_path)
    assert raised.value.removed and "start the episode again" in str(raised.value)
    assert list(tmp_path.iterdir()) == [], "a folder was made again at the old place"
    assert noesis_nb.solve("again", using=lambda task, ctx: "ok", runs_dir=tmp_path)  # the root still works


@pytest.mark.parametrize("how", ["move", "move root"])
def test_a_run_moved_while_it_runs_says_where_and_is_sealed_there(tmp_path: Path, how: str) -> None:
    root, elsewhere = tmp_path / "runs", tmp_path / "renamed"
    with pytest.raises(RunGoneError, match="was moved to ") as raised:
        noesis_nb.solve("write notes", using=_moving(how, elsewhere), runs_dir=root)
    moved = Path(str(raised.value.moved_to))
    assert moved.parent == (elsewhere if how == "move root" else root) and (moved / "events.jsonl").is_file()
    assert f"resume_run({str(moved)!r})" in str(raised.value)
    assert not (root / raised.value.filename.rsplit("/", 1)[-1]).exists(), "a folder was made again at the old place"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # RunRecovered: the adapter's memory is gone
        noesis_nb.resume_run(moved)  # the lock was given up with the run: sealed where it is now
    assert (moved / "manifest.json").is_file()
    violations = check_run(moved)
    assert not violations, [f"{v.rule}: {v.message}" for v in violations]


def test_a_live_run_removed_while_it_waits_for_a_human_ends_with_the_error(tmp_path: Path) -> None:
    async def agent(task, ctx):
        await ctx.tool_async("fs.append", {"argv": ["true"]}, effect="write", risk="high")
        return "done"

    async def scenario() -> noesis_nb.EpisodeHandle:
        handle = noesis_nb.start("wait for a human", using=agent, runs_dir=tmp_path, approver="ask")
        await handle
        assert handle.status == "paused"
        shutil.rmtree(handle.run_dir)
        await asyncio.wait_for(handle.wait(), 10)  # the waiting episode looks at the disk and stops
        return handle

    handle = asyncio.run(scenario())
    assert handle.status == "error" and isinstance(handle.error, RunGoneError), (handle.status, handle.error)
    assert list(tmp_path.iterdir()) == [], "a folder was made again at the old place"


@pytest.mark.parametrize("how", ["remove", "move"])
@pytest.mark.parametrize("decide", ["approve", "reject"])
@pytest.mark.parametrize("named", [False, True], ids=["only-draft", "by-id"])
def test_deciding_on_a_live_handle_whose_run_is_gone_says_so_at_once(tmp_path: Path, how: str, decide: str, named: bool) -> None:
    """Before the waiting episode's next look at the disk, ``approve``/``reject`` already raise ``RunGoneError``
    (not "no draft matches"), and write nothing anywhere."""

    async def agent(task, ctx):
        await ctx.tool_async("fs.append", {"argv": ["true"]}, effect="write", risk="high")
        return "done"

    async def scenario() -> tuple[noesis_nb.EpisodeHandle, BaseException | None, list[Path]]:
        handle = noesis_nb.start("wait for a human", using=agent, runs_dir=tmp_path, approver="ask")
        await handle
        assert handle.status == "paused"
        draft = handle.pending[0].draft_id if named else None
        run = handle.run_dir
        moved = run.with_name(run.name + ".moved")
        shutil.rmtree(run) if how == "remove" else os.rename(run, moved)
        files = sorted(moved.rglob("*")) if how == "move" else []
        try:
            getattr(handle, decide)(draft)
            raised = None
        except Exception as exc:
            raised = exc
        after = sorted(moved.rglob("*")) if how == "move" else []
        assert after == files, "the decision was written into the moved run"
        await asyncio.wait_for(handle.wait(), 10)
        return handle, raised, [run]

    handle, raised, (run,) = asyncio.run(scenario())
    assert isinstance(raised, RunGoneError), repr(raised)
    assert ("was removed" if how == "remove" else "was moved to") in str(raised)
    assert not run.exists(), "a folder was made again at the old place"


@pytest.mark.parametrize("how", ["remove", "move"])
def test_approve_draft_by_id_or_path_of_a_live_run_gone_says_so(tmp_path: Path, how: str) -> None:
    """``approve_draft``/``reject_draft`` naming a live episode whose folder is gone: ``RunGoneError``, not "no such run"."""

    async def agent(task, ctx):
        await ctx.tool_async("fs.append", {"argv": ["true"]}, effect="write", risk="high")
        return "done"

    async def scenario() -> list[BaseException]:
        handle = noesis_nb.start("wait for a human", using=agent, runs_dir=tmp_path, approver="ask")
        await handle
        run = handle.run_dir
        shutil.rmtree(run) if how == "remove" else os.rename(run, run.with_name(run.name + ".moved"))
        raised = []
        for call in (
            lambda: noesis_nb.approve_draft(handle.episode_id, approver_id="ana", runs_dir=tmp_path),
            lambda: noesis_nb.reject_draft(str(run), approver_id="ana"),
        ):
            try:
                call()
            except Exception as exc:
                raised.append(exc)
        await asyncio.wait_for(handle.wait(), 10)
        return raised

    raised = asyncio.run(scenario())
    assert len(raised) == 2 and all(isinstance(exc, RunGoneError) for exc in raised), raised
