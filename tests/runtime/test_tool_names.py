"""A tool's name is judged before anything of its call is written: one rule (``tools.names``) for ``ctx.tool`` and
``ToolInvocationInput``, so every run it lets through passes Noēsis' candidate-kind check."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

import noesis_nb
from noesis_nb.errors import InvalidOptionError
from noesis_nb.store import read_events
from noesis_nb.tools import EffectKind, GovernanceContext, RiskTier, ToolIdentity, ToolInvocationInput, ToolProtocol
from noesis_nb.tools.types import PreparedToolInvocation

from ..compat.checker import check_run

BAD = ["fs list", "../../x\n", "a/b", "a\x00b", "x" * 1000, "fs.list\n", "fs.", ".fs", "fs.list@", "fs.list@1 2", " ", ""]
GOOD = ["fs.list", "git.tag@1", "org.fs.list", "calc.add-2", "echo", "fs.write@1.2.0"]


def _run(runs_dir: Path, name: Any) -> tuple[Path, list[BaseException], Any]:
    """One episode whose sync adapter calls ``ctx.tool(name, …)``; the error it caught, its output otherwise."""
    caught: list[BaseException] = []

    def agent(task: str, ctx: Any) -> Any:
        try:
            return ctx.tool(name, {"argv": [sys.executable, "-c", "print(1)"]}, effect="read", risk="low")
        except Exception as exc:
            caught.append(exc)
            return "refused"

    episode_id = noesis_nb.solve("t", using=agent, runs_dir=runs_dir, approver="auto")
    run = runs_dir / episode_id
    return run, caught, read_events(run / "events.jsonl")


@pytest.mark.parametrize("name", BAD, ids=lambda name: repr(name)[:20])
def test_a_name_the_contract_cannot_record_is_refused_in_one_line_before_anything_is_written(runs_dir: Path, name: str) -> None:
    run, caught, events = _run(runs_dir, name)
    assert len(caught) == 1 and isinstance(caught[0], InvalidOptionError), caught
    message = str(caught[0])
    assert "\n" not in message and len(message) < 400, message
    assert "'fs.write_file'" in message, message  # says what a name looks like
    assert repr(name)[:20] in message, message  # the value, escaped (a newline or NUL shown as \n, \x00) and cut
    assert not [e for e in events if e["phase"] == "tool" or str(e["payload"].get("kind", "")).startswith("tool")]
    assert not (run / "tool_invocations").exists() or not any((run / "tool_invocations").rglob("*.json"))
    assert check_run(run) == []


@pytest.mark.parametrize("name", GOOD)
def test_names_of_letters_digits_dashes_with_namespace_and_version_still_run(runs_dir: Path, name: str) -> None:
    run, caught, events = _run(runs_dir, name)
    assert caught == [] and [e for e in events if e["phase"] == "action_candidate" and e["payload"]["kind"].startswith("tool.")]
    assert check_run(run) == []


@pytest.mark.parametrize(
    ("namespace", "name", "version"),
    [("fs", "list files", None), ("../x", "ls", None), ("fs", "a.b", None), ("fs", "ls", "1\n"), ("f s", "ls", None)],
)
def test_a_prepared_invocation_holds_to_the_same_rule(namespace: str, name: str, version: str | None) -> None:
    with pytest.raises(ValidationError, match="cannot be recorded: a tool name looks like 'fs.write_file'"):
        ToolInvocationInput(
            run_id="ep_1",
            protocol=ToolProtocol.SUBPROCESS,
            tool=ToolIdentity(namespace=namespace, name=name, version=version),
            payload={"argv": ["true"]},
            governance=GovernanceContext(effect_kind=EffectKind.READ, risk_tier=RiskTier.LOW),
        )


def test_a_record_another_program_wrote_loads_whatever_its_tool_is_called() -> None:
    """Noēsis itself takes any string: its records are read as written, only new calls are judged."""
    record = {
        "run_id": "ep_1",
        "request_id": "req_1",
        "protocol": "subprocess",
        "tool": {"namespace": "my tools", "name": "list files", "version": None},
        "payload": {
            "normalized_payload": {},
            "redacted_payload": {},
            "request_fingerprint": "sha256:0",
            "redaction_applied": False,
        },
        "execution": {"timeout_ms": 1, "retry_limit": 0, "idempotency_key": None},
        "security": {"principal_id": "ana", "scopes": [], "policy_scope": "x"},
        "governance": {"effect_kind": "read", "risk_tier": "low", "candidate_id": None, "requires_approval": False, "tags": []},
        "status": "prepared",
    }
    assert PreparedToolInvocation.model_validate(record).tool.name == "list files"
