"""A run's own write refused while a tool draft is written (a file past the size limit: EFBIG, as a full disk's
ENOSPC): the episode ends with one RunWriteError naming the draft's file, the run is left unsealed (not sealed
as the adapter's error), and resume_run seals it once there is room, saying the process could not write it."""

from __future__ import annotations

import resource
import signal
import warnings
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.errors import RunWriteError
from noesis_nb.runtime.api import RunRecovered
from noesis_nb.store.sealing import seal_state

PAYLOAD = "y" * 40_000  # the draft holds it twice, the events before it once


def _limited(run_dir: Path) -> tuple[int, int]:
    """A real size limit on every file this process writes: the log may grow by 60 kB (the payload once), the
    draft (twice) cannot be written."""
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, ((run_dir / "events.jsonl").stat().st_size + 60_000, hard))
    return soft, hard


@pytest.mark.parametrize("catches", [False, True])
def test_a_refused_draft_leaves_the_run_unsealed_and_resumable(tmp_path: Path, catches: bool) -> None:
    limits: list[tuple[int, int]] = []

    def agent(task, ctx):
        limits.append(_limited(ctx.run_dir))
        try:
            return ctx.tool("fs.write", {"argv": ["true", PAYLOAD]}, effect="write", risk="high")["returncode"]
        except RunWriteError:
            if not catches:
                raise
            return "went on"  # an adapter that catches the error and goes on: the run still cannot be sealed ok

    old = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    try:
        with pytest.raises(RunWriteError) as refused:
            noesis_nb.solve("pause on a full disk", using=agent, runs_dir=tmp_path, approver="ask")
    finally:
        if limits:
            resource.setrlimit(resource.RLIMIT_FSIZE, limits[0])
        signal.signal(signal.SIGXFSZ, old)
    (run_dir,) = [p for p in tmp_path.iterdir() if p.name.startswith("ep_")]
    said = str(refused.value)
    assert "tool_invocations" in said and "EFBIG" in said and f"resume_run('{run_dir.name}')" in said
    assert not seal_state(run_dir).closed  # not sealed as the adapter's error
    assert not (run_dir / "final.json").exists()

    with warnings.catch_warnings(record=True) as caught:  # room again: the resume seals it, and says why it was left
        warnings.simplefilter("always")
        noesis_nb.resume_run(run_dir.name, runs_dir=tmp_path)
    (recovered,) = [str(w.message) for w in caught if issubclass(w.category, RunRecovered)]
    assert "could not write it" in recovered and "EFBIG" in recovered, recovered
    assert seal_state(run_dir).closed
    assert noesis_nb.runs_df(tmp_path).set_index("episode_id").loc[run_dir.name, "status"] == "error"
