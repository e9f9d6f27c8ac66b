"""An adapter's exception that holds a secret is raised by ``handle.result()`` with the secret redacted.

IPython prints the raised exception into the notebook, which is saved and shared, so what the cell
shows must hold no more than the run's files do: every shape of the secret corpus, in the message,
in a chained cause, in a note and in an ``OSError``'s file name, through ``result()``, ``error`` and
the traceback as printed. The exception keeps its type, so ``except`` clauses still catch it.
"""

from __future__ import annotations

import asyncio
import random
import traceback
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from tests.hardening.secret_corpus import corpus, leaks

SHAPES = corpus(random.SystemRandom().randrange(2**32))


def _failing(shape: Any, how: str) -> Any:
    def agent(task: str, ctx: Any) -> str:
        if how == "message":
            raise ValueError(f"deploy failed: {shape.text}")
        if how == "cause":
            try:
                raise KeyError(shape.text)
            except KeyError as inner:
                raise RuntimeError("the call failed") from inner
        if how == "note":
            error = ValueError("deploy failed")
            error.add_note(f"with {shape.text}")
            raise error
        raise FileNotFoundError(2, "No such file or directory", f"/srv/keys/{shape.text}.pem")

    return agent


@pytest.mark.parametrize("how", ["message", "cause", "note", "os error"])
def test_a_secret_in_the_adapters_exception_is_redacted_where_the_cell_shows_it(tmp_path: Path, how: str) -> None:
    async def cell() -> list[tuple[str, bytes]]:
        shown: list[tuple[str, bytes]] = []
        for shape in SHAPES:
            handle = noesis_nb.start("deploy", using=_failing(shape, how), runs_dir=tmp_path)
            await handle
            assert handle.status == "error"
            kind = {"message": ValueError, "cause": RuntimeError, "note": ValueError, "os error": FileNotFoundError}[how]
            with pytest.raises(kind) as raised:
                handle.result()
            printed = "".join(traceback.format_exception(raised.value))
            assert "[REDACTED]" in printed, printed
            shown.append((f"{shape.name}: traceback", printed.encode()))
            shown.append((f"{shape.name}: error", repr(handle.error).encode()))
        return shown

    found = leaks(SHAPES, asyncio.run(cell()))
    assert found == [], found
