"""In a real kernel, an episode started with ``start()`` whose adapter returns an object with a ``__str__`` and
``__repr__`` that never return: the kernel keeps answering and the run seals, the object named as one whose text did
not come. The package used to call ``str()`` on it on the kernel's loop: the kernel stopped answering for good, even
after its interrupt, and the run was never sealed."""

from __future__ import annotations

import json
from typing import Any

import pytest

pytestmark = pytest.mark.kernel

WAIT_S = 60  # the object costs the package's wait (5 s) once; a hang is forever


@pytest.fixture(scope="module", autouse=True)
def _setup(kernel: Any) -> None:
    kernel.setup()


def test_an_adapter_result_whose_str_never_returns_leaves_the_kernel_answering(kernel: Any) -> None:
    kernel.run(
        """
        import threading
        class Hang:
            def __str__(self): threading.Event().wait()
            def __repr__(self): threading.Event().wait()

        async def agent(task):
            return Hang()

        h = noesis_nb.start("t", using=agent, runs_dir=RUNS)
        """
    )
    out = kernel.run(f"await asyncio.wait_for(asyncio.shield(h.wait()), {WAIT_S})\nprint(h.status)", timeout=WAIT_S + 30)
    assert out["stdout"].split() == ["ok"]
    assert kernel.run("print(1 + 1)", timeout=30)["stdout"].strip() == "2"
    run_dir = kernel.value("str(h.run_dir)")
    with open(f"{run_dir}/manifest.json"):
        pass  # sealed
    with open(f"{run_dir}/summary.json") as summary:
        answer = json.load(summary)["answer"]
    assert "did not return within" in json.dumps(answer)  # the object, named
