"""``await batch`` in a script returns with the ended runs copied to ``upload_to``.

A script's ``asyncio.run(main())`` closes its loop as soon as ``main`` returns, cancelling whatever is still
pending on it: ``await batch`` used to return as soon as the entries had ended, before the copies of their runs
had begun, so the script ended with ``upload_to`` empty and no entry saying so. Each case runs the script in a
process of its own, the way a user runs one.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import asyncio, json, sys
import noesis_nb
from tests.batch.agents import asks

async def main():
    out = sys.argv[1] + "/written.txt"
    tasks = [{"task": t, "inputs": {"out": out}} for t in sys.argv[3].split(",")]
    done = await noesis_nb.batch(
        tasks, using=asks, root=sys.argv[1], batch_id="b1", upload_to="file://" + sys.argv[2], approver="ask", concurrency=4
    )
    return [(e.status, e.episode_id, e.error) for e in done.entries]

print(json.dumps(asyncio.run(main())))
"""


def _run(tmp_path: Path, tasks: list[str]) -> tuple[list[list[object]], Path]:
    runs, target = tmp_path / "runs", tmp_path / "copies"
    runs.mkdir()
    target.mkdir()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(runs), str(target), ",".join(tasks)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1]), target


@pytest.mark.parametrize("tasks", [["a"], ["a", "b", "c", "d", "e", "f"]])
def test_every_ended_run_is_copied_when_await_batch_returns_in_a_script(tmp_path: Path, tasks: list[str]) -> None:
    entries, target = _run(tmp_path, tasks)
    assert [status for status, _, _ in entries] == ["ok"] * len(tasks)
    assert sorted(p.name for p in target.iterdir()) == sorted(str(episode) for _, episode, _ in entries)
    assert all((target / str(episode) / "manifest.json").is_file() for _, episode, _ in entries)


def test_the_ended_runs_are_copied_when_await_batch_returns_with_one_paused(tmp_path: Path) -> None:
    """``await batch`` returns once the rest wait for a person; the runs that ended are copied by then."""
    entries, target = _run(tmp_path, ["approve-1", "plain-1", "plain-2", "plain-3"])
    statuses = {status for status, _, _ in entries}
    assert statuses == {"paused", "ok"}, entries
    ended = sorted(str(episode) for status, episode, _ in entries if status == "ok")
    assert sorted(p.name for p in target.iterdir()) == ended
    assert all((target / name / "manifest.json").is_file() for name in ended)
