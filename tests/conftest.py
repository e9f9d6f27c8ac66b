"""Shared fixtures: isolated runs dirs and settings, and the paths of the real Noēsis runs in tests/fixtures."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

try:
    from hypothesis import settings
except ImportError:  # a venv made for one test (tests/test_ipykernel629.py) runs the kernel tests without it
    settings = None

# property tests check what the code does, not how fast: hypothesis's default deadline (200 ms an example) failed a
# test as flaky whenever a busy machine paused the process during one example. Speed is measured in benchmarks/
# Under CI (the CI variable set, as .ci/run sets it) hypothesis's own "ci" profile: no deadline either, and the
# examples drawn from each test's name, so one commit's run is the next one's; elsewhere each run explores anew
if settings is not None:
    settings.register_profile("noesis_nb", deadline=None)
    settings.load_profile("ci" if os.environ.get("CI") else "noesis_nb")

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures"  # byte-for-byte copies of runs Noēsis itself wrote
SMOKE_RUN = FIXTURES / "noesis-smoke-run" / "ep_01K9RBBMXXRSFWR49SXFGF4SPR"
# the phase of each of the smoke run's 13 lines, as Noēsis wrote them (its last two are older lines without an id)
SMOKE_PHASES = ["start", "observe", "interpret", "plan"] + ["act"] * 4 + ["reflect", "learn", "terminate", "insight", "memory"]
ADR008_RUN = FIXTURES / "noesis-adr008-allow-run" / "ep_adr008_allow"


@pytest.fixture
def runs_dir(tmp_path: Path) -> Path:
    path = tmp_path / "runs"
    path.mkdir()
    return path


@pytest.fixture(scope="session")
def _cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("noesis_nb-cache")


@pytest.fixture(scope="session", autouse=True)
def _config_outside_home(_cache_dir: Path) -> Iterator[None]:
    """The seal key (``store.seal``) of the tests and of every process they start, never the user's."""
    before = os.environ.get("XDG_CONFIG_HOME")
    os.environ["XDG_CONFIG_HOME"] = str(_cache_dir / "config")
    yield
    if before is None:
        os.environ.pop("XDG_CONFIG_HOME", None)
    else:
        os.environ["XDG_CONFIG_HOME"] = before


@pytest.fixture(autouse=True)
def _isolated_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, _cache_dir: Path):
    """Every test starts with default settings, no NOESIS_* environment, its own cwd, and a cache dir outside home."""
    from noesis_nb import config

    for key in list(os.environ):
        if key.startswith("NOESIS_"):
            monkeypatch.delenv(key)
    monkeypatch.setenv("NOESIS_NB_CACHE_DIR", str(_cache_dir))
    monkeypatch.chdir(tmp_path)
    config.reset()
    yield
    config.reset()


@pytest.fixture(scope="module")
def ip():
    """IPython's test shell with ``%load_ext noesis_nb`` (unloaded after the module).

    The shell is one per process: the names a module defines in it are removed after the module,
    so a later module's "did you mean" lists only its own agents."""
    from .ipshell import noesis_shell

    with noesis_shell() as shell:
        names_before = set(shell.user_ns)
        yield shell
        for name in set(shell.user_ns) - names_before:
            del shell.user_ns[name]


@pytest.fixture
def smoke_run() -> Path:
    assert SMOKE_RUN.is_dir(), f"{SMOKE_RUN} is part of the repository; restore it from version control"
    return SMOKE_RUN
