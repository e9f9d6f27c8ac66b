"""batch(upload_to=…) to a local folder URL, and a batch killed (kill -9) mid-upload: the next call completes the copy."""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import subprocess
import sys
from pathlib import Path

import noesis_nb
from noesis_nb.store.artifacts import verify_manifest

from ..conftest import REPO
from .agents import echo

# the batch's process is killed as it writes the copy's manifest: every file is copied, the manifest is not
KILLED_MID_UPLOAD = """
import asyncio, sys
import noesis_nb
from tests.batch.agents import echo, kill_at_copy_manifest
kill_at_copy_manifest()

async def main():
    await noesis_nb.batch(["a"], using=echo, root=sys.argv[1], batch_id="up", upload_to=sys.argv[2]).wait()

asyncio.run(main())
"""


def _batch(runs_dir: Path, url: str, tasks: list[str]) -> noesis_nb.BatchHandle:
    async def main() -> noesis_nb.BatchHandle:
        return await noesis_nb.batch(tasks, using=echo, root=runs_dir, batch_id="up", upload_to=url).wait()

    return asyncio.run(main())


def _copy_matches(run_dir: Path, copy: Path) -> bool:
    return (copy / "manifest.json").read_bytes() == (run_dir / "manifest.json").read_bytes() and verify_manifest(copy).ok


def test_a_local_folder_url_gets_each_sealed_run_whole(runs_dir: Path, tmp_path: Path) -> None:
    remote = tmp_path / "remote"
    remote.mkdir()
    handle = _batch(runs_dir, f"file://{remote}", ["a", "b"])
    assert [e.error for e in handle.entries] == [None, None]
    for entry in handle.entries:
        assert entry.run_dir is not None and _copy_matches(entry.run_dir, remote / str(entry.episode_id))


def test_a_batch_killed_mid_upload_has_the_copy_completed_by_the_next_call_and_only_once(runs_dir: Path, tmp_path: Path) -> None:
    remote = tmp_path / "killed"
    remote.mkdir()
    url = f"file://{remote}"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    child = subprocess.run([sys.executable, "-c", KILLED_MID_UPLOAD, str(runs_dir), url], env=env, timeout=60)
    assert child.returncode == -9
    (copy,) = remote.iterdir()
    assert (copy / "events.jsonl").exists() and not (copy / "manifest.json").exists()  # killed between those writes

    handle = _batch(runs_dir, url, ["a"])
    (entry,) = handle.entries
    assert entry.status == "ok" and entry.error is None and entry.episode_id == copy.name  # kept, not run again
    assert entry.run_dir is not None and _copy_matches(entry.run_dir, copy)
    written = (copy / "manifest.json").stat().st_mtime_ns
    _batch(runs_dir, url, ["a"])  # a whole copy is left as it is
    assert (copy / "manifest.json").stat().st_mtime_ns == written


def test_a_workers_upload_that_fails_is_named_in_its_entry(runs_dir: Path, tmp_path: Path) -> None:
    """On an executor the job copies its run itself, after the seal: its failure ended the job with an error no one
    read, and the entry said nothing (the same upload on the notebook's loop names it)."""
    (tmp_path / "a-file").write_text("not a folder")
    url = f"file://{tmp_path / 'a-file' / 'runs'}"

    async def main() -> noesis_nb.BatchHandle:
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            return await noesis_nb.batch(["a"], using=echo, root=runs_dir, upload_to=url, executor=pool).wait()

    (entry,) = asyncio.run(main()).entries
    assert entry.status == "ok" and "NotADirectoryError" in str(entry.error) and "a-file" in str(entry.error)
