"""A run's ``started_at`` is stamped once the run is set up, not before the secret scanner's first load: a fresh
process spent that load (a second or so in a kernel) inside every first run's duration, before its first event."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

_FIRST_RUN = r"""
import builtins, json, sys, time
loaded = []
_import = builtins.__import__
def _timed(name, *args, **kwargs):
    module = _import(name, *args, **kwargs)
    if name.startswith("detect_secrets"):
        loaded.append(time.time())  # the scanner's modules as they finish loading
    return module
builtins.__import__ = _timed
import noesis_nb
assert "detect_secrets" not in sys.modules
async def quick(task, ctx):
    return "ok"
episode_id = noesis_nb.solve("first run", using=quick, runs_dir=sys.argv[1])
print(json.dumps({"episode_id": episode_id, "scanner_loaded": max(loaded)}))
"""


def test_the_first_run_of_a_process_starts_after_the_secret_scanner_loads(tmp_path: Path) -> None:
    from noesis_nb.store.instants import epoch_seconds

    done = subprocess.run([sys.executable, "-c", _FIRST_RUN, str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    said = json.loads(done.stdout.strip().splitlines()[-1])
    state = json.loads((tmp_path / said["episode_id"] / "state.json").read_text())
    started = epoch_seconds(state["episode"]["started_at"])
    assert started >= said["scanner_loaded"]
    summary = json.loads((tmp_path / said["episode_id"] / "summary.json").read_text())
    assert summary["started_at"] == state["episode"]["started_at"]
