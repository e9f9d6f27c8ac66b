"""The analysis tests again as a default install runs them: pyarrow blocked before pandas loads.

The test extra brings pyarrow (``dask[dataframe]`` needs it), so the main run takes pandas' pyarrow
paths; a default install has none, and the frames build their columns differently without it
(string and categorical blocks from Python objects). This runs the frame, plot and batch-analysis
tests in a fresh interpreter where ``import pyarrow`` fails. The Dask frames need pyarrow and
are left out.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from noesis_nb.frames import _arrays

REPO = Path(__file__).resolve().parents[2]
MODULES = [
    "tests/frames",
    "--ignore=tests/frames/test_ddf.py",
    "tests/plots",
    "tests/batch/test_batch_analysis.py",
    "tests/hardening/test_frames_reload.py",
    "tests/hardening/test_warm_equals_cold.py",
    "tests/hardening/test_mutated_runs.py",
    "tests/hardening/test_tiered_prices.py",
]
_BLOCKED = (
    "import sys; import tests.hardening._no_pyarrow; import pytest; "
    "from noesis_nb.frames import _arrays; assert not _arrays.HAVE_ARROW, 'pyarrow was not blocked'; "
    "sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', '-p', 'no:nbval', '-o', 'addopts=', *sys.argv[1:]]))"
)

if _arrays.HAVE_ARROW:  # pyarrow is here: run the analysis tests as a default install would, too

    @pytest.mark.timeout(900)  # the frame, plot and analysis folders over again: longer than one test's 300 s
    def test_analysis_without_pyarrow_in_a_subprocess() -> None:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
        done = subprocess.run(
            [sys.executable, "-c", _BLOCKED, *MODULES], cwd=REPO, env=env, capture_output=True, text=True, timeout=900
        )
        assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
        assert " passed" in done.stdout and " skipped" not in done.stdout.splitlines()[-1], done.stdout[-2000:]
