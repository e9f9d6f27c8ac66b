"""Loading the secret scanner leaves the process's warnings as they were.

detect-secrets captures warnings into logging when it is imported: after the first scan, every warning in
the process (the package's own ``DecisionStands``, ``RunRecovered``…, and the user's) went to a logger that
prints nothing. Each case runs in a fresh interpreter: the import happens once per process.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _run(code: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=tmp_path,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_warning_after_the_first_scan_is_still_shown(tmp_path: Path) -> None:
    done = _run(
        """
        import warnings, noesis_nb
        noesis_nb.solve("a task", using=lambda task, ctx: "ok", runs_dir="runs")  # scans: loads the detectors
        warnings.warn("still shown after the scan")
        """,
        tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert "still shown after the scan" in done.stderr, done.stderr


def test_a_package_warning_is_recorded_by_a_block_around_the_first_scan(tmp_path: Path) -> None:
    """``catch_warnings(record=True)`` entered before the detectors load still records: deciding a draft the other
    way after it was decided warns ``DecisionStands``."""
    done = _run(
        """
        import sys, warnings, noesis_nb
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")

            async def agent(task, ctx):
                argv = [sys.executable, "-c", "print('hi')"]
                return (await ctx.tool_async("fs.write_file", {"argv": argv}, effect="write", risk="high"))["returncode"]

            episode = noesis_nb.solve("write", using=agent, runs_dir="runs")  # paused on its draft: scanned
            noesis_nb.approve_draft(episode, approver_id="ana", runs_dir="runs")
            noesis_nb.reject_draft(episode, approver_id="bob", runs_dir="runs")  # the approval stands: a warning
        print(sorted({type(w.message).__name__ for w in caught}))
        """,
        tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert "DecisionStands" in done.stdout, (done.stdout, done.stderr)
