"""A run whose resuming process was killed while its tool ran has a draft of unknown outcome. ``%noesis resume``
told the notebook to "call resume_run(..., unknown_outcome='retry')", a Python call, and had no way to say it
itself; now it takes ``--unknown-outcome retry|fail`` and its error names that option."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from IPython.core.error import UsageError

import noesis_nb
from noesis_nb.store import read_json

_CUT_OFF = """
import sys, warnings
warnings.simplefilter("ignore")
import noesis_nb
root, started, effect = sys.argv[1:4]
argv = [sys.executable, "-c",
        f"import time; open({started!r}, 'w').close(); time.sleep(60); open({effect!r}, 'a').write('x')"]

async def agent(task, ctx):
    return await ctx.tool_async("fs.append", {"argv": argv}, effect="write", risk="high")

ep = noesis_nb.solve("append", using=agent, runs_dir=root)
noesis_nb.approve_draft(ep, approver_id="ana", runs_dir=root)
print(ep, flush=True)
noesis_nb.resume_run(ep, runs_dir=root)
"""


def _cut_off_run(runs_dir: Path, tmp_path: Path) -> str:
    """A run whose resume was killed (SIGKILL) while its approved tool ran: the tool's outcome is unknown."""
    started = tmp_path / "started"
    proc = subprocess.Popen(
        [sys.executable, "-c", _CUT_OFF, str(runs_dir), str(started), str(tmp_path / "effect")],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path(noesis_nb.__file__).parents[1])},
        start_new_session=True,  # its tool's subprocess is killed with it
    )
    assert proc.stdout is not None
    episode = proc.stdout.readline().strip()
    for _ in range(600):  # until the tool has started
        if started.exists() or proc.poll() is not None:
            break
        time.sleep(0.05)
    assert started.exists(), "the tool never started"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    return episode


def test_the_resume_magic_takes_and_names_unknown_outcome(ip: Any, runs_dir: Path, tmp_path: Path) -> None:
    episode = _cut_off_run(runs_dir, tmp_path)
    with pytest.raises(UsageError) as raised:
        ip.run_line_magic("noesis", f"resume {episode} --runs-dir {runs_dir}")
    said = str(raised.value)
    assert f"run %noesis resume {episode} --unknown-outcome retry to run it again, or --unknown-outcome fail" in said
    assert "resume_run(" not in said
    ip.run_line_magic("noesis", f"resume {episode} --runs-dir {runs_dir} --unknown-outcome fail")
    assert read_json(runs_dir / episode / "summary.json")["status"] == "error"
    assert not (tmp_path / "effect").exists()
