"""In a real kernel, a plain agent whose ``next()`` finds nothing (``StopIteration`` on its worker thread) ends its
episode ``error`` at once, the StopIteration named: ``await handle.wait()`` returns, no interrupt needed (it used to
wait forever, and the interrupt then sealed the run ``cancelled``)."""

from __future__ import annotations

import json
from typing import Any

import pytest

pytestmark = pytest.mark.kernel

WAIT_S = 30  # the episode ends in well under a second; a hang is forever


@pytest.fixture(scope="module", autouse=True)
def _setup(kernel: Any) -> None:
    kernel.setup()


def test_a_sync_agent_raising_stop_iteration_ends_its_episode_error(kernel: Any) -> None:
    kernel.run(
        """
        def pick(task, ctx):
            return next(rule for rule in [] if rule in task)

        h = noesis_nb.start("t", using=pick, runs_dir=RUNS)
        """
    )
    out = kernel.run(f"await asyncio.wait_for(asyncio.shield(h.wait()), {WAIT_S})\nprint(h.status)", timeout=WAIT_S + 30)
    assert out["stdout"].split() == ["error"]
    assert "StopIteration" in kernel.value("f'{type(h.error).__name__}: {h.error}'")
    run_dir = kernel.value("str(h.run_dir)")
    with open(f"{run_dir}/summary.json") as summary:
        assert json.load(summary)["status"] == "error"
