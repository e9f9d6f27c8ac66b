"""A plain function adapter that runs an episode of its own with ``solve(...)`` and returns its id: the id is the
outer episode's result, as returned. Before, the package awaited that id (a ``str`` answering ``await``, for a user's
own ``await noesis_nb.solve(...)``) and warned SolveAwaited of an ``await`` the user never wrote."""

from __future__ import annotations

import warnings
from pathlib import Path

import noesis_nb
from noesis_nb.store import read_summary


def test_a_sync_adapter_returning_the_id_of_its_own_solve_gives_that_id_without_a_warning(runs_dir: Path) -> None:
    inner: list[str] = []

    def outer(task: str) -> str:
        ep = noesis_nb.solve("inner step", using=lambda t: "hi", runs_dir=runs_dir)
        inner.append(ep)
        return ep

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ep = noesis_nb.solve("outer step", using=outer, runs_dir=runs_dir)
    said = [f"{w.category.__name__}: {w.message}" for w in caught]
    assert not [s for s in said if "await" in s], said  # before: "SolveAwaited: noesis_nb.solve(...) is synchronous: …"
    (inner_ep,) = inner
    assert ep != inner_ep
    summary = read_summary(runs_dir / ep) or {}
    assert summary.get("status") == "ok" and (summary.get("answer") or {}).get("result") == inner_ep, summary


def test_a_user_awaiting_solve_is_still_told(runs_dir: Path) -> None:
    import asyncio

    async def main() -> list[str]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            await noesis_nb.solve("say hi", using=lambda task: "hi", runs_dir=runs_dir)
        return [type(w.message).__name__ for w in caught]

    assert "SolveAwaited" in asyncio.run(main())
