"""batch() on the loop: bad input, scores, approvals decided through the API, cancel, the record."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import noesis_nb
from noesis_nb.errors import EpisodeStateError, InvalidIdError, InvalidOptionError, UsingResolutionError
from noesis_nb.store import read_json
from noesis_nb.widgets import batch_view

from ..compat.checker import check_run
from .agents import asks, echo, exact, is_long, shout, slow


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"tasks": []}, "tasks is empty"),
        ({"tasks": "one task"}, "pass a list of task strings"),
        ({"tasks": [{"text": "x"}]}, "unknown key(s) ['text']"),
        ({"tasks": [""]}, "'task' must be a non-empty string"),
        ({"score": 3}, "score=3 is not callable"),
        ({"concurrency": 0}, "concurrency=0"),
        ({"concurrency": 2.5}, "concurrency=2.5"),
        ({"executor": object()}, "executor=builtins.object is neither a dask.distributed.Client nor a concurrent.futures"),
        ({"batch_id": "../up"}, "batch id '../up'"),
        ({"colour": "red"}, "unknown option(s) 'colour'; a batch takes concurrency, executor"),
        ({"concurency": 2}, "unknown option(s) 'concurency' (did you mean 'concurrency'?)"),
        ({"runs_dir": "elsewhere"}, "name two folders; pass one of them"),
        ({"governance": "loud"}, "governance='loud'"),
        ({"using": [echo, echo]}, "two adapters are both named 'echo'"),
    ],
)
def test_bad_input_is_one_clear_error_and_starts_nothing(runs_dir: Path, kwargs, needle) -> None:
    args = {"tasks": ["a"], "using": echo, "root": runs_dir, **kwargs}

    async def main():
        noesis_nb.batch(**args)

    with pytest.raises((InvalidOptionError, InvalidIdError)) as info:
        asyncio.run(main())
    assert needle in str(info.value)
    assert not any(runs_dir.iterdir()), "nothing is written for a batch that does not start"


def test_bad_adapter_and_no_loop(runs_dir: Path) -> None:
    async def main():
        noesis_nb.batch(["a"], using="no_such_agent_anywhere", root=runs_dir)

    with pytest.raises(UsingResolutionError):
        asyncio.run(main())
    with pytest.raises(EpisodeStateError, match="needs a running event loop"):
        noesis_nb.batch(["a"], using=echo, root=runs_dir)
    assert not any(runs_dir.iterdir()), "nothing is written for a batch with no loop to run on"


@pytest.mark.parametrize(
    ("opts", "named"),
    [({"concurrency": 0}, "concurrency=0"), ({"rerun_failed": "no"}, "rerun_failed="), ({"tasks": []}, "task")],
)
def test_a_wrong_option_is_named_before_the_missing_loop(runs_dir: Path, opts: dict, named: str) -> None:
    """Outside a loop a wrong option is said first: fixing the loop then failing on the option is two round trips."""
    tasks = opts.pop("tasks", ["a"])
    with pytest.raises(InvalidOptionError) as info:
        noesis_nb.batch(tasks, using=echo, root=runs_dir, **opts)
    assert named in str(info.value)
    assert not any(runs_dir.iterdir())


def test_a_batch_runs_each_task_with_each_adapter_and_records_scores(runs_dir: Path) -> None:
    tasks = ["alpha", {"task": "beta", "tags": {"level": "hard"}, "inputs": {"k": 1}}, "fail here"]
    seen_threads: set[int] = set()

    async def main():
        handle = noesis_nb.batch(tasks, using={"async": echo, "sync": shout}, root=runs_dir, score=exact, concurrency=2)
        assert isinstance(handle, noesis_nb.BatchHandle) and handle.status == "running"
        handle.on_change(lambda entry: seen_threads.add(threading.get_ident()))
        assert await handle is handle
        return handle

    handle = asyncio.run(main())
    assert seen_threads == {threading.main_thread().ident}, "listeners are called on the loop's thread"
    assert [(e.index, e.adapter) for e in handle.entries] == [(i, a) for i in range(3) for a in ("async", "sync")]
    assert handle.counts() == {"ok": 4, "error": 2} and handle.status == "done" and handle.done()
    by = {(e.index, e.adapter): e for e in handle.entries}
    assert by[0, "async"].score == 1.0 and by[0, "sync"].score == 0.0 and by[2, "async"].score is None
    assert by[0, "async"].usage["input_tokens"] == 220
    assert handle.ended_at is not None and handle.ended_at >= handle.started_at
    assert sorted(handle.episode_ids) == sorted(p.name for p in runs_dir.iterdir() if p.name.startswith("ep_"))
    for entry in handle.entries:
        assert entry.run_dir is not None and entry.episode_id == entry.run_dir.name
        summary = read_json(entry.run_dir / "summary.json")
        assert summary["x-noesis_nb"]["batch"] == {
            "batch_id": handle.batch_id,
            "task_index": entry.index,
            "adapter": entry.adapter,
        }
        assert summary["metrics"].get("score") == entry.score
        assert check_run(entry.run_dir) == [], entry.run_dir  # still a valid Noēsis run
    beta = read_json(by[1, "async"].run_dir / "summary.json")
    assert beta["tags"] == {"level": "hard"} and beta["answer"]["result"]["inputs"] == {"k": 1}
    record = json.loads(handle.record_path.read_text())
    assert handle.record_path == runs_dir / "batches" / f"{handle.batch_id}.json"
    assert [r["episode_id"] for r in record["entries"]] == [e.episode_id for e in handle.entries]
    assert record["adapters"] == ["async", "sync"] and record["tasks"][1]["tags"] == {"level": "hard"}
    assert "score=1.0" not in repr(handle) and "ok=4" in repr(handle)
    # the progress grid (the widgets register it; its text line only when this cell displayed it already)
    assert handle._repr_mimebundle_()["text/plain"].startswith("BatchView: 6 episodes, done")
    assert "fail here" in batch_view(handle).snapshot_html() and "<table>" in handle.plain_bundle()["text/html"]


def test_an_async_scorer_and_a_scorer_that_fails(runs_dir: Path) -> None:
    def broken(task, result):
        raise ValueError("no")

    async def main():
        good = noesis_nb.batch(["short", "much longer"], using=echo, root=runs_dir, score=is_long)
        bad = noesis_nb.batch(["x"], using=echo, root=runs_dir, score=broken)
        await good
        await bad
        return good, bad

    good, bad = asyncio.run(main())
    assert [e.score for e in good.entries] == [False, True]
    assert bad.entries[0].status == "ok" and bad.entries[0].score is None
    assert "raised ValueError: no" in bad.entries[0].handle.problems[0]


def test_approvals_decided_through_the_api_continue_the_batch(runs_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.txt"
    tasks = [{"task": t, "inputs": {"out": str(out)}} for t in ("approve one", "plain", "approve two", "plain too")]

    async def main():
        handle = noesis_nb.batch(tasks, using=asks, root=runs_dir, concurrency=1, approver="ask")
        await handle  # every episode finished or paused: the two that asked wait for a human
        assert handle.counts() == {"ok": 2, "paused": 2} and handle.status == "paused"
        pending = handle.pending()
        assert [(e.index, p.tool) for e, p in pending] == [(0, "fs.append"), (2, "fs.append")]
        first, _ = pending[0]
        noesis_nb.approve_draft(first.run_dir, approver_id="ana")  # the same gate a button uses
        second, draft = pending[1]
        noesis_nb.reject_draft(second.episode_id, draft.draft_id, reason="not today", runs_dir=runs_dir)
        await handle.wait()
        return handle

    handle = asyncio.run(main())
    statuses = [e.status for e in handle.entries]
    # the rejected tool raised ToolRejected in the adapter, which let it end the run: vetoed (as resume_run seals it)
    assert statuses == ["ok", "ok", "vetoed", "ok"], statuses
    assert out.read_text() == "approve one\n"
    assert handle.pending() == []


def test_cancel_ends_running_episodes_and_never_starts_queued_ones(runs_dir: Path) -> None:
    async def main():
        handle = noesis_nb.batch(
            [{"task": f"t{i}", "inputs": {"sleep": 5}} for i in range(6)], using=slow, root=runs_dir, concurrency=2
        )
        for _ in range(200):
            if handle.counts().get("running") == 2:
                break
            await asyncio.sleep(0.01)
        assert handle.cancel() is True
        await handle
        return handle

    handle = asyncio.run(main())
    assert handle.counts() == {"cancelled": 2, "not_started": 4} and handle.status == "cancelled"
    started = [e for e in handle.entries if e.episode_id is not None]
    assert len(started) == 2 and all(read_json(e.run_dir / "final.json")["outcome"] == "cancelled" for e in started)
    assert len([p for p in runs_dir.iterdir() if p.name.startswith("ep_")]) == 2, "queued entries never started"


def test_the_same_batch_again_skips_sealed_runs_and_a_changed_task_list_is_refused(runs_dir: Path) -> None:
    async def main():
        first = await noesis_nb.batch(["a", "b", "fail c"], using=echo, root=runs_dir, batch_id="nightly")
        again = await noesis_nb.batch(["a", "b", "fail c"], using=echo, root=runs_dir, batch_id="nightly")
        rerun = await noesis_nb.batch(["a", "b", "fail c"], using=echo, root=runs_dir, batch_id="nightly", rerun_failed=True)
        with pytest.raises(InvalidOptionError, match="recorded with another task list"):
            noesis_nb.batch(["a", "b"], using=echo, root=runs_dir, batch_id="nightly")
        return first, again, rerun

    first, again, rerun = asyncio.run(main())
    assert again.episode_ids == first.episode_ids and again.counts() == {"ok": 2, "error": 1}
    assert rerun.episode_ids[:2] == first.episode_ids[:2] and rerun.episode_ids[2] != first.episode_ids[2]
    record = json.loads(rerun.record_path.read_text())
    assert record["entries"][2]["previous"] == [first.episode_ids[2]]
    assert len([p for p in runs_dir.iterdir() if p.name.startswith("ep_")]) == 4


def test_executors_are_accepted_by_kind(runs_dir: Path) -> None:
    async def main():
        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            handle = noesis_nb.batch(["x", "y", "fail z"], using=echo, root=runs_dir, executor=pool, score=exact)
            await asyncio.wait_for(handle.wait(), 20)
        return handle

    handle = asyncio.run(main())
    assert [e.status for e in handle.entries] == ["ok", "ok", "error"]
    assert [e.score for e in handle.entries] == [1.0, 1.0, None]
    assert handle.entries[0].usage["input_tokens"] == 220


def test_a_damaged_record_is_one_clear_error(runs_dir: Path) -> None:
    async def run(**kwargs):
        return await noesis_nb.batch(["a", "b"], using=echo, root=runs_dir, batch_id="kept", **kwargs)

    handle = asyncio.run(run())
    record = json.loads(handle.record_path.read_text())
    for damage, needle in (
        (lambda r: r["entries"][0].update(task_index=7), "does not fit the record"),
        (lambda r: r["entries"][1].update(episode_id="../../etc"), "contains a path separator"),
        (lambda r: r.update(schema_version="other"), "is not a noesis_nb batch record"),
    ):
        broken = json.loads(json.dumps(record))
        damage(broken)
        handle.record_path.write_text(json.dumps(broken))
        with pytest.raises((InvalidOptionError, InvalidIdError), match=needle):
            asyncio.run(run())
    outside = runs_dir.parent / "elsewhere.json"  # a whole, valid record, but reached through a link out of the root
    outside.write_text(json.dumps(record))
    handle.record_path.unlink()
    handle.record_path.symlink_to(outside)
    with pytest.raises(InvalidOptionError, match="cannot be read as a batch record: a symlink to .*not followed"):
        asyncio.run(run())


@pytest.mark.parametrize(
    ("returned", "recorded"),
    [
        (np.int64(3), 3),
        (np.float64(0.25), 0.25),
        (np.bool_(True), True),
        (2**60, float(2**60)),  # beyond what a JSON number holds exactly: recorded as a float
        (10**400, None),  # no JSON number holds it: reported, no score, the run still ends ok
        (float("nan"), None),
        ("high", None),
    ],
)
def test_a_score_is_recorded_as_json_holds_it_and_an_odd_one_never_breaks_the_run(
    runs_dir: Path, returned: object, recorded: object
) -> None:
    ep = noesis_nb.solve("score me", using=lambda task: "done", runs_dir=runs_dir, score=lambda task, result: returned)
    summary = json.loads((runs_dir / ep / "summary.json").read_text())
    assert summary["status"] == "ok"
    assert summary["metrics"].get("score") == recorded and type(summary["metrics"].get("score")) is type(recorded)
    assert noesis_nb.runs_df(runs_dir)["status"].tolist() == ["ok"]


def test_runs_dir_names_the_batch_root_as_it_does_for_an_episode(runs_dir: Path) -> None:
    """``runs_dir=``, the name ``start``/``solve``/``show`` use, puts a batch where ``root=`` would."""

    async def main():
        return await noesis_nb.batch(["a", "b"], using=echo, runs_dir=runs_dir, batch_id="named")

    handle = asyncio.run(main())
    assert handle.counts() == {"ok": 2} and handle.record_path == runs_dir / "batches" / "named.json"
    assert handle.record_path.is_file()
    assert len([p for p in runs_dir.iterdir() if p.name.startswith("ep_")]) == 2


def test_an_adapter_reads_a_tasks_inputs_as_given_and_the_record_holds_them_as_json(runs_dir: Path) -> None:
    """``ctx.inputs`` in a batch is what the task gave, as ``start(inputs=…)`` gives it (a Path stayed a Path there
    but became its text in a batch); the record and the run hold JSON, and the batch called again is the same."""
    seen: list[Any] = []

    async def reads(task: str, ctx: Any) -> str:
        seen.append(ctx.inputs["where"])
        return "done"

    tasks = [{"task": "look", "inputs": {"where": Path("/srv/data")}}]

    async def main() -> list[str]:
        first = await noesis_nb.batch(tasks, using=reads, root=runs_dir, batch_id="typed")
        again = await noesis_nb.batch(tasks, using=reads, root=runs_dir, batch_id="typed")
        return [e.status for e in (*first.entries, *again.entries)]

    assert asyncio.run(main()) == ["ok", "ok"]
    assert seen == [Path("/srv/data")]
    record = json.loads((runs_dir / "batches" / "typed.json").read_text())
    assert record["tasks"][0]["inputs"] == {"where": "/srv/data"}
