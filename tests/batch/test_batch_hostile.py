"""Hostile ``batch()`` calls: a reused ``batch_id`` that differs, odd ids; one error naming the difference, nothing lost."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.errors import InvalidIdError, InvalidOptionError

from ..compat.checker import check_run
from .agents import echo, shout


def run_batch(tasks: Any, **kw: Any) -> Any:
    async def main() -> Any:
        return await noesis_nb.batch(tasks, **kw)

    return asyncio.run(main())


def test_the_same_batch_id_with_other_tasks_names_the_first_difference(runs_dir: Path) -> None:
    run_batch(["a", "b", "c"], using=echo, root=runs_dir, batch_id="nightly")
    with pytest.raises(InvalidOptionError, match=r"another task list: \[1\] was 'b', now 'B' "):
        run_batch(["a", "B", "c"], using=echo, root=runs_dir, batch_id="nightly")
    with pytest.raises(InvalidOptionError, match=r"another task list: 3 recorded, 4 now"):
        run_batch(["a", "b", "c", "d"], using=echo, root=runs_dir, batch_id="nightly")
    with pytest.raises(InvalidOptionError, match=r"another adapters: \[0\] was 'echo', now 'shout'"):
        run_batch(["a", "b", "c"], using=shout, root=runs_dir, batch_id="nightly")


@pytest.mark.parametrize(
    "first, again, said",
    [
        ({}, {"seed": 5}, "recorded with no seed, now seed=5 .*leave seed out to continue it"),
        ({"seed": 1}, {"seed": 2}, "recorded with seed=1, now seed=2 .*pass seed=1 to continue it"),
        ({"tags": {"k": "v"}}, {"tags": {"k": "w"}}, r"recorded with tags=\{'k': 'v'\}, now tags=\{'k': 'w'\}"),
        ({"governance": "audit"}, {}, "recorded with governance='audit', now governance=None"),
    ],
)
def test_the_same_batch_id_with_other_episode_options_is_refused(
    runs_dir: Path, first: dict[str, Any], again: dict[str, Any], said: str
) -> None:
    handle = run_batch(["a"], using=echo, root=runs_dir, batch_id="opts", **first)
    with pytest.raises(InvalidOptionError, match=said):
        run_batch(["a"], using=echo, root=runs_dir, batch_id="opts", **again)
    assert [e.status for e in handle.entries] == ["ok"]  # the recorded run is kept, sealed and valid
    assert check_run(handle.entries[0].run_dir) == []


def test_how_a_batch_runs_may_change_between_calls(runs_dir: Path) -> None:
    first = run_batch(["a", "b"], using=echo, root=runs_dir, batch_id="how", concurrency=1)
    again = run_batch(["a", "b"], using=echo, root=runs_dir, batch_id="how", concurrency=4, score=lambda t, r: 1.0)
    assert [e.episode_id for e in again.entries] == [e.episode_id for e in first.entries]  # nothing ran twice


def test_a_batch_id_of_300_characters_is_named_short(runs_dir: Path) -> None:
    with pytest.raises(InvalidIdError) as caught:
        run_batch(["a"], using=echo, root=runs_dir, batch_id="b" * 300)
    assert "(300 characters)" in str(caught.value) and len(str(caught.value)) < 200


async def slow(task: str) -> str:
    await asyncio.sleep(30)
    return task


def test_the_interrupt_during_await_batch_stops_it_sealed_and_says_how_to_continue(runs_dir: Path) -> None:
    import os
    import signal

    from noesis_nb.errors import BatchInterrupted

    seen: list[BaseException] = []

    async def main() -> None:
        b = noesis_nb.batch([f"t{i}" for i in range(6)], using=slow, root=runs_dir, batch_id="ctrl-c", concurrency=2)
        asyncio.get_running_loop().call_later(0.5, os.kill, os.getpid(), signal.SIGINT)
        try:
            await b
        except BaseException as exc:
            seen.append(exc)
            raise

    with pytest.raises(KeyboardInterrupt):  # asyncio.run's own handler, as the kernel's cancels the cell
        asyncio.run(main())
    assert len(seen) == 1 and isinstance(seen[0], BatchInterrupted), seen
    assert "2 cancelled, 4 never started" in str(seen[0]) and "batch_id='ctrl-c'" in str(seen[0])
    runs = [p for p in runs_dir.iterdir() if p.name.startswith("ep_")]
    assert len(runs) == 2 and all(check_run(p) == [] for p in runs)
    again = run_batch([f"t{i}" for i in range(6)], using={"slow": echo}, root=runs_dir, batch_id="ctrl-c", concurrency=6)
    assert again.counts() == {"cancelled": 2, "ok": 4}


def test_an_executor_that_takes_no_job_fails_each_entry_saying_why_and_the_batch_still_ends(runs_dir: Path) -> None:
    """A shut-down executor: ``batch.wait()`` raised its RuntimeError and each entry read "the batch stopped before
    this entry started"; the reason and the fix are now each entry's, and the same batch runs on a live executor."""
    import concurrent.futures

    closed = concurrent.futures.ThreadPoolExecutor(1)
    closed.shutdown()

    async def main(executor: Any) -> Any:
        return await noesis_nb.batch(["a", "b"], using=echo, root=runs_dir, batch_id="pool", executor=executor).wait()

    handle = asyncio.run(main(closed))
    assert [e.status for e in handle.entries] == ["error", "error"]
    for entry in handle.entries:
        assert "the executor did not take the job (RuntimeError: cannot schedule new futures after shutdown)" in str(entry.error)
        assert "pass a running executor" in str(entry.error)
    assert not [p for p in runs_dir.iterdir() if p.name != "batches"]
    with concurrent.futures.ThreadPoolExecutor(2) as live:
        again = asyncio.run(main(live))
    assert [e.status for e in again.entries] == ["ok", "ok"]


