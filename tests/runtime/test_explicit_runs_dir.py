"""``runs_dir=`` names the one place a run is looked up: a run of that id in a default root is not acted on.

``resume_run(ep, runs_dir="~nouser/x")`` (a folder that does not exist) or ``approve_draft(ep, runs_dir=other)``
used to fall back to ``./runs`` and the other default roots, and decided or resumed the run found there.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.errors import RunNotFoundError


def shout(text: str) -> str:
    return text.upper()


async def _agent(task: str, ctx) -> str:
    return await ctx.tool_async("py.shout", {"args": ["hi"]}, fn=shout, effect="write", risk="high")


@pytest.fixture
def paused_in_cwd_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, Path]:
    """A run paused on its draft in ``./runs`` (a default root), the process's folder being ``tmp_path``."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("NOESIS_RUNS_DIR", raising=False)
    episode_id = noesis_nb.solve("t", using=_agent, runs_dir="runs")
    assert noesis_nb.DiskRun(episode_id).status == "paused"
    return episode_id, tmp_path / "runs" / episode_id


@pytest.mark.parametrize("where", ["other", "missing", "~nouser_noesis_nb/x"])
def test_a_run_outside_the_given_runs_dir_is_not_decided_or_resumed(paused_in_cwd_runs, tmp_path: Path, where: str) -> None:
    episode_id, run = paused_in_cwd_runs
    (tmp_path / "other").mkdir()
    before = {p.relative_to(run): p.read_bytes() for p in run.rglob("*") if p.is_file()}
    calls = [
        lambda: noesis_nb.approve_draft(episode_id, runs_dir=where, approver_id="ana"),
        lambda: noesis_nb.reject_draft(episode_id, runs_dir=where, approver_id="ana", reason="no"),
        lambda: noesis_nb.resume_run(episode_id, runs_dir=where),
        lambda: noesis_nb.DiskRun(episode_id, runs_dir=where),
    ]
    for call in calls:
        with pytest.raises(RunNotFoundError) as info:
            call()
        said = str(info.value)
        if where == "other":
            assert "the only place looked in" in said and f"runs/{episode_id}" in said, said
        else:
            assert "does not exist" in said and where in said, said
    after = {p.relative_to(run): p.read_bytes() for p in run.rglob("*") if p.is_file()}
    assert after == before  # nothing decided, resumed or written
    noesis_nb.approve_draft(episode_id, runs_dir="runs", approver_id="ana")  # the place named: acted on
    noesis_nb.resume_run(episode_id, runs_dir="runs")
    assert noesis_nb.DiskRun(episode_id).status == "ok"
