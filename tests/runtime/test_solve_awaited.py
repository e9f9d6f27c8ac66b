"""``await noesis_nb.solve(...)``, a newcomer's first cell: the synchronous ``solve`` ran the episode to its end, so
the await hands back its id (nothing runs twice, nothing is lost) with one warning line naming the id and what
returns at once; never Python's bare "object str can't be used in 'await' expression"."""

from __future__ import annotations

import asyncio
import copy
import pickle
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.runtime.solved import SolveAwaited
from noesis_nb.store import read_summary
from tests.kernel.conftest import Kernel


def test_awaiting_solve_gives_its_id_back_with_one_line_saying_why(runs_dir: Path) -> None:
    async def main() -> str:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            ep = await noesis_nb.solve("say hi", using=lambda task: "hi", runs_dir=runs_dir)
        [warning] = [w for w in caught if issubclass(w.category, SolveAwaited)]
        said = str(warning.message)
        assert "\n" not in said and repr(ep) in said
        assert "noesis_nb.start(" in said and "solve_async" in said and "drop the await" in said
        assert warning.filename == __file__  # pointed at the line with the await
        return ep

    ep = asyncio.run(main())
    assert type(ep) is str and (read_summary(runs_dir / ep) or {}).get("status") == "ok"
    assert len(list(runs_dir.iterdir())) == 1  # one run: nothing ran again


def test_the_id_solve_returns_is_a_plain_id_everywhere(runs_dir: Path) -> None:
    ep = noesis_nb.solve("say hi", using=lambda task: "hi", runs_dir=runs_dir)
    assert isinstance(ep, str) and ep == str(ep) and hash(ep) == hash(str(ep))
    for copied in (pickle.loads(pickle.dumps(ep)), copy.deepcopy(ep)):
        assert type(copied) is str and copied == ep
    assert noesis_nb.show(ep, runs_dir=runs_dir) is not None


@pytest.fixture(scope="module")
def kernel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kernel]:
    k = Kernel(tmp_path_factory.mktemp("awaited"))
    k.setup()
    try:
        yield k
    finally:
        k.stop()


def test_in_a_notebook_cell_the_await_works_and_says_so(kernel: Kernel) -> None:
    out = kernel.run('ep = await noesis_nb.solve("say hi", using=lambda task: "hi", runs_dir=RUNS)\nprint("ID", ep)')
    assert out["error"] is None and "can't be used in 'await' expression" not in str(out)
    ep = kernel.value("ep")
    assert f"ID {ep}" in out["stdout"] and "SolveAwaited" in out["stdout"] and "noesis_nb.start(" in out["stdout"]
    assert kernel.value(f"noesis_nb.show({ep!r}, runs_dir=RUNS).source.status") == "ok"
