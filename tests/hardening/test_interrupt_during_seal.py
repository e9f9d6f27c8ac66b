"""Ctrl-C (SIGINT from outside) landing while an episode seals its run: the seal ends whole, then the interrupt
reaches the caller. The run is sealed as it would have been, passes Noēsis' validators and never reads ``lost``.

A child process runs an episode on a loop of its own (``run_until_complete``: no handler of ``asyncio.run``'s
turns Ctrl-C into a cancellation, so a bare KeyboardInterrupt can land anywhere on the loop thread). The child
stops just before one of the seal's writes and waits there until the test has sent SIGINT, so the interrupt
lands inside the seal, between two of its writes, every time.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.store.sealing import seal_state

from ..compat.checker import check_run

REPO = Path(__file__).resolve().parents[2]

CHILD = r"""
import asyncio, os, sys, time
from pathlib import Path
import noesis_nb
from noesis_nb.runtime import lifecycle

root, point, flag, go = sys.argv[1:5]

def stop_before(name):
    if name == point:
        Path(flag).write_text(name)
        while not os.path.exists(go):  # the SIGINT lands here, inside the seal
            time.sleep(0.01)

write_json, write_manifest = lifecycle.atomic_write_json, lifecycle.write_manifest

def watched_json(path, *args, **kwargs):
    stop_before(Path(path).name)
    return write_json(path, *args, **kwargs)

def watched_manifest(*args, **kwargs):
    stop_before("manifest.json")
    return write_manifest(*args, **kwargs)

lifecycle.atomic_write_json, lifecycle.write_manifest = watched_json, watched_manifest

async def agent(task, ctx):
    ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=812, output_tokens=57, cached_input_tokens=512)
    ctx.emit("note", {"text": "drafted the note"})
    return "the note"

loop = asyncio.new_event_loop()
try:
    episode_id = loop.run_until_complete(noesis_nb.solve_async("write the note", using=agent, runs_dir=root))
except BaseException as stop:
    print("ended by", type(stop).__name__, flush=True)
    sys.exit(130)
print("ended without the interrupt", episode_id, flush=True)
"""


def _wait_for(path: Path, child: subprocess.Popen[str], limit_s: float = 120.0) -> None:
    deadline = time.monotonic() + limit_s
    while not path.exists():
        assert child.poll() is None, f"the child ended before the seal reached its stop: {child.communicate()}"
        assert time.monotonic() < deadline, f"the child never reached {path.name}"
        time.sleep(0.02)


@pytest.mark.parametrize("point", ["summary.json", "final.json", "manifest.json"])
def test_sigint_between_two_seal_writes_leaves_the_run_sealed(tmp_path: Path, point: str) -> None:
    root, flag, go = tmp_path / "runs", tmp_path / "stopped", tmp_path / "go"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(root), point, str(flag), str(go)],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        _wait_for(flag, child)
        child.send_signal(signal.SIGINT)
        time.sleep(0.3)  # the signal lands while the child still waits inside the seal
        go.write_text("go")
        out, err = child.communicate(timeout=120)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    # the interrupt reached the caller: the call ended by it, not as if nothing happened
    assert child.returncode == 130 and "ended by" in out, (child.returncode, out, err[-2000:])
    assert any(word in out for word in ("KeyboardInterrupt", "EpisodeInterrupted")), out
    runs = sorted(root.glob("ep_*"))
    assert len(runs) == 1, runs
    run = runs[0]
    assert seal_state(run).sealed, f"interrupt before {point} left the run unsealed: {sorted(p.name for p in run.iterdir())}"
    assert check_run(run) == []
    final = json.loads((run / "final.json").read_text())
    assert final["outcome"] == "success", final
    manifest = json.loads((run / "manifest.json").read_text())
    listed = {entry["name"] for entry in manifest["files"]}
    on_disk = {p.relative_to(run).as_posix() for p in run.rglob("*") if p.is_file()} - {"manifest.json"}
    assert listed == on_disk
    events = [json.loads(line) for line in (run / "events.jsonl").read_text().splitlines()]
    assert [e["phase"] for e in events].count("terminate") == 1
    assert events[-1]["phase"] == "memory"  # the seal's last line is there, nothing after it
    frame = noesis_nb.runs_df(root, cache=False)
    assert list(frame["status"]) == ["ok"], frame[["episode_id", "status"]]
