"""A run whose seal was cut by ``kill -9`` after its ``terminate`` line reads ``lost``, not ``ok``.

Its files say how the episode ended, but with no manifest (the seal's last file) and no process holding its
lock, nothing will ever seal it: ``DiskRun``, ``list_runs`` and ``show()`` (badge, ``text/plain`` line and the
"Settle lost run" button) all say ``lost`` until ``resume_run`` seals it. A run whose live writer is still at
its seal is not lost. Real processes, killed at each seal document they were about to write.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.runtime.diskrun import DiskRun

# writes one episode; just before the seal document named argv[3] it kills itself (argv[4] "kill") or waits
# for the file argv[5] to appear (argv[4] "hold"), having said so in argv[5] + ".here"
_WRITER = r"""
import os, signal, sys, time
from pathlib import Path
import noesis_nb
from noesis_nb import _jsonio

root, ep, at, how = sys.argv[1:5]
original = _jsonio.atomic_write_bytes

def stop_before(path, data, *args, **kwargs):
    if Path(path).name == at and Path(path).parent.name == ep:
        if how == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        Path(sys.argv[5] + ".here").touch()
        while not Path(sys.argv[5]).exists():
            time.sleep(0.02)
    return original(path, data, *args, **kwargs)

_jsonio.atomic_write_bytes = stop_before

def agent(task, ctx):
    ctx.emit("reason", {"text": "working"})
    return "fine"

noesis_nb.solve("seal me", using=agent, runs_dir=root, episode_id=ep)
"""


def _statuses(root: Path, run: Path) -> tuple[str, str, str, bool]:
    """(DiskRun.status, list_runs' status, show()'s text/plain line, whether show() offers to settle it); runs_df
    must say what list_runs says, on a cold load and on a warm one."""
    [listed] = [r for r in noesis_nb.list_runs(runs_dir=root) if r["episode_id"] == run.name]
    for cache in (False, True, True):
        frame = noesis_nb.runs_df(root, cache=cache).set_index("episode_id")
        assert frame.loc[run.name, "status"] == listed["status"], (cache, frame.loc[run.name, "status"], listed["status"])
    view = noesis_nb.show(str(run))
    bundle = view.mimebundle(widget=False)
    assert "nnb-badge" in bundle["text/html"]
    shown = bundle["text/plain"] + " " + bundle["text/html"].split("nnb-badge", 1)[1].split("</span>", 1)[0]
    return DiskRun(run).status, listed["status"], shown, view.settle_button.layout.display != "none"


@pytest.mark.parametrize("at", ["summary.json", "final.json", "manifest.json"])
def test_a_seal_cut_by_kill_reads_lost_until_resume_run_seals_it(tmp_path: Path, at: str) -> None:
    root, ep = tmp_path / "runs", "ep_cut_seal"
    done = subprocess.run(
        [sys.executable, "-c", _WRITER, str(root), ep, at, "kill", str(tmp_path / "go")], capture_output=True, timeout=120
    )
    assert done.returncode == -9, done.stderr.decode()[-2000:]
    run = root / ep
    assert b'"terminate"' in (run / "events.jsonl").read_bytes() and not (run / "manifest.json").exists()
    disk, listed, shown, settle = _statuses(root, run)
    assert (disk, listed, settle) == ("lost", "lost", True)
    assert "status='lost'" in shown and ">lost" in shown  # the text/plain line and the badge

    noesis_nb.resume_run(str(run))  # settles it: sealed now
    assert (run / "manifest.json").is_file()
    assert DiskRun(run).status != "lost"
    [listed_after] = [r for r in noesis_nb.list_runs(runs_dir=root) if r["episode_id"] == ep]
    assert listed_after["status"] != "lost"


def test_a_live_writer_still_sealing_is_not_lost(tmp_path: Path) -> None:
    root, ep, go = tmp_path / "runs", "ep_sealing", tmp_path / "go"
    writer = subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(root), ep, "manifest.json", "hold", str(go)], stderr=subprocess.PIPE
    )
    try:
        end = time.monotonic() + 120
        while not Path(str(go) + ".here").exists():  # a wait for the writer to reach its seal, not a measurement
            failed = writer.poll() is not None and writer.stderr is not None and writer.stderr.read().decode()[-2000:]
            assert not failed and time.monotonic() < end, failed
            time.sleep(0.02)
        disk, listed, shown, settle = _statuses(root, root / ep)
        assert "lost" not in (disk, listed) and not settle and "lost" not in shown
        go.touch()
        assert writer.wait(timeout=120) == 0
    finally:
        if writer.poll() is None:
            writer.kill()
            writer.wait()
    assert DiskRun(root / ep).status == "ok"
