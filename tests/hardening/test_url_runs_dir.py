"""A URL where a local runs folder is written is refused, naming the URL and the fix, and nothing is written.

As a path, ``s3://bucket/runs`` names a folder ``s3:`` under the working folder: episodes went there, while
``runs_df("s3://bucket/runs")`` read the bucket and never found them. Checked through every way a runs folder is
given: ``solve``/``start`` (``runs_dir=``), ``ns.set``, ``noesis_nb.config.set``, ``batch(root=)``,
``$NOESIS_RUNS_DIR`` in a fresh process, and the readers that look a run up in a folder (``show``).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.errors import InvalidOptionError

URLS = ["s3://my-bucket/runs", "gs://b/p", "file:///data/runs", "HTTPS://example.com/runs", "az://c/runs"]


def _agent(task, ctx):
    return "done"


def _nothing_written(where: Path) -> None:
    assert sorted(p.name for p in where.iterdir()) == [], "a URL became a local folder"


@pytest.fixture
def here(tmp_path, monkeypatch):
    """An empty working folder: a URL taken as a path would create ``s3:`` (or ``file:``) in it."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return work


@pytest.mark.parametrize("url", URLS)
def test_solve_and_start_refuse_a_url_and_write_nothing(here, url):
    with pytest.raises(InvalidOptionError) as solved:
        noesis_nb.solve("t", using=_agent, runs_dir=url)
    message = str(solved.value)
    assert url.split("://")[0] in message and "is a URL, not a folder" in message
    if url.startswith("file://"):
        assert "'/data/runs'" in message  # the path itself is the fix
    else:
        assert "upload_to=" in message and "runs_df" in message
    _nothing_written(here)


def test_settings_and_batch_root_refuse_a_url(here):
    for setter in (noesis_nb.ns.set, noesis_nb.config.set):
        with pytest.raises(InvalidOptionError, match="s3://my-bucket/runs.*is a URL"):
            setter(runs_dir="s3://my-bucket/runs")
    assert "s3:" not in str(noesis_nb.config.runs_dir())  # the refused value was not kept
    with pytest.raises(InvalidOptionError, match="is a URL"):
        noesis_nb.batch(["a", "b"], using=_agent, root="s3://my-bucket/batch")
    with pytest.raises(InvalidOptionError, match="is a URL"):
        noesis_nb.show("ep_01J0000000000000000000000", runs_dir="s3://my-bucket/runs")
    _nothing_written(here)


def test_a_url_in_the_environment_is_refused_where_runs_are_written(here):
    code = (
        "import noesis_nb\n"
        "from noesis_nb.errors import InvalidOptionError\n"
        "try:\n"
        "    noesis_nb.solve('t', using=lambda task, ctx: 'x')\n"
        "except InvalidOptionError as exc:\n"
        "    print('refused:', exc)\n"
    )
    env = {**os.environ, "NOESIS_RUNS_DIR": "s3://my-bucket/runs"}
    out = subprocess.run([sys.executable, "-c", code], cwd=here, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("refused: $NOESIS_RUNS_DIR='s3://my-bucket/runs' is a URL"), out.stdout + out.stderr
    _nothing_written(here)


def test_local_folders_that_only_look_odd_are_still_folders(here):
    """Not every ``:`` makes a URL: a folder named ``runs:2025`` or ``a:/b`` is written where it says."""
    for name in ("runs:2025", "s3:/one-slash"):
        ep = noesis_nb.solve("t", using=_agent, runs_dir=name)
        assert (here / name / ep / "final.json").is_file()
