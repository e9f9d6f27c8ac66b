"""``%noesis approve`` (and ``approve_draft``/``reject_draft``) on an unsealed run with no draft pending says what
the run is: a lost run is to be settled, a running one is not waiting for a decision. It said "no draft is pending
approval …; drafts: none. Pass a draft id." where no draft id could help."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Any

import pytest
from IPython.core.error import UsageError

import noesis_nb
from noesis_nb.runtime.api import RunRecovered
from tests.widgets.lostruns import lost_while_running, start_writer


def test_approving_a_lost_run_says_how_to_settle_it(ip: Any, runs_dir: Path) -> None:
    lost_while_running(runs_dir, "ep_lost")
    for decide in (noesis_nb.approve_draft, noesis_nb.reject_draft):
        with pytest.raises(Exception) as raised:
            decide("ep_lost", runs_dir=runs_dir, approver_id="ana")
        said = str(raised.value)
        assert "lost" in said and "%noesis resume ep_lost" in said and "Pass a draft id" not in said, said
    with pytest.raises(UsageError, match="resume_run") as raised:
        ip.run_line_magic("noesis", f"approve ep_lost --runs-dir {runs_dir}")
    assert "Pass a draft id" not in str(raised.value)
    with pytest.warns(RunRecovered):  # what it says settles it
        noesis_nb.resume_run("ep_lost", runs_dir=runs_dir)


def test_approving_a_run_that_runs_elsewhere_says_it_waits_for_no_decision(runs_dir: Path) -> None:
    writer = start_writer(runs_dir, "ep_busy")
    try:
        with pytest.raises(Exception) as raised:
            noesis_nb.approve_draft("ep_busy", runs_dir=runs_dir, approver_id="ana")
    finally:
        writer.send_signal(signal.SIGKILL)
        writer.wait()
    said = str(raised.value)
    assert "running" in said and "not waiting for a decision" in said and "Pass a draft id" not in said, said
