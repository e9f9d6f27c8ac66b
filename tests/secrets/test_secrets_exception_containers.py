"""An adapter's exception holding a secret inside a dict, list or tuple is raised by ``handle.result()`` redacted.

``RuntimeError({"api_key": …})``, ``KeyError({"password": …})``, ``ValueError([["token", …]])``: a
built-in class cannot be swapped for one that prints redacted, so the arguments themselves must be.
What the cell prints, ``exc.args`` and the exception's pickle bytes hold no secret of the corpus.
"""

from __future__ import annotations

import asyncio
import pickle
import random
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from tests.hardening.secret_corpus import corpus, leaks

SHAPES = corpus(random.SystemRandom().randrange(2**32))


class ClientError(Exception):
    """An SDK-style error keeping the request it failed on as an attribute."""

    def __init__(self, message: str, request: dict[str, Any]) -> None:
        super().__init__(message)
        self.request = request


MAKERS: dict[str, Callable[[Any], BaseException]] = {
    "dict argument": lambda s: RuntimeError(s.kwargs),
    "environment argument": lambda s: KeyError(s.env),
    "argv in a list": lambda s: ValueError([s.argv]),
    "text in a tuple beside a message": lambda s: RuntimeError("failed", (s.text, 1)),
    "request attribute": lambda s: ClientError("request failed", {"headers": s.env, "body": [s.text]}),
}


@pytest.mark.parametrize("how", list(MAKERS))
def test_a_secret_inside_a_container_argument_is_redacted_where_the_cell_shows_it(tmp_path: Path, how: str) -> None:
    def failing(shape: Any) -> Callable[[str, Any], Any]:
        def agent(task: str, ctx: Any) -> Any:
            raise MAKERS[how](shape)

        return agent

    async def cell() -> list[tuple[str, bytes]]:
        shown: list[tuple[str, bytes]] = []
        for shape in SHAPES:
            handle = noesis_nb.start("deploy", using=failing(shape), runs_dir=tmp_path)
            await handle
            with pytest.raises(Exception) as raised:
                handle.result()
            exc = raised.value
            printed = "".join(traceback.format_exception(exc))
            shown.append((f"{shape.name}: traceback", printed.encode()))
            shown.append((f"{shape.name}: args", repr(exc.args).encode()))
            shown.append((f"{shape.name}: attributes", repr(vars(exc)).encode()))
            shown.append((f"{shape.name}: pickle", pickle.dumps(exc)))
        return shown

    found = leaks(SHAPES, asyncio.run(cell()))
    assert found == [], found


def test_an_exception_without_a_secret_keeps_its_arguments() -> None:
    from noesis_nb.secrets import redact_exception

    args = ("failed", {"attempts": 3, "host": "db.internal"}, ["a", "b"], ("x", 1))
    exc = redact_exception(RuntimeError(*args))
    assert exc.args == args
    assert all(a is b for a, b in zip(exc.args, args))
