from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from noesis_nb.frames import clear_cache

from .newprocess import REPO, make_corpus
from .runkit import SMOKE, make_engine_runs
from .webserver import WebServers


@pytest.fixture(autouse=True)
def _fresh_cache():
    clear_cache()
    yield
    clear_cache()


@pytest.fixture
def web() -> Iterator[WebServers]:
    """Real http servers on 127.0.0.1 this test starts, shut down (``release`` set first) when it ends."""
    servers = WebServers()
    yield servers
    servers.close()


@pytest.fixture(scope="session")
def engine_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    runs = tmp_path_factory.mktemp("engine") / "runs"
    return runs, make_engine_runs(runs)


@pytest.fixture
def smoke_root() -> Path:
    assert SMOKE.is_dir(), f"{SMOKE} is part of the repository; restore it from version control"
    return SMOKE


@pytest.fixture()
def env(tmp_path: Path) -> dict[str, str]:
    """The environment of a load in a new process (``newprocess``): this test's own cache folder (its runs index and
    kept frames), the tests' seal key, the tests on the path."""
    path = os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])
    return {**os.environ, "NOESIS_NB_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": path}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Engine runs of every kind, a Noēsis run, and a damaged hand run (its problems are reported each time)."""
    return make_corpus(tmp_path_factory.mktemp("index") / "runs", damaged=True)


@pytest.fixture(scope="module")
def clean_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Engine runs of every kind and a Noēsis run, none with a problem."""
    return make_corpus(tmp_path_factory.mktemp("clean") / "runs", damaged=False)
