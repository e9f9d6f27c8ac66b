"""An idempotency key names a file of the run (``tool_invocations/idempotency/<principal>__<tool>__<key>.json``) and
is written in its draft, manifest.json and final.json. A key written as a secret name and a value (``db_password=…``,
``api_key=…``, ``db_password@…``) is refused at ``ctx.tool``, naming the fix, before anything is prepared, as episode
and batch ids in that form are; a key naming an action and its subject (``reset-password:user-42``) is kept."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.errors import InvalidOptionError

# built from parts: no whole credential in the repository
_VALUE = "Tr0" + "ub4dor9xQ"


@pytest.mark.parametrize("key", [f"db_password={_VALUE}", f"api_key={_VALUE}", f"db_password@{_VALUE}"])
def test_a_key_holding_a_secret_named_value_is_refused(tmp_path: Path, key: str) -> None:
    seen: list[BaseException] = []

    def agent(task: str, ctx: Any) -> str:
        try:
            ctx.tool("echo", {"argv": ["true"]}, idempotency_key=key)
        except InvalidOptionError as exc:
            seen.append(exc)
        return "done"

    episode_id = noesis_nb.solve("t", using=agent, runs_dir=tmp_path, approver="auto")
    assert len(seen) == 1, seen
    said = str(seen[0])
    assert _VALUE not in said and "idempotency_key" in said and "reset-password:user-42" in said
    run = tmp_path / episode_id
    assert not [p for p in run.rglob("*") if _VALUE in p.name]
    assert not [p.name for p in run.rglob("*") if p.is_file() and _VALUE in p.read_text(errors="replace")]
    assert not (run / "tool_invocations").exists() or not any((run / "tool_invocations").rglob("*.json"))


def test_a_key_naming_an_action_and_its_subject_is_kept(tmp_path: Path) -> None:
    def agent(task: str, ctx: Any) -> Any:
        return ctx.tool("echo", {"argv": ["true"]}, idempotency_key="reset-password:user-42")

    episode_id = noesis_nb.solve("t", using=agent, runs_dir=tmp_path, approver="auto")
    records = list((tmp_path / episode_id / "tool_invocations" / "idempotency").iterdir())
    assert [p.name.endswith("__reset-password:user-42.json") for p in records] == [True]
