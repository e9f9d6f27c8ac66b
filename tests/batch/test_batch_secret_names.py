"""A batch id, adapter name or upload URL that holds a secret is refused before anything is written.

A batch writes those names as they are (the record's file name and entries, each run's batch tag) and
finds its runs again by them: such a name was written out in the record and, redacted in the run's tag
and the record's adapter list but not in its entries, the batch could never be called again. A token in
``upload_to`` was named whole in every upload error an entry holds.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.errors import InvalidOptionError

from .agents import echo

KEY = "sk-proj-" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0"


def _named(name: str) -> Any:
    async def adapter(task: str, ctx: Any) -> str:
        return "done"

    adapter.__name__ = name
    return adapter


CASES = {
    "dict key": ({"using": {KEY: echo}}, "adapter name 1 of using="),
    "adapter label": ({"using": [echo, _named(KEY)]}, "the label of adapter 2 of using="),
    "batch id": ({"using": echo, "batch_id": KEY}, "batch_id"),
    "upload URL": ({"using": echo, "upload_to": f"https://example.org/runs?token={KEY}"}, "upload_to="),
    "upload URL path": ({"using": echo, "upload_to": f"s3://bucket/{KEY}/runs"}, "upload_to="),
    "upload URL signature": ({"using": echo, "upload_to": f"https://example.org/runs?sv=2024&sig={KEY}"}, "upload_to="),
    "upload URL random query": ({"using": echo, "upload_to": f"https://example.org/runs?q={KEY[8:]}"}, "upload_to="),
    "upload URL user part": ({"using": echo, "upload_to": f"https://{KEY}@example.org/runs"}, "upload_to="),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_name_that_reads_as_a_secret_is_one_error_and_nothing_is_written(runs_dir: Path, case: str) -> None:
    kwargs, named = CASES[case]

    async def cell() -> None:
        noesis_nb.batch(["a"], root=runs_dir, **kwargs)

    with pytest.raises(InvalidOptionError) as caught:
        asyncio.run(cell())
    message = str(caught.value)
    said = ("looks like a secret", "holds a secret", "holds credentials")  # a URL's user part: one rule, any user
    assert message.startswith(named) and any(words in message for words in said), message
    assert KEY not in message and KEY[:12] not in message
    assert list(runs_dir.iterdir()) == []


def test_plain_names_are_taken_and_the_batch_is_called_again(runs_dir: Path) -> None:
    async def cell() -> list[str]:
        first = await noesis_nb.batch(["a"], using={"claude-3-5-sonnet-20241022": echo}, root=runs_dir, batch_id="nightly")
        again = await noesis_nb.batch(["a"], using={"claude-3-5-sonnet-20241022": echo}, root=runs_dir, batch_id="nightly")
        return [e.status for e in (*first.entries, *again.entries)]

    assert asyncio.run(cell()) == ["ok", "ok"]


@pytest.mark.parametrize(
    "name",
    ["mlruns-7f3k9q2xv8", "mlruns-7f3k9q2xv8a8sd7f6g5h4j3k2", "x9Qz7Lp2Kd8Wm4Rt6Yv1Bn3Hc5Jf0Gs2"],
)
def test_a_random_looking_destination_name_is_no_secret_and_the_copy_is_made(tmp_path: Path, runs_dir: Path, name: str) -> None:
    """A bucket or folder named with random characters (as made by infrastructure tools) carries no credential:
    the batch runs and copies its run there."""
    target = tmp_path / name / "runs"
    target.mkdir(parents=True)

    async def cell() -> list[Any]:
        done = await noesis_nb.batch(["a"], using=echo, root=runs_dir, batch_id="b1", upload_to=f"file://{target}")
        return [(e.status, e.error) for e in done.entries]

    assert asyncio.run(cell()) == [("ok", None)]
    assert [p.name for p in target.iterdir()] == [p.name for p in runs_dir.iterdir() if p.name.startswith("ep_")]
    assert (next(target.iterdir()) / "manifest.json").is_file()


@pytest.mark.parametrize(
    "url", ["s3://mlruns-7f3k9q2xv8/runs", "s3://exp-a8sd7f6g5h4j3k2q/runs/2026", "s3://b/x9Qz7Lp2Kd8Wm4Rt6Yv1/r?page=2"]
)
def test_a_random_looking_bucket_is_taken_as_upload_to(runs_dir: Path, url: str) -> None:
    from noesis_nb.batch.spec import check_batch_options

    taken = check_batch_options(
        concurrency=1, score=None, score_timeout_s=None, batch_id="b1", root=runs_dir, upload_to=url, episode_opts={}
    )
    assert taken == (1, "b1", runs_dir)
