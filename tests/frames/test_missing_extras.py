"""A frame that needs an optional package not installed says so as one noesis_nb error naming the right install.

The README's default install has neither Dask nor fsspec's cloud file systems: ``runs_ddf`` raised a bare
``ImportError`` (a full traceback in a cell, not the ``MissingExtraError`` the README says to catch), and a
``gs://`` source was told to ``pip install 'noesis_nb[s3]' (s3fs)``, which installs no Google Storage reader.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

#: run in a fresh interpreter: a package hidden there was never imported, nor registered with fsspec
_PROBE = textwrap.dedent(
    """
    import json, sys
    for name in sys.argv[1].split(","):
        sys.modules[name] = None  # as on a machine without it
    import noesis_nb
    from noesis_nb.errors import MissingExtraError, NoesisNbError
    try:
        getattr(noesis_nb, sys.argv[2])(sys.argv[3])
    except Exception as exc:
        print(json.dumps([type(exc).__name__, isinstance(exc, MissingExtraError), isinstance(exc, NoesisNbError),
                          isinstance(exc, ImportError), str(exc)]))
    """
)


def _raised(hidden: str, frame: str, source: str) -> tuple[str, str]:
    """(error type, message) of ``noesis_nb.<frame>(source)`` in a new process where ``hidden`` cannot be imported."""
    out = subprocess.run([sys.executable, "-c", _PROBE, hidden, frame, source], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout, out.stderr
    name, missing_extra, ours, import_error, message = json.loads(out.stdout)
    assert missing_extra and ours and import_error, (name, message)  # one line in a cell; an ImportError still
    return name, message


@pytest.mark.parametrize("frame", ["runs_ddf", "events_ddf"])
def test_dask_frames_without_dask_name_the_dask_extra(runs_dir, frame):
    _, message = _raised("dask,dask.dataframe,distributed", frame, str(runs_dir))
    assert "pip install 'noesis_nb[dask]'" in message


def test_a_remote_source_without_fsspec_names_the_s3_extra():
    _, message = _raised("fsspec,s3fs", "runs_df", "s3://bucket/runs")
    assert "needs fsspec" in message and "pip install 'noesis_nb[s3]'" in message


def test_a_cloud_file_system_that_is_not_s3_is_not_told_to_install_s3fs():
    _, message = _raised("gcsfs", "runs_df", "gs://bucket/runs")
    assert "'gs://bucket/runs'" in message and "gcsfs" in message
    assert "noesis_nb[s3]" not in message and "s3fs" not in message


def test_s3_without_s3fs_names_the_s3_extra():
    _, message = _raised("s3fs", "runs_df", "s3://bucket/runs")
    assert "'s3://bucket/runs' needs the s3:// file system" in message and "pip install 'noesis_nb[s3]'" in message