@pytest.mark.parametrize(
    "recorded_in, passed",
    [
        ("NFD", "r\u00e9sum\u00e9 caf\u00e9"),  # names pasted from macOS folders are NFD
        ("NFC", "re\u0301sume\u0301"),
        ("NFKC", "\ufb01le r\u00e9sum\u00e9"),  # a ligature the record no longer holds
        ("NFKD", "\ufb01le r\u00e9sum\u00e9"),
    ],
    ids=["NFD", "NFC", "NFKC", "NFKD"],
)
def test_another_normalisation_names_the_form_the_record_holds_and_that_fix_is_taken(
    runs_dir: Path, recorded_in: str, passed: str
) -> None:
    """The advice was always ``unicodedata.normalize('NFC', task)``: followed for an NFD record, refused again."""
    import re
    import unicodedata

    run_batch([unicodedata.normalize(recorded_in, passed)], using=echo, root=runs_dir, batch_id="forms")
    with pytest.raises(InvalidOptionError, match="another Unicode normalisation") as caught:
        run_batch([passed], using=echo, root=runs_dir, batch_id="forms")
    advice = re.search(r"the record holds it in (\w+): .* unicodedata\.normalize\('(\w+)', task\)", str(caught.value))
    assert advice is not None and advice.groups() == (recorded_in, recorded_in), str(caught.value)
    again = run_batch([unicodedata.normalize(advice.group(2), passed)], using=echo, root=runs_dir, batch_id="forms")
    assert again.counts() == {"ok": 1}


def test_a_record_that_mixes_normalisations_is_told_so_and_where_it_parts(runs_dir: Path) -> None:
    """No one form gives such a record back: advising one would be refused again."""
    run_batch(["r\u00e9sume\u0301"], using=echo, root=runs_dir, batch_id="mixed")
    with pytest.raises(InvalidOptionError, match=r"the record mixes forms .*they part at character 1") as caught:
        run_batch(["re\u0301sum\u00e9"], using=echo, root=runs_dir, batch_id="mixed")
    assert "normalize(" not in str(caught.value)


