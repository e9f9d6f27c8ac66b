"""An idempotency key (or a draft or tool key) that is a value after a secret-sounding name names an action and is
kept, whatever the value: ``token=abc`` and ``api_key=foo`` were refused while ``password=hunter2`` and
``reset-password:user-42`` were kept (the detector's match of some names held the separator, ``=abc``). A key of a
known format is refused wherever it stands, after a name too."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.errors import InvalidIdError, InvalidOptionError
from noesis_nb.tools._files import check_id

NAMED = ["password=hunter2", "pin=1234", "reset-password:user-42", "token=abc", "api_key=foo", "access_token:xyz", "bearer:abc"]
KEYS = ["x=ghp_" + "A1b2" * 9, "token=ghp_" + "A1b2" * 9, "run-AKIAIOSFODNN7EXAMPLE-x", "ghp_" + "Zy9x" * 9]


@pytest.mark.parametrize("key", NAMED)
def test_a_value_after_a_name_is_kept(key: str) -> None:
    check_id(key, "idempotency_key")


@pytest.mark.parametrize("key", KEYS)
def test_a_key_of_a_known_format_is_refused_wherever_it_stands(key: str) -> None:
    with pytest.raises(InvalidIdError):
        check_id(key, "idempotency_key")


@pytest.mark.parametrize("key", ["token=abc", "api_key=foo"])
def test_a_tool_call_takes_such_an_idempotency_key(runs_dir: Path, key: str) -> None:
    def agent(task: str, ctx: Any) -> Any:
        return ctx.tool("fs.touch", {"argv": [sys.executable, "-c", "pass"]}, effect="write", idempotency_key=key)

    try:
        episode = noesis_nb.solve("touch once", using=agent, runs_dir=runs_dir)
    except (InvalidIdError, InvalidOptionError) as exc:  # what the old rule said
        pytest.fail(f"refused: {exc}")
    assert (runs_dir / episode / "final.json").is_file()