@pytest.mark.parametrize(
    "recorded, again, said",
    [
        ("résumé café", "re\u0301sume\u0301 cafe\u0301", "now the same text in another Unicode normalisation"),
        ("abc", "\u0430bc", r"they part at character 0: was 'abc', now '\\u0430bc'"),
        ("x" * 100 + "a", "x" * 100 + "b", "they part at character 100: was …'x{30}a', now …'x{30}b'"),
    ],
)
def test_a_task_changed_where_the_eye_cannot_tell_is_named_by_where_it_differs(
    runs_dir: Path, recorded: str, again: str, said: str
) -> None:
    """Before, each read ``[0] was 'X', now 'X'`` with X the same on both sides (a letter and its accent as one
    character or two, a Cyrillic а, a difference past the 80 characters shown)."""
    run_batch([recorded], using=echo, root=runs_dir, batch_id="eye")
    with pytest.raises(InvalidOptionError, match=said):
        run_batch([again], using=echo, root=runs_dir, batch_id="eye")


@pytest.mark.parametrize(
    "recorded, again",
    [
        ({"task": "x" * 100, "tags": {"k": "1"}}, {"task": "x" * 100, "tags": {"k": "2"}}),  # past the task's shown part
        ({"task": "r\u00e9sum\u00e9", "tags": {"k": "1"}}, {"task": "re\u0301sume\u0301", "tags": {"k": "2"}}),
    ],
    ids=["tag-after-a-long-task", "tag-beside-another-normalisation"],
)
def test_a_tag_changed_beside_the_task_is_named_and_both_sides_read_apart(
    runs_dir: Path, recorded: dict[str, Any], again: dict[str, Any]
) -> None:
    """Before, the first read ``was {'task': 'xxx…', now {'task': 'xxx…`` (the same on both sides, the tags cut off),
    and the second named only the normalisation, whose advice would be refused again for the tag."""
    import re

    run_batch([recorded], using=echo, root=runs_dir, batch_id="tagged")
    with pytest.raises(InvalidOptionError, match="another task list") as caught:
        run_batch([again], using=echo, root=runs_dir, batch_id="tagged")
    said = str(caught.value)
    assert "normalisation" not in said, said
    sides = re.search(r"was (.*), now (.*?) \(see ", said)
    assert sides is not None and sides.group(1) != sides.group(2), said
    assert '"k":"1"' in sides.group(1) and '"k":"2"' in sides.group(2), said


_KEY = "sk-proj-" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0"  # shaped as an OpenAI project key


def _key_pieces(message: str) -> list[str]:
    """Each run of 8 characters of the key's secret part that ``message`` shows."""
    secret = _KEY[len("sk-proj-") :]
    return [secret[i : i + 8] for i in range(len(secret) - 7) if secret[i : i + 8] in message]


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("y" * 70 + " " + _KEY + " to staging", "y" * 70 + " " + _KEY + " to prod"),  # part just past the key
        ("y" * 70 + " " + _KEY + "\u00e9", "y" * 70 + " " + _KEY + "e\u0301x"),  # past it, in another form
        ("y" * 70 + " " + _KEY, "y" * 70 + " " + _KEY[:-1] + "X"),  # part inside the key
    ],
)
def test_where_two_tasks_part_is_shown_with_no_piece_of_a_key(old: str, new: str) -> None:
    """``apart`` showed the 30 characters before where two tasks part with ``ascii()`` alone: a key ending there
    was shown in part (its last 30 characters), which no detector finds in a window cut from its middle. The texts
    are now redacted whole first, as every text the batch shows is."""
    from noesis_nb.batch.differ import apart

    said = apart(old, new)
    assert "they part at character" in said, said
    assert _key_pieces(said) == [], said
